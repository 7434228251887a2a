package org.bayeux.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * One client connection that {@link FailoverBalancer} relays to a node: a thread for each direction. While its node
 * is black-holed, bytes are read and dropped in both directions and the end of the node's side is not passed on,
 * so the client sees a connection that is open and silent, as with a machine that vanished; {@link #cut()} ends it
 * with a reset, as a balancer that shuts a failed node's sessions down.
 */
final class BalancedConnection {
    private static final int BUFFER_BYTES = 16 * 1024;

    private final int node;
    private final Socket client;
    private final Socket server;
    private final BooleanSupplier silenced;
    private final LongAdder droppedBytes;
    private final Consumer<BalancedConnection> onEnd;
    private final AtomicBoolean ended = new AtomicBoolean();

    /**
     * @param node the index of the node the connection goes to
     * @param client the accepted client connection
     * @param server the connection to the node
     * @param silenced true while the node is black-holed
     * @param droppedBytes counts the bytes dropped while silenced
     * @param onEnd told once, when the connection ended on either side or was cut
     */
    BalancedConnection(int node, Socket client, Socket server, BooleanSupplier silenced, LongAdder droppedBytes,
            Consumer<BalancedConnection> onEnd) {
        this.node = node;
        this.client = client;
        this.server = server;
        this.silenced = silenced;
        this.droppedBytes = droppedBytes;
        this.onEnd = onEnd;
    }

    /** @return the index of the node this connection goes to */
    int node() {
        return node;
    }

    /** @param threads runs the two directions, one thread each, until the connection ends */
    void start(Executor threads) {
        threads.execute(() -> pump(client, server, true));
        threads.execute(() -> pump(server, client, false));
    }

    /** Ends both sides with a reset (SO_LINGER 0): the client reads "connection reset", not an orderly end. */
    void cut() {
        if (ended.compareAndSet(false, true)) {
            // Told first, so that a client that sees its reset no longer finds the connection counted as open.
            onEnd.accept(this);
            reset(client);
            reset(server);
        }
    }

    private void pump(Socket from, Socket to, boolean fromClient) {
        byte[] buffer = new byte[BUFFER_BYTES];
        boolean orderly = false;
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
                if (silenced.getAsBoolean()) {
                    droppedBytes.add(read);
                    continue;
                }
                out.write(buffer, 0, read);
                out.flush();
            }
            orderly = true;
        } catch (IOException failed) {
            // A reset, or the other direction's end closed this socket: handled below.
        }
        if (!fromClient && silenced.getAsBoolean()) {
            // A vanished machine sends neither FIN nor RST: the client keeps an open, silent connection until the
            // balancer cuts it (or the client gives up on it).
            closeQuietly(server);
            return;
        }
        if (orderly) {
            end();
        } else {
            cut();
        }
    }

    private void end() {
        if (ended.compareAndSet(false, true)) {
            onEnd.accept(this);
            closeQuietly(client);
            closeQuietly(server);
        }
    }

    /** @param socket closed with a reset (SO_LINGER 0) */
    static void reset(Socket socket) {
        try {
            socket.setSoLinger(true, 0);
        } catch (IOException alreadyClosed) {
            // Nothing left to reset.
        }
        closeQuietly(socket);
    }

    static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // Closing anyway.
        }
    }
}
