package org.bayeux.standalone;

import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.jetty.JettyServerThreadPoolMetrics;
import org.bayeux.metrics.BayeuxMetrics;
import org.bayeux.metrics.MetricsExport;
import org.bayeux.backplane.redis.RedisBackplane;
import org.bayeux.oort.Oort;
import org.bayeux.server.BayeuxEngine;
import org.bayeux.server.cluster.Cluster;
import org.bayeux.standalone.admin.AdminConsole;
import org.bayeux.transport.jetty.BayeuxHandler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * Wires the standalone server's metrics and admin port ({@link OperationsConfig}): kept apart from
 * {@link StandaloneServer} so that its constructor only calls in.
 */
final class Operations {
    private Operations() {
    }

    /**
     * @param jetty the server
     * @param config the admin keys
     * @param guard the main port's connection guard, which watches this port's connections too
     * @param http the HTTP configuration: the main port's, less what only a public port needs
     * @param idleTimeoutMillis Jetty's idle timeout for its connections
     * @return a plain-HTTP connector added to the server for {@code admin.port}, or null when it is -1
     */
    static ServerConnector adminConnector(Server jetty, OperationsConfig config, ConnectionGuard guard,
            HttpConfiguration http, long idleTimeoutMillis) {
        int port = config.get(OperationsConfig.ADMIN_PORT);
        if (port < 0) {
            return null;
        }
        ServerConnector admin = new ServerConnector(jetty, 1, 1, guard.connectionFactory(http));
        admin.setName("admin");
        admin.setHost(config.get(OperationsConfig.ADMIN_HOST));
        admin.setPort(port);
        admin.setIdleTimeout(idleTimeoutMillis);
        jetty.addConnector(admin);
        return admin;
    }

    /**
     * @return the admin page and its statistics channel, or null when {@code admin.token} is not set; made after the
     *         meters (it chains its latency recorder after theirs) and after the application's security policy
     */
    static AdminConsole admin(OperationsConfig config, BayeuxEngine engine, Oort oort, RedisBackplane backplane,
            Cluster other) {
        String token = config.adminToken();
        return token == null ? null : new AdminConsole(engine, token, AdminConsole.clusterView(oort, backplane, other));
    }

    /**
     * @return the meters of the engine, its endpoint, the server's guards, Jetty's thread pool and the JVM; null
     *         with {@code metrics.enabled=false}
     */
    static MetricsExport metrics(OperationsConfig config, BayeuxEngine engine, BayeuxHandler endpoint, Server jetty,
            StandaloneServer server) {
        if (!config.get(OperationsConfig.METRICS_ENABLED)) {
            return null;
        }
        BayeuxMetrics bayeux = new BayeuxMetrics(engine)
                .gauge("bayeux.websocket.connections", "WebSocket connections open on the Bayeux endpoint", null,
                        endpoint::getWebSocketCount)
                .gauge("bayeux.tcp.connections", "TCP connections open, as --max-connections counts them "
                        + "(-1 without a limit)", null, server::getNetworkConnectionCount)
                .counter("bayeux.connections.closed", "Connections closed by a limit or policy",
                        endpoint::getWebSocketHandshakeTimeouts, "reason", "ws_handshake_timeout")
                .counter("bayeux.connections.closed", "Connections closed by a limit or policy",
                        endpoint::getWebSocketWriteStallDrops, "reason", "ws_write_stall")
                .counter("bayeux.connections.closed", "Connections closed by a limit or policy",
                        endpoint::getWebSocketSlowPeerDrops, "reason", "ws_slow_peer")
                .counter("bayeux.connections.closed", "Connections closed by a limit or policy",
                        server::getHeaderTimeouts, "reason", "header_timeout")
                .counter("bayeux.connections.closed", "Connections closed by a limit or policy",
                        server::getSlowRequestBodies, "reason", "min_data_rate")
                .counter("bayeux.connection.limit.reached", "Times --max-connections, or the admin port's "
                        + "admin.maxConnections, was reached (accepting paused)",
                        server::getConnectionLimitReached);
        MetricsExport export = new MetricsExport(config.get(OperationsConfig.METRICS_JMX));
        export.bind(bayeux).bind(new JettyServerThreadPoolMetrics(jetty.getThreadPool(), Tags.empty()));
        return export;
    }
}
