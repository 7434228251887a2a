package org.bayeux.load;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TCP relay on 127.0.0.1 in front of one server, for the load tool's outage mode: {@link #cut()} resets every
 * relayed connection at once (both sides get a TCP reset, as when a network path dies) and refuses new ones (accepted
 * and reset at once) until {@link #restore()}. One selector thread, non-blocking, a bounded buffer per direction and
 * connection (a full buffer stops reading its source), a bounded number of connections.
 */
final class CuttingProxy implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CuttingProxy.class);
    private static final int BUFFER_BYTES = 16 * 1024;

    private final InetSocketAddress target;
    private final int maxConnections;
    private final Selector selector;
    private final ServerSocketChannel listener;
    private final Thread thread;
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    /** Touched by the selector thread only. */
    private final Set<Pair> pairs = new HashSet<>();
    private volatile boolean cut;
    private volatile boolean closed;
    private volatile long resets;

    /** One relayed connection: the client's side, the server's side, a buffer each way (in write mode). */
    private final class Pair {
        final SocketChannel client;
        final SocketChannel server;
        final ByteBuffer toServer = ByteBuffer.allocate(BUFFER_BYTES);
        final ByteBuffer toClient = ByteBuffer.allocate(BUFFER_BYTES);
        SelectionKey clientKey;
        SelectionKey serverKey;
        boolean connected;
        boolean clientEof;
        boolean serverEof;

        Pair(SocketChannel client, SocketChannel server) {
            this.client = client;
            this.server = server;
        }

        void interest() {
            if (!clientKey.isValid() || !serverKey.isValid()) {
                return;
            }
            clientKey.interestOps((connected && !clientEof && toServer.hasRemaining() ? SelectionKey.OP_READ : 0)
                    | (toClient.position() > 0 ? SelectionKey.OP_WRITE : 0));
            serverKey.interestOps(!connected ? SelectionKey.OP_CONNECT
                    : (!serverEof && toClient.hasRemaining() ? SelectionKey.OP_READ : 0)
                            | (toServer.position() > 0 ? SelectionKey.OP_WRITE : 0));
        }

        void close(boolean reset) {
            pairs.remove(this);
            abort(client, reset);
            abort(server, reset);
        }
    }

    /**
     * @param target the server's address
     * @param maxConnections the most connections relayed at once; more are refused
     * @throws IOException if no port can be bound
     */
    CuttingProxy(InetSocketAddress target, int maxConnections) throws IOException {
        this.target = target;
        this.maxConnections = maxConnections;
        selector = Selector.open();
        listener = ServerSocketChannel.open();
        listener.bind(new InetSocketAddress("127.0.0.1", 0), 1024);
        listener.configureBlocking(false);
        listener.register(selector, SelectionKey.OP_ACCEPT);
        thread = new Thread(this::loop, "outage-proxy-" + target.getPort());
        thread.setDaemon(true);
        thread.start();
    }

    /** @return the port the proxy listens on, on 127.0.0.1 */
    int port() {
        return listener.socket().getLocalPort();
    }

    /** @return how many connections were reset by {@link #cut()} or refused during a cut */
    long resets() {
        return resets;
    }

    /** Resets every relayed connection and refuses new ones until {@link #restore()}; returns once done. */
    void cut() throws InterruptedException {
        cut = true;
        CompletableFuture<Void> done = new CompletableFuture<>();
        run(() -> {
            for (Pair pair : new ArrayList<>(pairs)) {
                pair.close(true);
                resets++;
            }
            done.complete(null);
        });
        try {
            done.get(10, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException failure) {
            throw new IllegalStateException("the proxy did not cut its connections", failure);
        }
    }

    /** Accepts and relays connections again. */
    void restore() {
        cut = false;
    }

    private void run(Runnable task) {
        tasks.add(task);
        selector.wakeup();
    }

    private void loop() {
        try {
            while (!closed) {
                selector.select(1000);
                for (Runnable task; (task = tasks.poll()) != null; ) {
                    task.run();
                }
                Set<SelectionKey> ready = selector.selectedKeys();
                for (SelectionKey key : ready) {
                    if (!key.isValid()) {
                        continue;
                    }
                    if (key.channel() == listener) {
                        accept();
                    } else {
                        handle(key);
                    }
                }
                ready.clear();
            }
        } catch (IOException | ClosedSelectorException failure) {
            if (!closed) {
                LOG.warn("The outage proxy to {} stopped: {}", target, failure.toString());
            }
        } finally {
            for (Pair pair : new ArrayList<>(pairs)) {
                pair.close(false);
            }
        }
    }

    private void accept() throws IOException {
        for (int i = 0; i < 256; i++) {
            SocketChannel client = listener.accept();
            if (client == null) {
                return;
            }
            if (cut || pairs.size() >= maxConnections) {
                if (cut) {
                    resets++;
                } else {
                    LOG.warn("The outage proxy to {} refused a connection: {} open", target, pairs.size());
                }
                abort(client, true);
                continue;
            }
            SocketChannel server = null;
            try {
                client.configureBlocking(false);
                client.setOption(StandardSocketOptions.TCP_NODELAY, true);
                server = SocketChannel.open();
                server.configureBlocking(false);
                server.setOption(StandardSocketOptions.TCP_NODELAY, true);
                Pair pair = new Pair(client, server);
                pair.connected = server.connect(target);
                pair.clientKey = client.register(selector, 0, pair);
                pair.serverKey = server.register(selector, 0, pair);
                pairs.add(pair);
                pair.interest();
            } catch (IOException failure) {
                abort(client, true);
                abort(server, true);
            }
        }
    }

    private void handle(SelectionKey key) {
        Pair pair = (Pair) key.attachment();
        try {
            if (key == pair.serverKey && key.isConnectable()) {
                pair.connected = pair.server.finishConnect();
            }
            if (!pair.connected) {
                pair.interest();
                return;
            }
            boolean fromClient = key == pair.clientKey;
            if (key.isReadable()) {
                ByteBuffer into = fromClient ? pair.toServer : pair.toClient;
                int read = (fromClient ? pair.client : pair.server).read(into);
                if (read < 0) {
                    if (fromClient) {
                        pair.clientEof = true;
                    } else {
                        pair.serverEof = true;
                    }
                }
            }
            if (key.isValid() && key.isWritable()) {
                ByteBuffer from = fromClient ? pair.toClient : pair.toServer;
                from.flip();
                (fromClient ? pair.client : pair.server).write(from);
                from.compact();
            }
            // An end of stream is passed on once what came before it is written.
            if (pair.clientEof && pair.toServer.position() == 0) {
                pair.server.shutdownOutput();
            }
            if (pair.serverEof && pair.toClient.position() == 0) {
                pair.client.shutdownOutput();
            }
            if (pair.clientEof && pair.serverEof && pair.toServer.position() == 0
                    && pair.toClient.position() == 0) {
                pair.close(false);
                return;
            }
            pair.interest();
        } catch (IOException | RuntimeException failure) {
            pair.close(false);
        }
    }

    /** Closes a channel; with {@code reset}, with a TCP reset (linger 0) rather than an orderly close. */
    private static void abort(SocketChannel channel, boolean reset) {
        if (channel == null) {
            return;
        }
        try {
            if (reset && channel.isOpen()) {
                channel.setOption(StandardSocketOptions.SO_LINGER, 0);
            }
        } catch (IOException | RuntimeException ignored) {
            // Closed below anyway.
        }
        try {
            channel.close();
        } catch (IOException ignored) {
            // Nothing more to do.
        }
    }

    @Override
    public void close() {
        closed = true;
        selector.wakeup();
        try {
            thread.join(5000);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
        try {
            listener.close();
            selector.close();
        } catch (IOException ignored) {
            // Nothing more to do.
        }
    }
}
