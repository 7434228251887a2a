package org.bayeux.transport.servlet;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.ServletConfig;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletRegistration;
import jakarta.servlet.ServletException;
import jakarta.servlet.UnavailableException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.bayeux.api.server.BayeuxServer;
import org.bayeux.server.BayeuxEngine;
import org.bayeux.server.config.BayeuxServerConfig;
import org.bayeux.server.config.ConfigOption;
import org.bayeux.server.config.InvalidConfigurationException;
import org.bayeux.transport.http.HttpTransport;
import org.bayeux.transport.http.TransportConfig;
import org.bayeux.transport.websocket.SocketTransport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Bayeux endpoint as an asynchronous servlet, for any Jakarta Servlet 6 container. Map it to a path and every
 * path below it ({@code /bayeux/*}) with {@code async-supported} true. Init parameters take the engine's and the
 * transports' configuration keys ({@code docs/configuration.md}); a bad one stops the servlet from starting, with
 * a message naming it.
 *
 * <p>The engine is published as the servlet context attribute {@link #ATTRIBUTE} (the name of the
 * {@link BayeuxServer} interface, which is also the attribute's type), so that the application can add services,
 * listeners and extensions, for example from a {@code ServletContextListener} or another servlet's {@code init}.</p>
 *
 * <p>WebSocket: when the container offers Jakarta WebSocket 2.1 (a {@code jakarta.websocket.server.ServerContainer}
 * in the servlet context) and the {@code websocket} key is not false, {@code init} registers a Jakarta WebSocket
 * endpoint sharing this servlet's engine on the base path of each of its mappings ({@code /bayeux/*} gives
 * {@code /bayeux}, where clients open their socket), and advertises {@code websocket} first. Otherwise it logs why
 * and advertises only the HTTP transports. The servlet must be initialised while the application deploys
 * ({@code load-on-startup}): containers accept endpoints only then.</p>
 */
public class BayeuxServlet extends HttpServlet {
    /** The servlet context attribute holding the engine. */
    public static final String ATTRIBUTE = BayeuxServer.class.getName();
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(BayeuxServlet.class);

    private transient BayeuxEngine engine;
    private transient HttpTransport http;
    private transient ExecutorService webSocketTasks;
    private long asyncTimeoutMillis;

    @Override
    public void init(ServletConfig config) throws ServletException {
        super.init(config);
        Map<String, String> engineSettings = new HashMap<>();
        Map<String, String> transportSettings = new HashMap<>();
        for (String name : Collections.list(config.getInitParameterNames())) {
            String value = config.getInitParameter(name);
            if (isKey(BayeuxServerConfig.OPTIONS, name)) {
                engineSettings.put(name, value);
            } else if (isKey(TransportConfig.OPTIONS, name)) {
                transportSettings.put(name, value);
            } else {
                throw new UnavailableException("Unknown init parameter " + name + "=" + value
                        + "; see docs/configuration.md for the keys");
            }
        }
        try {
            engine = BayeuxEngine.create(BayeuxServerConfig.fromMap(engineSettings));
            TransportConfig transportConfig = TransportConfig.fromMap(transportSettings);
            http = new HttpTransport(engine, transportConfig);
            List<String> names = new ArrayList<>();
            if (transportConfig.get(TransportConfig.WEBSOCKET) && registerWebSocket(config, transportConfig)) {
                // Clients pick their own preference, but list WebSocket first, as the best of them.
                names.add(SocketTransport.NAME);
            }
            names.addAll(http.transportNames());
            engine.setTransportNames(names);
        } catch (InvalidConfigurationException bad) {
            throw new UnavailableException(bad.getMessage());
        }
        // A held connect answers within the engine's timeout; the container's own timeout is only a safety net.
        asyncTimeoutMillis = Math.max(60_000, engine.getConfig().timeout().multipliedBy(2).toMillis());
        engine.start();
        config.getServletContext().setAttribute(ATTRIBUTE, engine);
    }

    /** @return true if the Jakarta WebSocket endpoint was registered */
    private boolean registerWebSocket(ServletConfig config, TransportConfig transportConfig) {
        ServletContext context = config.getServletContext();
        try {
            Class.forName("jakarta.websocket.server.ServerContainer", false, BayeuxServlet.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError absent) {
            LOG.info("No Jakarta WebSocket API in this container: WebSocket is not offered, long-polling is");
            return false;
        }
        ServletRegistration registration = context.getServletRegistration(config.getServletName());
        List<String> paths = registration == null ? List.of()
                : WebSocketRegistration.pathsFor(registration.getMappings());
        if (paths.isEmpty()) {
            LOG.info("Servlet {} has no path mapping to put a WebSocket endpoint on: WebSocket is not offered",
                    config.getServletName());
            return false;
        }
        ExecutorService tasks = Executors.newCachedThreadPool(new TaskThreads(context.getContextPath()));
        SocketTransport sockets = new SocketTransport(engine, transportConfig, tasks);
        if (!WebSocketRegistration.register(context, paths, sockets, tasks)) {
            tasks.shutdown();
            return false;
        }
        webSocketTasks = tasks;
        return true;
    }

    private static boolean isKey(List<ConfigOption<?>> options, String key) {
        return options.stream().anyMatch(option -> option.key().equals(key));
    }

    /** @return the engine, once the servlet is initialised */
    public BayeuxEngine getEngine() {
        return engine;
    }

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) {
        AsyncContext async = request.startAsync();
        async.setTimeout(asyncTimeoutMillis);
        http.handle(new ServletHttpExchange(async));
    }

    @Override
    public void destroy() {
        if (engine != null) {
            getServletContext().removeAttribute(ATTRIBUTE);
            engine.stop();
        }
        if (webSocketTasks != null) {
            webSocketTasks.shutdown();
        }
        super.destroy();
    }

    /** Daemon threads, named after the context, for closing sockets and telling the engine about dead ones. */
    private static final class TaskThreads implements java.util.concurrent.ThreadFactory {
        private final String prefix;
        private final AtomicInteger count = new AtomicInteger();

        TaskThreads(String contextPath) {
            this.prefix = "bayeux-websocket" + contextPath.replace('/', '-') + "-";
        }

        @Override
        public Thread newThread(Runnable task) {
            Thread thread = new Thread(task, prefix + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        }
    }
}
