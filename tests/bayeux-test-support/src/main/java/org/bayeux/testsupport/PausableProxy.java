package org.bayeux.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.concurrent.TimeUnit;

/**
 * A TCP relay on the loopback interface between a client and the server that can be paused: while paused, bytes
 * are read but not passed on in either direction, as on a network that stopped delivering, and the connections can
 * be dropped. A client behind a paused proxy sends no connect the server can see, so the server expires its session;
 * after {@link #resume()} the client learns it and handshakes again. Works for any transport over TCP.
 */
public final class PausableProxy extends LoopbackRelay {
    /** The longest a relay thread waits at a closed gate before giving up the connection. */
    private static final long MAX_PAUSE_MILLIS = 60_000;

    private final Object gate = new Object();
    private boolean paused;
    /** Only the server's bytes to the client are held: requests arrive, answers do not (a half-open link). */
    private boolean pausedToClient;

    /**
     * @param targetPort the server's port on 127.0.0.1
     * @throws IOException if no port can be bound
     */
    public PausableProxy(int targetPort) throws IOException {
        super(targetPort, "pausable-proxy");
        start();
    }

    /** Stops passing bytes on, in both directions, on every connection, present and future. */
    public void pause() {
        synchronized (gate) {
            paused = true;
        }
    }

    /**
     * Stops passing on the server's bytes to the client, on every connection, present and future, while the
     * client's bytes still reach the server: a half-open link. {@link #resume()} ends it.
     */
    public void pauseServerToClient() {
        synchronized (gate) {
            pausedToClient = true;
        }
    }

    /** Passes on what was held back, and everything after it. */
    public void resume() {
        synchronized (gate) {
            paused = false;
            pausedToClient = false;
            gate.notifyAll();
        }
    }

    /**
     * Closes every connection open now, on both sides: the server sees its client's connections end, the client
     * sees them reset; connections the client opens next are held by the pause like any other.
     */
    public void dropConnections() {
        closeConnections();
    }

    @Override
    void clientToServer(Socket client, Socket server) {
        relay(client, server, false);
    }

    @Override
    void serverToClient(Socket server, Socket client) {
        relay(server, client, true);
    }

    private void relay(Socket from, Socket to, boolean toClient) {
        byte[] buffer = new byte[16 * 1024];
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            int read;
            while ((read = in.read(buffer)) >= 0) {
                awaitOpenGate(toClient);
                out.write(buffer, 0, read);
                out.flush();
            }
        } catch (IOException | InterruptedException ended) {
            // Either side closed, or the proxy is closing: end the connection as a whole.
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private void awaitOpenGate(boolean toClient) throws IOException, InterruptedException {
        synchronized (gate) {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(MAX_PAUSE_MILLIS);
            while (paused || (toClient && pausedToClient)) {
                long remaining = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (remaining <= 0) {
                    throw new IOException("Paused for longer than " + MAX_PAUSE_MILLIS + " ms");
                }
                gate.wait(remaining);
            }
        }
    }

    @Override
    public void close() {
        resume();
        super.close();
    }
}
