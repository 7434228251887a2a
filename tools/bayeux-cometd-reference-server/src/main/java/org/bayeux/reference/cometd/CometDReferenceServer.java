package org.bayeux.reference.cometd;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;

import org.cometd.bayeux.server.BayeuxServer;
import org.cometd.server.BayeuxServerImpl;
import org.cometd.server.http.JSONHttpTransport;
import org.cometd.server.http.JSONPHttpTransport;
import org.cometd.server.http.jakarta.CometDServlet;
import org.cometd.server.websocket.jetty.JettyWebSocketTransport;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Context;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.websocket.server.WebSocketUpgradeHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real, unmodified CometD 8 server on embedded Jetty 12, with CometD's own WebSocket ({@code websocket}),
 * long-polling ({@code long-polling}) and callback-polling ({@code callback-polling}) transports and its default
 * (production) settings. Our clients are tested against it, and our load tool measures it beside our server.
 *
 * <p>The endpoint is at {@value #PATH} (every sub-path too, as CometD maps it). One service is installed:
 * {@value EchoService#CHANNEL}, which answers a remote call with the request's own data (see {@link EchoService}).
 *
 * <p>Run it as a process with {@link #main(String[])}; once it listens it prints one line,
 * {@code COMETD-REFERENCE-SERVER-READY http://HOST:PORT/cometd}, on standard output.
 */
public final class CometDReferenceServer implements AutoCloseable {
    /** The endpoint's path. */
    public static final String PATH = "/cometd";
    /** The line {@link #main(String[])} prints, followed by a space and the endpoint URL, once it listens. */
    public static final String READY = "COMETD-REFERENCE-SERVER-READY";

    private static final Logger LOG = LoggerFactory.getLogger(CometDReferenceServer.class);

    private final Server jetty;
    private final ServerConnector connector;
    private final String host;
    private final BayeuxServer bayeux;

    private CometDReferenceServer(Server jetty, ServerConnector connector, String host, BayeuxServer bayeux) {
        this.jetty = jetty;
        this.connector = connector;
        this.host = host;
        this.bayeux = bayeux;
    }

    /**
     * Starts a server on 127.0.0.1, on a free port, with CometD's default settings.
     *
     * @return the running server
     * @throws Exception if Jetty or CometD cannot start
     */
    public static CometDReferenceServer start() throws Exception {
        return start("127.0.0.1", 0, Map.of());
    }

    /**
     * Starts a server.
     *
     * @param host the address to listen on
     * @param port the port, 0 for a free one
     * @param options CometD server options (for example {@code timeout}, {@code maxInterval}, {@code ws.idleTimeout}),
     *     applied over CometD's defaults exactly as {@code init-param}s of its servlet would be
     * @return the running server
     * @throws Exception if Jetty or CometD cannot start (for example, the port is taken)
     */
    public static CometDReferenceServer start(String host, int port, Map<String, String> options) throws Exception {
        QueuedThreadPool threads = new QueuedThreadPool();
        threads.setName("cometd-reference");
        Server jetty = new Server(threads);
        ServerConnector connector = new ServerConnector(jetty);
        connector.setHost(host);
        connector.setPort(port);
        jetty.addConnector(connector);

        ServletContextHandler context = new ServletContextHandler("/");
        jetty.setHandler(context);
        // CometD's Jetty WebSocket transport registers its mapping in the context's core WebSocket container.
        context.insertHandler(WebSocketUpgradeHandler.from(jetty, context));

        ServletHolder cometd = new ServletHolder("cometd", ContextAwareCometDServlet.class);
        cometd.setInitOrder(1);
        cometd.setAsyncSupported(true);
        cometd.setInitParameter(BayeuxServerImpl.TRANSPORTS_OPTION, String.join(",",
                JettyWebSocketTransport.class.getName(),
                JSONHttpTransport.class.getName(),
                JSONPHttpTransport.class.getName()));
        cometd.setInitParameter("cometdURLMapping", PATH + "/*");
        options.forEach(cometd::setInitParameter);
        context.addServlet(cometd, PATH + "/*");

        jetty.start();
        BayeuxServer bayeux = (BayeuxServer) context.getServletContext().getAttribute(BayeuxServer.ATTRIBUTE);
        new EchoService(bayeux);
        CometDReferenceServer server = new CometDReferenceServer(jetty, connector, host, bayeux);
        LOG.info("CometD reference server listening at {}", server.endpoint());
        return server;
    }

    /** @return the endpoint, for example {@code http://127.0.0.1:41234/cometd} */
    public URI endpoint() {
        return URI.create("http://" + host + ":" + connector.getLocalPort() + PATH);
    }

    /** @return the port it listens on */
    public int port() {
        return connector.getLocalPort();
    }

    /** @return CometD's server, for a test that needs to act on the server side */
    public BayeuxServer bayeux() {
        return bayeux;
    }

    /** Stops the server and its threads. */
    @Override
    public void close() throws Exception {
        jetty.stop();
    }

    /**
     * Runs the server until the process is stopped.
     *
     * @param args {@code [--host H] [--port P] [--set KEY=VALUE]...}; defaults 127.0.0.1 and 8080
     * @throws Exception if it cannot start
     */
    public static void main(String[] args) throws Exception {
        main(args, server -> { });
    }

    /**
     * Runs the server until the process is stopped, after letting the caller add to it (a tool's own services).
     *
     * @param args as {@link #main(String[])}
     * @param onStart called once the server runs, before the ready line is printed
     * @throws Exception if it cannot start
     */
    public static void main(String[] args, Consumer<CometDReferenceServer> onStart) throws Exception {
        try {
            run(args, onStart);
        } catch (IllegalArgumentException badCommandLine) {
            System.err.println("cometd-reference-server: " + badCommandLine.getMessage());
            System.exit(2);
        }
    }

    private static void run(String[] args, Consumer<CometDReferenceServer> onStart) throws Exception {
        String host = "127.0.0.1";
        int port = 8080;
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            String value = i + 1 < args.length ? args[i + 1] : null;
            switch (arg) {
                case "--host" -> host = required(arg, value);
                case "--port" -> port = parsePort(required(arg, value));
                case "--set" -> {
                    String pair = required(arg, value);
                    int equals = pair.indexOf('=');
                    if (equals <= 0) {
                        throw usage("--set needs KEY=VALUE, got '" + pair + "'");
                    }
                    options.put(pair.substring(0, equals), pair.substring(equals + 1));
                }
                case "--help", "-h" -> {
                    System.out.println(USAGE);
                    return;
                }
                default -> throw usage("unknown option '" + arg + "'");
            }
            i++;
        }
        CometDReferenceServer server = start(host, port, options);
        onStart.accept(server);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                server.close();
            } catch (Exception failure) {
                LOG.warn("Could not stop the CometD reference server", failure);
            } finally {
                stopped.countDown();
            }
        }, "cometd-reference-stop"));
        System.out.println(READY + " " + server.endpoint());
        System.out.flush();
        stopped.await();
    }

    private static final String USAGE = String.join("\n",
            "Usage: CometDReferenceServer [--host H] [--port P] [--set KEY=VALUE]...",
            "  --host H         address to listen on (default 127.0.0.1)",
            "  --port P         port (default 8080; 0 picks a free one)",
            "  --set KEY=VALUE  a CometD server option, as a servlet init-param (e.g. timeout=20000)");

    private static String required(String option, String value) {
        if (value == null) {
            throw usage(option + " needs a value");
        }
        return value;
    }

    private static int parsePort(String value) {
        try {
            int port = Integer.parseInt(value);
            if (port >= 0 && port <= 65535) {
                return port;
            }
        } catch (NumberFormatException ignored) {
            // reported below with the value
        }
        throw usage("--port must be 0..65535, got '" + value + "'");
    }

    private static IllegalArgumentException usage(String problem) {
        return new IllegalArgumentException(problem + "\n" + USAGE);
    }

    /**
     * CometD's servlet, giving its server the Jetty context that CometD's Jetty WebSocket transport needs (the
     * servlet itself only passes on the servlet context).
     */
    public static final class ContextAwareCometDServlet extends CometDServlet {
        @Override
        protected BayeuxServer newBayeuxServer() {
            BayeuxServer bayeux = super.newBayeuxServer();
            Context context = ServletContextHandler.getServletContextHandler(getServletContext()).getContext();
            bayeux.setOption(Context.class.getName(), context);
            return bayeux;
        }
    }
}
