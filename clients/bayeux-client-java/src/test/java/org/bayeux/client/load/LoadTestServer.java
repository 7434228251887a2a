package org.bayeux.client.load;

import java.io.InputStream;
import java.time.Duration;

import org.bayeux.server.BayeuxServerImpl;
import org.bayeux.server.config.BayeuxServerConfig;
import org.bayeux.transport.http.TransportConfig;
import org.bayeux.transport.jetty.BayeuxEndpoint;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * Our server in a process of its own, for the many-clients test: 10,000 clients and their 10,000 server-side
 * sockets would need more file descriptors than one process may have. Listens on 127.0.0.1, port chosen by the
 * system, prints {@code PORT <n>} once ready, and stops when its standard input closes (so it cannot outlive the
 * test that started it).
 */
public final class LoadTestServer {
    /** The line the server prints once it listens, followed by the port. */
    public static final String READY = "PORT ";

    private LoadTestServer() {
    }

    /**
     * @param args none
     * @throws Exception if the server cannot start
     */
    public static void main(String[] args) throws Exception {
        BayeuxServerImpl engine = new BayeuxServerImpl(BayeuxServerConfig.builder()
                .timeout(Duration.ofSeconds(30)).maxInterval(Duration.ofSeconds(30)).build());
        Server jetty = new Server();
        ServerConnector connector = new ServerConnector(jetty);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        // Thousands of clients connect at once: the system's default backlog would drop their SYNs.
        connector.setAcceptQueueSize(4096);
        connector.setIdleTimeout(120_000);
        jetty.addConnector(connector);
        // Every client comes from this host: the per-address caps are for the internet, not for this test.
        BayeuxEndpoint.mount(jetty, "/bayeux", engine, TransportConfig.builder()
                .set(TransportConfig.MAX_SESSIONS_PER_ADDRESS, -1)
                .set(TransportConfig.MAX_HANDSHAKES_PER_ADDRESS_PER_SECOND, -1).build());
        jetty.start();
        System.out.println(READY + connector.getLocalPort());
        System.out.flush();
        InputStream in = System.in;
        byte[] ignored = new byte[256];
        while (in.read(ignored) >= 0) {
            // Nothing to read: the test closes this stream to stop the server.
        }
        jetty.stop();
        System.exit(0);
    }
}
