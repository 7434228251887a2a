package org.bayeux.standalone;

import java.time.Duration;

import org.bayeux.api.server.ServerExtension;
import org.bayeux.backplane.redis.RedisBackplane;
import org.bayeux.backplane.redis.RedisBackplaneConfig;
import org.bayeux.oort.Oort;
import org.bayeux.server.BayeuxEngine;
import org.bayeux.server.ext.AcknowledgedMessagesExtension;
import org.bayeux.server.ext.TimesyncExtension;
import org.bayeux.server.ext.TimestampExtension;
import org.bayeux.transport.http.TransportConfig;
import org.bayeux.metrics.MetricsExport;
import org.bayeux.transport.jetty.BayeuxEndpoint;
import org.bayeux.transport.jetty.BayeuxHandler;
import org.eclipse.jetty.server.ForwardedRequestCustomizer;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.server.handler.ContextHandler;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The standalone server: a Jetty server with the Bayeux endpoint at {@code /bayeux} and, optionally, a folder of
 * static files at {@code /}, and the applications of {@code --classpath}.
 */
public final class StandaloneServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StandaloneServer.class);

    private final Server jetty;
    private final ServerConnector connector;
    private final BayeuxEngine engine;
    private final RedisBackplane backplane;
    private final Oort oort;
    /** The applications of --classpath. */
    private final Applications applications;
    private final ConnectionGuard guard;
    private final NetworkConnectionLimit connectionLimit;
    /** The admin port's own limit, or null without an admin port. */
    private final NetworkConnectionLimit adminConnectionLimit;
    private final java.util.concurrent.atomic.LongAdder connectionLimitReached =
            new java.util.concurrent.atomic.LongAdder();
    private final String baseUrl;
    private final Readiness readiness;
    /** The meters, or null with metrics.enabled=false. */
    private final MetricsExport metrics;
    /** The admin page, or null without admin.token. */
    private final org.bayeux.standalone.admin.AdminConsole admin;
    /** The admin port's connector, or null when /metrics is on the main port. */
    private final ServerConnector adminConnector;
    private final ShutdownSettings shutdown;
    /** The drain and stop, run once by the first {@link #stop()} or {@link #close()}; later calls wait for it. */
    private final GracefulStop stopping;

    /**
     * Builds and starts a server.
     *
     * @param options the parsed command line
     * @throws Exception if Jetty cannot start (for example, the port is taken)
     */
    public StandaloneServer(StandaloneOptions options) throws Exception {
        shutdown = options.shutdown;
        String transports = String.join(",", transportNames(options.transportConfig));
        String cluster = describeCluster(options);
        LOG.info("Starting: port {} on {}, transports {}, cluster {}, drainTimeout {}", options.port, options.host,
                transports, cluster, GracefulStop.text(shutdown.drainTimeout()));
        engine = BayeuxEngine.create(options.engineConfig);
        java.util.Set<String> extensions = new java.util.LinkedHashSet<>(options.extensions);
        if (options.backplaneConfig != null && options.backplaneConfig.sessionStore()) {
            // Failover is on: clients that register the ack extension get exact continuation on another node
            // (docs/cluster.md, "Failover"), which needs the server's side of it; clients that do not are unaffected.
            extensions.add("ack");
        }
        for (String extension : extensions) {
            engine.addExtension(newExtension(extension));
        }
        // Redis need not be up yet: the node starts, publishes fail with 503::backplane_unavailable until it is.
        backplane = options.backplaneConfig == null ? null : new RedisBackplane(options.backplaneConfig);
        if (backplane != null) {
            engine.setCluster(backplane);
            if (backplane.sessionStore() != null) {
                // --set sessionStore=true: sessions' state written to Redis as well (docs/cluster.md).
                engine.setSessionStore(backplane.sessionStore());
            }
        } else if (options.testCluster != null) {
            engine.setCluster(options.testCluster);
        }
        jetty = new Server();
        HttpConfiguration http = plainHttp();
        if (options.forwarded) {
            // Scheme, host and client address as the proxy saw them: the WebSocket origin check compares the page's
            // https origin with the request's scheme, and the browser cookie is Secure on https.
            http.addCustomizer(new ForwardedRequestCustomizer());
        }
        guard = new ConnectionGuard(options.headerTimeout, options.minDataRate);
        if (options.tls != null) {
            http.addCustomizer(new SecureRequestCustomizer());
            SslContextFactory.Server tls = new SslContextFactory.Server();
            tls.setKeyStore(options.tls.keyStore);
            tls.setKeyStorePassword(new String(options.tls.password));
            tls.setKeyManagerPassword(new String(options.tls.password));
            connector = new ServerConnector(jetty, new SslConnectionFactory(tls, "http/1.1"),
                    guard.connectionFactory(http));
        } else {
            connector = new ServerConnector(jetty, guard.connectionFactory(http));
        }
        connector.setHost(options.host);
        connector.setPort(options.port);
        // A held long poll is silent for up to `timeout`; the connection must outlive it.
        long idleTimeout = Math.max(60_000, options.engineConfig.timeout().multipliedBy(2).toMillis());
        connector.setIdleTimeout(idleTimeout);
        jetty.addConnector(connector);
        // The admin port: plain HTTP, no proxy headers, but the same guard, and a connection limit of its own.
        adminConnector = Operations.adminConnector(jetty, options.operations, guard, plainHttp(), idleTimeout);
        if (options.oortSettings != null) {
            // Bound first, so that port 0 in oort.url can be the port this node listens on.
            connector.open();
            oort = options.oortSettings.apply(Oort.builder(engine), advertisedUrl(options.oortSettings.url(),
                    connector.getLocalPort())).build();
        } else {
            oort = null;
        }
        // Application code (docs/operations.md): the jars of --classpath (clustered, an application may ask for the
        // Oort node or the backplane among the components).
        try {
            applications = Applications.start(options.classPath, engine,
                    java.util.Arrays.asList(new Object[] {oort, backplane}).stream()
                            .filter(java.util.Objects::nonNull).toList());
        } catch (RuntimeException failed) {
            if (oort != null) {
                oort.stop();
            }
            connector.close();
            throw failed;
        }
        if (options.maxConnections > 0) {
            connectionLimit = new NetworkConnectionLimit(options.maxConnections, connector) {
                @Override
                protected void limit() {
                    connectionLimitReached.increment();
                    LOG.debug("{} connections open: no more accepted until one closes", options.maxConnections);
                    super.limit();
                }
            };
            jetty.addBean(connectionLimit);
        } else {
            connectionLimit = null;
        }
        if (adminConnector != null) {
            int adminMax = options.operations.get(OperationsConfig.ADMIN_MAX_CONNECTIONS);
            adminConnectionLimit = new NetworkConnectionLimit(adminMax, adminConnector) {
                @Override
                protected void limit() {
                    connectionLimitReached.increment();
                    LOG.debug("{} connections open on the admin port: no more accepted until one closes", adminMax);
                    super.limit();
                }
            };
            jetty.addBean(adminConnectionLimit);
        } else {
            adminConnectionLimit = null;
        }
        // SIGTERM is main()'s shutdown hook, which drains first: Jetty's own hook would stop at once, beside it.
        jetty.setStopAtShutdown(false);
        // Applications stop first, however Jetty is stopped (close(), or stop() after the drain), while the server
        // and the backplane still run: a clustered application can still tell the other nodes it leaves.
        jetty.addEventListener(new org.eclipse.jetty.util.component.LifeCycle.Listener() {
            @Override
            public void lifeCycleStopping(org.eclipse.jetty.util.component.LifeCycle event) {
                applications.close();
            }
        });
        Handler statics = StaticFiles.handler(options.staticDir, jetty);
        if (statics != null) {
            jetty.setHandler(new Handler.Sequence(new ContextHandler(statics, "/")));
        }
        ContextHandler endpoint = BayeuxEndpoint.mount(jetty, "/bayeux", engine, options.transportConfig);
        metrics = Operations.metrics(options.operations, engine, (BayeuxHandler) endpoint.getHandler(), jetty, this);
        admin = Operations.admin(options.operations, engine, oort, backplane, options.testCluster);
        // The health checks for load balancers: /health/ready (and /ready) 503 while starting, draining, shutting
        // down, or while the backplane cannot store publishes (docs/operations.md, docs/cluster.md).
        readiness = new Readiness(new MetricsHandler(admin == null ? jetty.getHandler()
                : admin.mount(jetty.getHandler()), metrics, adminConnector),
                backplane != null ? backplane : oort != null ? oort : options.testCluster,
                backplane != null ? RedisBackplane.UNAVAILABLE : "cluster_unavailable");
        guard.setHandler(readiness);
        jetty.setHandler(guard);
        stopping = new GracefulStop(engine, readiness, shutdown.drainRetryInterval(), this::stopServer);
        try {
            jetty.start();
        } catch (Exception failed) {
            applications.close(); // a taken port, say: the applications started above stop again
            closeOperations();
            throw failed;
        }
        baseUrl = (options.tls != null ? "https" : "http") + "://" + browsableHost(options.host) + ":" + getPort();
        LOG.info("Listening on {}:{} ({}/bayeux), transports {}", options.host, getPort(), baseUrl, transports);
        if (options.beforeReady != null) {
            options.beforeReady.accept(getPort());
        }
        readiness.started();
        LOG.info("Ready: GET {}/health/ready{}", baseUrl, backplane != null
                ? " answers 200 while the backplane can store publishes (" + cluster + ")" : " answers 200");
    }

    /** @return an HTTP configuration with nothing a public port does not need */
    private static HttpConfiguration plainHttp() {
        HttpConfiguration http = new HttpConfiguration();
        // Jetty's per-connection cache of request header lines costs about 100 KB of heap per connection, which
        // long-polling clients keep open for good, and its lookups were the hottest code in long-polling profiles.
        http.setHeaderCacheSize(0);
        // Nothing that tells an attacker which server and version to look up.
        http.setSendServerVersion(false);
        http.setSendXPoweredBy(false);
        return http;
    }

    /** Closes the meters (their JMX beans would outlive the server) and the admin page. */
    private void closeOperations() {
        if (admin != null) {
            admin.close();
        }
        if (metrics != null) {
            metrics.close();
        }
    }

    /**
     * Makes {@code /health/ready} (and {@code /ready}) answer 503 {@code shutting_down} from now on, so that load
     * balancers send new clients elsewhere. {@link #stop()} says {@code draining} first, and {@link #close()} this.
     */
    public void shuttingDown() {
        readiness.shuttingDown();
    }

    /** @return the admin port (metrics and health checks), or -1 when they are served on the main port */
    public int getAdminPort() {
        return adminConnector == null ? -1 : adminConnector.getLocalPort();
    }

    /** @return the meters served at {@code /metrics}, or null with {@code metrics.enabled=false} */
    public MetricsExport getMetrics() {
        return metrics;
    }

    private static java.util.List<String> transportNames(TransportConfig config) {
        java.util.List<String> names = new java.util.ArrayList<>();
        if (config.get(TransportConfig.WEBSOCKET)) {
            names.add("websocket");
        }
        names.add("long-polling");
        if (config.get(TransportConfig.CALLBACK_POLLING)) {
            names.add("callback-polling");
        }
        return names;
    }

    /** The cluster in words for the log, without any password a Redis URI may hold. */
    private static String describeCluster(StandaloneOptions options) {
        if (options.backplaneConfig != null) {
            // Masked up to the last @ (a pattern stopping at the first @ or / showed the rest of such a password).
            return "redis backplane " + RedisBackplaneConfig.maskedUri(options.backplaneConfig.uri());
        }
        if (options.oortSettings != null) {
            return "oort " + options.oortSettings.url();
        }
        return "none (single node)";
    }

    /** Port 0 in {@code oort.url} (or none, for http's default) stays as given unless it is 0: the port bound. */
    static String advertisedUrl(String url, int boundPort) {
        java.net.URI uri = java.net.URI.create(url);
        if (uri.getPort() != 0) {
            return url;
        }
        try {
            return new java.net.URI(uri.getScheme(), uri.getUserInfo(), uri.getHost(), boundPort, uri.getPath(),
                    uri.getQuery(), uri.getFragment()).toString();
        } catch (java.net.URISyntaxException impossible) {
            throw new IllegalArgumentException("oort.url=" + url, impossible);
        }
    }

    /** A wildcard address is no address a browser can open: the machine itself is reached as localhost. */
    static String browsableHost(String host) {
        String bare = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        if (bare.equals("0.0.0.0") || bare.equals("::") || bare.equals("0:0:0:0:0:0:0:0")) {
            return "localhost";
        }
        return bare.contains(":") ? "[" + bare + "]" : bare;
    }

    static ServerExtension newExtension(String name) {
        switch (name) {
            case "ack":
                return new AcknowledgedMessagesExtension();
            case "timesync":
                return new TimesyncExtension();
            case "timestamp":
                return new TimestampExtension();
            default:
                throw new IllegalArgumentException("--extensions " + name + ": unknown; known: ack, timesync, timestamp");
        }
    }

    /** @return the port the server listens on */
    public int getPort() {
        return connector.getLocalPort();
    }

    /** @return the server's address for browsers, without a trailing slash: {@code http://localhost:8080} */
    public String getBaseUrl() {
        return baseUrl;
    }

    /** @return how many connections were closed for not completing a request's headers within the timeout */
    public long getHeaderTimeouts() {
        return guard.headerTimeouts();
    }

    /** @return how many connections were closed for sending a request body below the minimum data rate */
    public long getSlowRequestBodies() {
        return guard.slowBodies();
    }

    /**
     * @return how many times {@code --max-connections}, or the admin port's {@code admin.maxConnections}, was
     *         reached (and accepting paused)
     */
    public long getConnectionLimitReached() {
        return connectionLimitReached.sum();
    }

    /** @return the TCP connections open now, as the connection limit counts them; -1 without a limit */
    public int getNetworkConnectionCount() {
        return connectionLimit == null ? -1 : connectionLimit.getNetworkConnectionCount();
    }

    /** @return the TCP connections open now on the admin port; -1 without an admin port */
    public int getAdminConnectionCount() {
        return adminConnectionLimit == null ? -1 : adminConnectionLimit.getNetworkConnectionCount();
    }

    /** @return the applications started ({@code --classpath}), in the order they started */
    public java.util.List<org.bayeux.server.app.BayeuxApplication> getApplications() {
        return applications.started();
    }

    /** @return the Redis backplane this node joined with {@code --backplane}, or null for a single node */
    public RedisBackplane getBackplane() {
        return backplane;
    }

    /** @return the Oort node this server joined with {@code --oort-url}, or null */
    public Oort getOort() {
        return oort;
    }

    /** @return the engine */
    public BayeuxEngine getEngine() {
        return engine;
    }

    /** Waits until the server stops. */
    public void join() throws InterruptedException {
        jetty.join();
    }

    /** @return true once {@link #stop()} or {@link #close()} has begun: {@code GET /ready} answers 503 draining */
    public boolean isDraining() {
        return stopping.hasStarted();
    }

    /**
     * Stops gracefully, as SIGTERM does: {@code GET /ready} answers 503 (so that load balancers send no more
     * clients), handshakes are refused with advice to retry, every connected client gets what is queued for it and
     * then advice to handshake again (elsewhere, through the balancer), and once no client is left, or at
     * {@code drainTimeout}, the server stops, ending whatever sessions are left. Returns when stopped; a second call,
     * or a {@link #close()}, waits for the first.
     */
    public void stop() {
        stopping.run(shutdown.drainTimeout());
    }

    /**
     * Stops without waiting for clients to leave: as {@link #stop()} with a {@code drainTimeout} of 0 (held connects
     * are still answered with handshake advice, and sessions ended). For code that owns the server's whole life, such
     * as tests; a server that clients use is stopped with {@link #stop()}.
     */
    @Override
    public void close() {
        stopping.run(Duration.ZERO);
    }

    private void stopServer() {
        readiness.shuttingDown();
        try {
            // Applications stop first (a listener on Jetty's stopping), while the server and the backplane run.
            jetty.stop();
        } catch (Exception failure) {
            throw new IllegalStateException("Could not stop the server", failure);
        } finally {
            closeOperations();
        }
    }

    /**
     * Runs the server until the process ends.
     *
     * @param args the command line; see {@code --help}
     */
    public static void main(String[] args) throws Exception {
        StandaloneOptions options;
        try {
            options = StandaloneOptions.parse(args);
        } catch (IllegalArgumentException bad) {
            System.err.println("bayeux: " + bad.getMessage());
            System.err.print(ServerCommandLine.usage());
            System.exit(2);
            return;
        }
        if (options.help) {
            System.out.print(ServerCommandLine.usage());
            return;
        }
        StandaloneServer server;
        try {
            server = new StandaloneServer(options);
        } catch (Applications.ApplicationException failed) {
            if (failed.getCause() != null) {
                LOG.error("An application could not be loaded or started: {}", failed.getMessage(), failed.getCause());
            }
            System.err.println("bayeux: " + failed.getMessage());
            System.exit(1);
            return;
        }
        // SIGTERM (and Ctrl-C) drain the server before the JVM exits: drainTimeout bounds it.
        Runtime.getRuntime().addShutdownHook(new Thread(server::stop, "bayeux-drain"));
        // One plain line, whatever the logging set-up, for people and for programs that start the server on port 0.
        String base = server.getBaseUrl();
        System.out.println("Listening on " + base + "/ (Bayeux endpoint " + base + "/bayeux)");
        System.out.flush();
        server.join();
    }
}
