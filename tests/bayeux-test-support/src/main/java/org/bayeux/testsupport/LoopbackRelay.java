package org.bayeux.testsupport;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * What the test proxies share: a listener on 127.0.0.1 that opens a connection to the server for each client it
 * accepts and runs each direction on a thread of its own; the proxies differ only in how they pass bytes on. Every
 * connection is remembered so that {@link #close()} (or a proxy's own drop) ends them all.
 */
abstract class LoopbackRelay implements AutoCloseable {
    private final InetAddress loopback;
    private volatile int targetPort;
    private final ServerSocket listener;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final ExecutorService threads;

    /**
     * @param targetPort the server's port on 127.0.0.1
     * @param threadName the name of the relay's threads
     * @throws IOException if no port can be bound
     */
    LoopbackRelay(int targetPort, String threadName) throws IOException {
        this.loopback = InetAddress.getByName("127.0.0.1");
        this.targetPort = targetPort;
        this.listener = new ServerSocket(0, 50, loopback);
        this.threads = Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, threadName);
            thread.setDaemon(true);
            return thread;
        });
    }

    /** @param port where connections accepted from now on go, on 127.0.0.1; open ones stay where they are */
    final void retarget(int port) {
        this.targetPort = port;
    }

    /** Starts accepting; called by a subclass once its own fields are set. */
    final void start() {
        threads.execute(this::accept);
    }

    /** @return the port clients connect to, on 127.0.0.1 */
    public int port() {
        return listener.getLocalPort();
    }

    /**
     * Passes the client's bytes on to the server until either side ends; runs on a thread of its own.
     *
     * @param client the client's connection
     * @param server the connection to the server
     */
    abstract void clientToServer(Socket client, Socket server);

    /**
     * Passes the server's bytes on to the client until either side ends; runs on a thread of its own.
     *
     * @param server the connection to the server
     * @param client the client's connection
     */
    abstract void serverToClient(Socket server, Socket client);

    private void accept() {
        while (!listener.isClosed()) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException closed) {
                return;
            }
            try {
                Socket server = new Socket(loopback, targetPort);
                sockets.add(client);
                sockets.add(server);
                threads.execute(() -> clientToServer(client, server));
                threads.execute(() -> serverToClient(server, client));
            } catch (IOException refused) {
                closeQuietly(client);
            }
        }
    }

    /** Closes every connection open now, on both sides. */
    final void closeConnections() {
        for (Socket socket : Set.copyOf(sockets)) {
            closeQuietly(socket);
        }
    }

    final void closeQuietly(Socket socket) {
        sockets.remove(socket);
        try {
            socket.close();
        } catch (IOException ignored) {
            // Closing anyway.
        }
    }

    @Override
    public void close() {
        try {
            listener.close();
        } catch (IOException ignored) {
            // Closing anyway.
        }
        closeConnections();
        threads.shutdownNow();
    }
}
