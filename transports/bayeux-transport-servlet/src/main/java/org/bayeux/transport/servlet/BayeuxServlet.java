package org.bayeux.transport.servlet;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.ServletConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.UnavailableException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.bayeux.api.server.BayeuxServer;
import org.bayeux.server.BayeuxServerImpl;
import org.bayeux.server.config.BayeuxServerConfig;
import org.bayeux.server.config.ConfigOption;
import org.bayeux.server.config.InvalidConfigurationException;
import org.bayeux.transport.http.HttpTransport;
import org.bayeux.transport.http.TransportConfig;

/**
 * The Bayeux endpoint as an asynchronous servlet, for any Jakarta Servlet 6 container. Map it to a path and every
 * path below it ({@code /bayeux/*}) with {@code async-supported} true. Init parameters take the engine's and the
 * transports' configuration keys ({@code docs/configuration.md}); a bad one stops the servlet from starting, with
 * a message naming it.
 *
 * <p>The engine is published as the servlet context attribute {@value #ATTRIBUTE} (type {@link BayeuxServer}), so
 * that the application can add services, listeners and extensions, for example from a
 * {@code ServletContextListener} or another servlet's {@code init}.</p>
 */
public class BayeuxServlet extends HttpServlet {
    /** The servlet context attribute holding the engine. */
    public static final String ATTRIBUTE = BayeuxServer.class.getName();
    private static final long serialVersionUID = 1L;

    private transient BayeuxServerImpl engine;
    private transient HttpTransport http;
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
            engine = new BayeuxServerImpl(BayeuxServerConfig.fromMap(engineSettings));
            TransportConfig transportConfig = TransportConfig.fromMap(transportSettings);
            http = new HttpTransport(engine, transportConfig);
            List<String> names = new ArrayList<>(http.transportNames());
            engine.setTransportNames(names);
        } catch (InvalidConfigurationException bad) {
            throw new UnavailableException(bad.getMessage());
        }
        // A held connect answers within the engine's timeout; the container's own timeout is only a safety net.
        asyncTimeoutMillis = Math.max(60_000, engine.getConfig().timeout().multipliedBy(2).toMillis());
        engine.start();
        config.getServletContext().setAttribute(ATTRIBUTE, engine);
    }

    private static boolean isKey(List<ConfigOption<?>> options, String key) {
        return options.stream().anyMatch(option -> option.key().equals(key));
    }

    /** @return the engine, once the servlet is initialised */
    public BayeuxServerImpl getEngine() {
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
        super.destroy();
    }
}
