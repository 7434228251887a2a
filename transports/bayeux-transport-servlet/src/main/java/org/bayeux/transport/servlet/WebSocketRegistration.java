package org.bayeux.transport.servlet;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executor;

import jakarta.servlet.ServletContext;
import jakarta.websocket.DeploymentException;
import jakarta.websocket.server.ServerContainer;
import jakarta.websocket.server.ServerEndpointConfig;

import org.bayeux.transport.websocket.SocketTransport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Registers the Bayeux Jakarta WebSocket endpoint with the container's {@link ServerContainer}. Kept apart from
 * {@link BayeuxServlet} so that the servlet still loads in a container without the Jakarta WebSocket API: it calls
 * this class only after checking that the API is there.
 */
final class WebSocketRegistration {
    /** The servlet context attribute under which Servlet containers publish their {@link ServerContainer}. */
    static final String SERVER_CONTAINER_ATTRIBUTE = "jakarta.websocket.server.ServerContainer";

    private static final Logger LOG = LoggerFactory.getLogger(WebSocketRegistration.class);

    private WebSocketRegistration() {
    }

    /**
     * WebSocket paths for servlet mappings: Jakarta WebSocket paths are exact, so {@code /bayeux/*} and
     * {@code /bayeux} both give {@code /bayeux}, the URL that clients open their socket on; {@code /*} gives
     * {@code /}. Extension mappings ({@code *.do}) give nothing.
     *
     * @param mappings the servlet's URL patterns
     * @return the paths, without duplicates
     */
    static List<String> pathsFor(Collection<String> mappings) {
        Set<String> paths = new LinkedHashSet<>();
        for (String mapping : mappings) {
            if (mapping == null || !mapping.startsWith("/")) {
                continue;
            }
            String path = mapping.endsWith("/*") ? mapping.substring(0, mapping.length() - 2) : mapping;
            paths.add(path.isEmpty() ? "/" : path);
        }
        return new ArrayList<>(paths);
    }

    /**
     * Registers the endpoint on each path.
     *
     * @param context the servlet context
     * @param paths the paths, relative to the context
     * @param transport the transport's shared state
     * @param closer runs closes off the engine's threads
     * @return true if the endpoint was registered on at least one path; false (logged) if the container has no
     *         {@link ServerContainer} or refused every path
     */
    static boolean register(ServletContext context, List<String> paths, SocketTransport transport, Executor closer) {
        Object attribute = context.getAttribute(SERVER_CONTAINER_ATTRIBUTE);
        if (!(attribute instanceof ServerContainer)) {
            LOG.info("No Jakarta WebSocket container in servlet context {} (attribute {} is {}): WebSocket is not "
                    + "offered, long-polling is", context.getContextPath(), SERVER_CONTAINER_ATTRIBUTE, attribute);
            return false;
        }
        ServerContainer container = (ServerContainer) attribute;
        BayeuxWebSocketConfigurator configurator = new BayeuxWebSocketConfigurator(transport, closer);
        boolean registered = false;
        for (String path : paths) {
            ServerEndpointConfig config = ServerEndpointConfig.Builder.create(BayeuxWebSocketEndpoint.class, path)
                    .configurator(configurator).build();
            try {
                container.addEndpoint(config);
                registered = true;
                LOG.debug("Bayeux WebSocket endpoint at {}{}", context.getContextPath(), path);
            } catch (DeploymentException | RuntimeException refused) {
                LOG.warn("The container refused a WebSocket endpoint at {}{}: WebSocket is not offered there",
                        context.getContextPath(), path, refused);
            }
        }
        return registered;
    }
}
