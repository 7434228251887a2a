package org.bayeux.transport.jetty;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.Executor;

import org.bayeux.server.BayeuxServerImpl;
import org.bayeux.transport.http.TransportConfig;
import org.bayeux.transport.websocket.SocketTransport;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.handler.ContextHandler;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Decorator;
import org.eclipse.jetty.websocket.core.WebSocketComponents;
import org.eclipse.jetty.websocket.core.server.WebSocketServerComponents;
import org.eclipse.jetty.websocket.server.ServerWebSocketContainer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code websocket} transport on Jetty 12's core WebSocket server: it accepts upgrades on the endpoint's path
 * and every path below it, refuses origins that are neither the page's own nor allowed, and gives each connection a
 * {@link JettySocketListener} over a {@link org.bayeux.transport.websocket.SocketCarrier}, which holds the protocol
 * logic shared with the Jakarta WebSocket endpoint.
 *
 * <p>Limits come from the engine and transport configuration: the largest incoming message (and frame) is the
 * engine's {@code maxMessageSizeBytes}, beyond which Jetty closes with 1009; the idle timeout is
 * {@code wsIdleTimeout}; outgoing pushes are grouped into frames of at most {@code wsMaxOutgoingFrameBytes}.
 * {@code permessage-deflate} is negotiated when the client offers it; messages under {@code wsDeflateMinSizeBytes}
 * go out uncompressed ({@link MinimumSizeDeflateExtension}). Inflated input counts against the message size
 * limit.</p>
 */
final class WebSocketTransport {
    /** The transport's name in handshakes and connects. */
    static final String NAME = SocketTransport.NAME;

    private static final Logger LOG = LoggerFactory.getLogger(WebSocketTransport.class);

    private final SocketTransport sockets;
    private volatile ServerWebSocketContainer container;

    WebSocketTransport(BayeuxServerImpl engine, TransportConfig config) {
        this.sockets = new SocketTransport(engine, config, this::execute);
    }

    /**
     * Creates and configures Jetty's WebSocket container, once; the caller manages its life cycle.
     *
     * @param server the Jetty server
     * @param context the context the endpoint is mounted in, or null
     * @return the container
     */
    ServerWebSocketContainer container(Server server, ContextHandler context) {
        ServerWebSocketContainer current = container;
        if (current == null) {
            current = ServerWebSocketContainer.ensure(server, context);
            long maxMessage = sockets.maxIncomingMessageBytes();
            current.setMaxTextMessageSize(maxMessage);
            current.setMaxBinaryMessageSize(maxMessage);
            // Browsers send a message as one frame: a frame may be as large as a message.
            current.setMaxFrameSize(maxMessage);
            current.setIdleTimeout(sockets.idleTimeout());
            useMinimumSizeDeflate(context == null ? WebSocketServerComponents.ensureWebSocketComponents(server)
                    : WebSocketServerComponents.ensureWebSocketComponents(server, context));
            container = current;
        }
        return current;
    }

    /**
     * Replaces Jetty's {@code permessage-deflate} with {@link MinimumSizeDeflateExtension} in the components of the
     * server (or context), and gives each instance Jetty creates this transport's minimum size. Two endpoints
     * sharing one context share one minimum: the last configured.
     */
    private void useMinimumSizeDeflate(WebSocketComponents components) {
        components.getExtensionRegistry().register("permessage-deflate", MinimumSizeDeflateExtension.class);
        int minimumBytes = sockets.deflateMinimumBytes();
        components.getObjectFactory().addDecorator(new Decorator() {
            @Override
            public <T> T decorate(T created) {
                if (created instanceof MinimumSizeDeflateExtension extension) {
                    extension.minimumBytes(minimumBytes);
                }
                return created;
            }

            @Override
            public void destroy(Object destroyed) {
                // Nothing to release.
            }
        });
    }

    /** @return the number of open WebSocket connections carrying Bayeux traffic */
    int openConnections() {
        return sockets.openConnections();
    }

    /** Runs a task on Jetty's thread pool; during shutdown the task may be dropped. */
    private void execute(Runnable task) {
        ServerWebSocketContainer current = container;
        Executor executor = current == null ? null : current.getExecutor();
        if (executor == null) {
            LOG.debug("No executor; dropping {}", task);
            return;
        }
        // A refusal while stopping is logged by SocketTransport.
        executor.execute(task);
    }

    /**
     * Upgrades the request to a WebSocket if it asks for one.
     *
     * @return true if the request was handled (upgraded or refused), false if it is not an upgrade request
     */
    boolean handle(Request request, Response response, Callback callback) {
        ServerWebSocketContainer current = container;
        if (current == null || !isUpgradeRequest(request)) {
            return false;
        }
        String origin = request.getHeaders().get(HttpHeader.ORIGIN);
        if (!sockets.allowsOrigin(origin, request.isSecure(), Request.getServerName(request),
                Request.getServerPort(request))) {
            LOG.debug("Refused a WebSocket upgrade from origin {}", origin);
            response.setStatus(403);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain;charset=UTF-8");
            response.write(true, ByteBuffer.wrap("Origin not allowed".getBytes(StandardCharsets.UTF_8)), callback);
            return true;
        }
        try {
            return current.upgrade((upgradeRequest, upgradeResponse, upgradeCallback) ->
                    new JettySocketListener(sockets.newCarrier()),
                    request, response, callback);
        } catch (RuntimeException failure) {
            LOG.debug("WebSocket upgrade failed", failure);
            Response.writeError(request, response, callback, failure);
            return true;
        }
    }

    /** HTTP/1.1 {@code GET} with {@code Upgrade: websocket}, or an HTTP/2 or HTTP/3 extended {@code CONNECT}. */
    private static boolean isUpgradeRequest(Request request) {
        String method = request.getMethod();
        if (HttpMethod.CONNECT.is(method)) {
            return true;
        }
        String upgrade = request.getHeaders().get(HttpHeader.UPGRADE);
        return HttpMethod.GET.is(method) && upgrade != null && upgrade.toLowerCase(Locale.ROOT).contains("websocket");
    }
}
