package org.bayeux.standalone;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import org.bayeux.api.server.ServerExtension;
import org.bayeux.server.BayeuxServerImpl;
import org.bayeux.server.config.BayeuxServerConfig;
import org.bayeux.server.config.ConfigOption;
import org.bayeux.server.config.InvalidConfigurationException;
import org.bayeux.server.ext.AcknowledgedMessagesExtension;
import org.bayeux.standalone.demo.ChatService;
import org.bayeux.server.ext.TimesyncExtension;
import org.bayeux.server.ext.TimestampExtension;
import org.bayeux.transport.http.TransportConfig;
import org.bayeux.transport.jetty.BayeuxEndpoint;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ContextHandler;
import org.eclipse.jetty.server.handler.ResourceHandler;
import org.eclipse.jetty.util.resource.ResourceFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The standalone server: a Jetty server with the Bayeux endpoint at {@code /bayeux} and, optionally, a folder of
 * static files (or the built-in demo page) at {@code /}.
 */
public final class StandaloneServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StandaloneServer.class);
    private static final String USAGE = String.join("\n",
            "Usage: bin/bayeux server [--port P] [--host H] [--static DIR | --demo] [--set KEY=VALUE]...",
            "  --port P         port to listen on (default 8080; 0 picks a free one)",
            "  --host H         address to bind (default 0.0.0.0, every interface)",
            "  --static DIR     serve the files of DIR at /",
            "  --demo           serve the chat demo at / (with its chat service and the ack extension)",
            "  --extensions E   server extensions to install, comma-separated: ack, timesync, timestamp",
            "  --set KEY=VALUE  set an engine or transport option (see docs/configuration.md)",
            "The Bayeux endpoint is served at /bayeux. Once listening, prints one line on standard output:",
            "  Listening on http://HOST:PORT/ (Bayeux endpoint http://HOST:PORT/bayeux)");

    private final Server jetty;
    private final ServerConnector connector;
    private final BayeuxServerImpl engine;
    private final ChatService chat;

    /**
     * Builds and starts a server.
     *
     * @param options the parsed command line
     * @throws Exception if Jetty cannot start (for example, the port is taken)
     */
    public StandaloneServer(Options options) throws Exception {
        engine = new BayeuxServerImpl(options.engineConfig);
        java.util.Set<String> extensions = new java.util.LinkedHashSet<>(options.extensions);
        if (options.demo) {
            extensions.add("ack"); // the chat's page asks for it: no message lost across reconnections
        }
        for (String extension : extensions) {
            engine.addExtension(newExtension(extension));
        }
        chat = options.demo ? new ChatService(engine) : null;
        jetty = new Server();
        connector = new ServerConnector(jetty);
        connector.setHost(options.host);
        connector.setPort(options.port);
        // A held long poll is silent for up to `timeout`; the connection must outlive it.
        connector.setIdleTimeout(Math.max(60_000, options.engineConfig.timeout().multipliedBy(2).toMillis()));
        // Jetty's per-connection cache of request header lines costs about 100 KB of heap per connection, which
        // long-polling clients keep open for good, and its lookups were the hottest code in long-polling profiles.
        connector.getConnectionFactory(HttpConnectionFactory.class).getHttpConfiguration().setHeaderCacheSize(0);
        jetty.addConnector(connector);
        jetty.setStopAtShutdown(true);
        Handler statics = staticHandler(options);
        if (statics != null) {
            jetty.setHandler(new Handler.Sequence(new ContextHandler(statics, "/")));
        }
        BayeuxEndpoint.mount(jetty, "/bayeux", engine, options.transportConfig);
        jetty.start();
        LOG.info("Bayeux endpoint at http://{}:{}/bayeux", options.host, getPort());
    }

    private static ServerExtension newExtension(String name) {
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

    private static Handler staticHandler(Options options) {
        ResourceHandler resources = new ResourceHandler();
        if (options.staticDir != null) {
            resources.setBaseResource(ResourceFactory.root().newResource(options.staticDir));
        } else if (options.demo) {
            resources.setBaseResource(ResourceFactory.root().newClassLoaderResource("org/bayeux/standalone/demo/"));
        } else {
            return null;
        }
        resources.setWelcomeFiles("index.html");
        return resources;
    }

    /** @return the port the server listens on */
    public int getPort() {
        return connector.getLocalPort();
    }

    /** @return the demo's chat service, or null without {@code --demo} */
    public ChatService getChat() {
        return chat;
    }

    /** @return the engine */
    public BayeuxServerImpl getEngine() {
        return engine;
    }

    /** Waits until the server stops. */
    public void join() throws InterruptedException {
        jetty.join();
    }

    @Override
    public void close() {
        try {
            jetty.stop();
        } catch (Exception failure) {
            throw new IllegalStateException("Could not stop the server", failure);
        }
    }

    /**
     * Runs the server until the process ends.
     *
     * @param args the command line; see {@code --help}
     */
    public static void main(String[] args) throws Exception {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException bad) {
            System.err.println("bayeux: " + bad.getMessage());
            System.err.println(USAGE);
            System.exit(2);
            return;
        }
        if (options.help) {
            System.out.println(USAGE);
            return;
        }
        StandaloneServer server = new StandaloneServer(options);
        // One plain line, whatever the logging set-up, for people and for programs that start the server on port 0.
        String base = "http://" + options.host + ":" + server.getPort();
        System.out.println("Listening on " + base + "/ (Bayeux endpoint " + base + "/bayeux)");
        System.out.flush();
        server.join();
    }

    /**
     * The command line, parsed and validated.
     */
    public static final class Options {
        int port = 8080;
        String host = "0.0.0.0";
        Path staticDir;
        boolean demo;
        boolean help;
        java.util.List<String> extensions = new java.util.ArrayList<>();
        BayeuxServerConfig engineConfig;
        TransportConfig transportConfig;

        /**
         * @param args the command line
         * @return the options
         * @throws IllegalArgumentException naming the bad argument
         */
        public static Options parse(String... args) {
            Options options = new Options();
            Map<String, String> engineSettings = new LinkedHashMap<>();
            Map<String, String> transportSettings = new LinkedHashMap<>();
            for (int i = 0; i < args.length; i++) {
                String arg = args[i];
                switch (arg) {
                    case "--help":
                    case "-h":
                        options.help = true;
                        break;
                    case "--demo":
                        options.demo = true;
                        break;
                    case "--port":
                        options.port = parsePort(valueOf(args, ++i, arg));
                        break;
                    case "--host":
                        options.host = valueOf(args, ++i, arg);
                        break;
                    case "--static":
                        options.staticDir = Path.of(valueOf(args, ++i, arg));
                        if (!Files.isDirectory(options.staticDir)) {
                            throw new IllegalArgumentException("--static " + options.staticDir + ": not a folder");
                        }
                        break;
                    case "--extensions":
                        for (String name : valueOf(args, ++i, arg).split(",")) {
                            String trimmed = name.trim();
                            if (!trimmed.isEmpty()) {
                                newExtension(trimmed);
                                options.extensions.add(trimmed);
                            }
                        }
                        break;
                    case "--set":
                        addSetting(valueOf(args, ++i, arg), engineSettings, transportSettings);
                        break;
                    default:
                        throw new IllegalArgumentException("unknown argument '" + arg + "'");
                }
            }
            try {
                options.engineConfig = BayeuxServerConfig.fromMap(engineSettings);
                options.transportConfig = TransportConfig.fromMap(transportSettings);
            } catch (InvalidConfigurationException bad) {
                throw new IllegalArgumentException(bad.getMessage(), bad);
            }
            return options;
        }

        /**
         * @param port the port
         * @return these options with that port
         */
        public Options port(int port) {
            this.port = port;
            return this;
        }

        /**
         * @param host the address to bind
         * @return these options with that address
         */
        public Options host(String host) {
            this.host = host;
            return this;
        }

        private static String valueOf(String[] args, int index, String option) {
            if (index >= args.length) {
                throw new IllegalArgumentException(option + " needs a value");
            }
            return args[index];
        }

        private static int parsePort(String text) {
            try {
                int port = Integer.parseInt(text);
                if (port >= 0 && port <= 65535) {
                    return port;
                }
            } catch (NumberFormatException notANumber) {
                // reported below
            }
            throw new IllegalArgumentException("--port " + text + ": not a port number (0 to 65535)");
        }

        private static void addSetting(String setting, Map<String, String> engine, Map<String, String> transport) {
            int equals = setting.indexOf('=');
            if (equals <= 0) {
                throw new IllegalArgumentException("--set " + setting + ": expected KEY=VALUE");
            }
            String key = setting.substring(0, equals);
            String value = setting.substring(equals + 1);
            if (isKey(BayeuxServerConfig.OPTIONS, key)) {
                engine.put(key, value);
            } else if (isKey(TransportConfig.OPTIONS, key)) {
                transport.put(key, value);
            } else {
                throw new IllegalArgumentException("--set " + key + ": unknown option; see docs/configuration.md");
            }
        }

        private static boolean isKey(java.util.List<ConfigOption<?>> options, String key) {
            return options.stream().anyMatch(option -> option.key().equals(key));
        }
    }
}
