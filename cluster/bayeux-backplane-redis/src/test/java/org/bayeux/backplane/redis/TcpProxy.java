package org.bayeux.backplane.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP forwarder on 127.0.0.1 that a client connects to instead of a server: it can cut every connection and refuse
 * new ones for a while ({@link #cut()}), and send new connections to another port ({@link #resume(int)}), the way a
 * load balancer moves a client to another node. At most {@value #MAX_CONNECTIONS} connections at once.
 */
final class TcpProxy implements AutoCloseable {
    private static final int MAX_CONNECTIONS = 32;
    private final ServerSocket listener;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final Thread acceptor;
    private volatile int target;
    private volatile boolean refusing;
    private volatile boolean closed;

    TcpProxy(int target) throws IOException {
        this.target = target;
        listener = new ServerSocket();
        listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        acceptor = new Thread(this::accept, "tcp-proxy-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return listener.getLocalPort();
    }

    /** Closes every connection, and closes new ones at once, until {@link #resume(int)}. */
    void cut() {
        refusing = true;
        closeAll();
    }

    /** @param port where new connections go from now on */
    void resume(int port) {
        target = port;
        refusing = false;
    }

    private void accept() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException stopped) {
                return;
            }
            if (refusing || sockets.size() >= 2 * MAX_CONNECTIONS) {
                quietly(client);
                continue;
            }
            try {
                Socket server = new Socket();
                server.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), target), 2000);
                sockets.add(client);
                sockets.add(server);
                pump(client, server);
                pump(server, client);
            } catch (IOException refused) {
                quietly(client);
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException ended) {
                // Either side closed or was cut.
            } finally {
                quietly(from);
                quietly(to);
                sockets.remove(from);
                sockets.remove(to);
            }
        }, "tcp-proxy-pump");
        thread.setDaemon(true);
        thread.start();
    }

    private void closeAll() {
        for (Socket socket : sockets) {
            quietly(socket);
        }
        sockets.clear();
    }

    private static void quietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // Closing anyway.
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        listener.close();
        closeAll();
        try {
            acceptor.join(2000);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
