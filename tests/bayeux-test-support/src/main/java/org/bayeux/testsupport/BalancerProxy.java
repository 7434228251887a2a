package org.bayeux.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;

/**
 * Stands in for a TCP load balancer in front of several server nodes: every connection it accepts goes to the node
 * it routes to at that moment, and stays there until either side closes it. {@link #route(int)} moves new
 * connections to another node, as a balancer does once a node's readiness check fails; connections already open
 * are left alone, as a balancer leaves them, until the node closes them.
 */
public final class BalancerProxy extends LoopbackRelay {
    /**
     * @param targetPort the first node's port on 127.0.0.1
     * @throws IOException if no port can be bound
     */
    public BalancerProxy(int targetPort) throws IOException {
        super(targetPort, "balancer-proxy");
        start();
    }

    /** @param port the node new connections go to from now on, on 127.0.0.1 */
    public void route(int port) {
        retarget(port);
    }

    @Override
    void clientToServer(Socket client, Socket server) {
        relay(client, server);
    }

    @Override
    void serverToClient(Socket server, Socket client) {
        relay(server, client);
    }

    private void relay(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
                out.write(buffer, 0, read);
                out.flush();
            }
        } catch (IOException ended) {
            // Either side closed: close both below.
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }
}
