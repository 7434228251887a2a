package org.bayeux.backplane.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * A TCP forwarder on 127.0.0.1 in front of a Redis master, that everyone (sentinels, replicas, the backplane) reaches
 * the master through, and that can hold back what the master sends on replication links only ({@link #hold()}: a
 * connection whose client sent {@code PSYNC} or {@code SYNC}), the way a replica lags behind. A replica merely paused
 * ({@code SIGSTOP}) does not lag on loopback: the kernel takes the replication stream into its socket buffer, and the
 * replica applies it when resumed, even after its master is gone. What is held is dropped when the proxy closes.
 */
final class ReplicationHoldProxy implements AutoCloseable {
    private static final int MAX_CONNECTIONS = 64;
    private final ServerSocket listener;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final Thread acceptor;
    private final int target;
    private volatile boolean held;
    private volatile boolean closed;

    ReplicationHoldProxy(int target) throws IOException {
        this.target = target;
        listener = new ServerSocket();
        listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        acceptor = new Thread(this::accept, "replication-hold-proxy-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return listener.getLocalPort();
    }

    /** From now on, nothing more of the replication streams reaches the replicas. */
    void hold() {
        held = true;
    }

    private void accept() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException stopped) {
                return;
            }
            if (sockets.size() >= 2 * MAX_CONNECTIONS) {
                quietly(client);
                continue;
            }
            try {
                Socket server = new Socket();
                server.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), target), 2000);
                sockets.add(client);
                sockets.add(server);
                AtomicBoolean replication = new AtomicBoolean();
                pump(client, server, replication, true);
                pump(server, client, replication, false);
            } catch (IOException refused) {
                quietly(client);
            }
        }
    }

    private void pump(Socket from, Socket to, AtomicBoolean replication, boolean fromClient) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                    if (fromClient && !replication.get()) {
                        String text = new String(buffer, 0, n, StandardCharsets.US_ASCII).toUpperCase();
                        if (text.contains("PSYNC") || text.contains("SYNC\r\n")) {
                            replication.set(true);
                        }
                    }
                    // Bounded by the proxy's life: held bytes wait here until it closes, then are dropped.
                    while (!fromClient && held && replication.get() && !closed && !from.isClosed()) {
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
                    }
                    if (closed || from.isClosed()) {
                        break;
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException ended) {
                // Either side closed.
            } finally {
                quietly(from);
                quietly(to);
                sockets.remove(from);
                sockets.remove(to);
            }
        }, "replication-hold-proxy-pump");
        thread.setDaemon(true);
        thread.start();
    }

    private static void quietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // Closing anyway.
        }
    }

    /** Closes every connection, dropping what is held, and stops accepting. */
    @Override
    public void close() throws IOException {
        closed = true;
        listener.close();
        for (Socket socket : sockets) {
            quietly(socket);
        }
        sockets.clear();
        try {
            acceptor.join(2000);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
