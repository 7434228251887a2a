package org.bayeux.transport.servlet;

import java.util.Map;

import jakarta.servlet.ServletException;

import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.ee10.websocket.jakarta.server.config.JakartaWebSocketServletContainerInitializer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * A real Jetty (ee10, Servlet 6) on port 0 of 127.0.0.1 with {@link BayeuxServlet} deployed as a web application
 * declares it: mapped to {@code /bayeux/*} in the context {@code /app}, asynchronous, initialised at deployment, with
 * the given init parameters; with or without the container's Jakarta WebSocket server.
 */
final class ServletServer implements AutoCloseable {
    static final String CONTEXT = "/app";

    private final Server server = new Server();
    private final ServerConnector connector = new ServerConnector(server);
    private final ServletContextHandler context = new ServletContextHandler(CONTEXT);
    private final ServletHolder holder = new ServletHolder("bayeux", BayeuxServlet.class);

    private ServletServer(Map<String, String> initParameters, boolean webSocket) throws Exception {
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        holder.setAsyncSupported(true);
        holder.setInitOrder(1);
        initParameters.forEach(holder::setInitParameter);
        context.addServlet(holder, "/bayeux/*");
        if (webSocket) {
            // Publishes the ServerContainer in the context before the servlet starts, as a container does.
            JakartaWebSocketServletContainerInitializer.configure(context, null);
        }
        server.setHandler(context);
        server.start();
    }

    /** @return a started server with the Jakarta WebSocket server and these init parameters */
    static ServletServer start(Map<String, String> initParameters) throws Exception {
        return new ServletServer(initParameters, true);
    }

    /** @return a started server whose container offers no Jakarta WebSocket server */
    static ServletServer withoutWebSocket(Map<String, String> initParameters) throws Exception {
        return new ServletServer(initParameters, false);
    }

    /** @return the Bayeux endpoint's URL */
    String url() {
        return "http://127.0.0.1:" + connector.getLocalPort() + CONTEXT + "/bayeux";
    }

    /** @return the deployed servlet, initialised */
    BayeuxServlet servlet() throws ServletException {
        return (BayeuxServlet) holder.getServlet();
    }

    ServletHolder holder() {
        return holder;
    }

    ServletContextHandler context() {
        return context;
    }

    @Override
    public void close() throws Exception {
        server.stop();
    }
}
