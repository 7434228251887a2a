package org.bayeux.transport.jetty;

import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

import org.bayeux.server.BayeuxServerImpl;
import org.bayeux.transport.http.Cors;
import org.bayeux.transport.http.TransportConfig;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.handler.ContextHandler;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.websocket.server.ServerWebSocketContainer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code websocket} transport on Jetty 12's core WebSocket server: it accepts upgrades on the endpoint's path
 * and every path below it, refuses origins that are neither the page's own nor allowed, and gives each connection a
 * {@link WebSocketCarrier}.
 *
 * <p>Limits come from the engine and transport configuration: the largest incoming message (and frame) is the
 * engine's {@code maxMessageSizeBytes}, beyond which Jetty closes with 1009; the idle timeout is
 * {@code wsIdleTimeout}; outgoing pushes are grouped into frames of at most {@code wsMaxOutgoingFrameBytes}.
 * Jetty negotiates {@code permessage-deflate} when the client offers it and compresses every message: it has no
 * minimum size, so {@code wsDeflateMinSizeBytes} is not applied. Inflated input counts against the message size
 * limit.</p>
 */
final class WebSocketTransport {
    /** The transport's name in handshakes and connects. */
    static final String NAME = "websocket";

    private static final Logger LOG = LoggerFactory.getLogger(WebSocketTransport.class);

    private final BayeuxServerImpl engine;
    private final TransportConfig config;
    private final Cors cors;
    private final AtomicInteger open = new AtomicInteger();
    private volatile ServerWebSocketContainer container;

    WebSocketTransport(BayeuxServerImpl engine, TransportConfig config) {
        this.engine = engine;
        this.config = config;
        this.cors = new Cors(config.allowedOrigins());
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
            long maxMessage = engine.getConfig().maxMessageSizeBytes();
            current.setMaxTextMessageSize(maxMessage);
            current.setMaxBinaryMessageSize(maxMessage);
            // Browsers send a message as one frame: a frame may be as large as a message.
            current.setMaxFrameSize(maxMessage);
            Duration idleTimeout = config.get(TransportConfig.WS_IDLE_TIMEOUT);
            current.setIdleTimeout(idleTimeout);
            if (idleTimeout.compareTo(engine.getConfig().timeout()) <= 0) {
                LOG.warn("{}={} does not exceed the engine's timeout={}: sockets of quiet clients will be closed while "
                        + "their connect is held", TransportConfig.WS_IDLE_TIMEOUT.key(), idleTimeout,
                        engine.getConfig().timeout());
            }
            container = current;
        }
        return current;
    }

    BayeuxServerImpl engine() {
        return engine;
    }

    int maxOutgoingFrameBytes() {
        return config.get(TransportConfig.WS_MAX_FRAME);
    }

    /** A socket whose peer does not read may have this many frames waiting before it is closed. */
    int maxPendingFrames() {
        return engine.getConfig().maxQueue();
    }

    /** @return the number of open WebSocket connections carrying Bayeux traffic */
    int openConnections() {
        return open.get();
    }

    void opened() {
        open.incrementAndGet();
    }

    void closed() {
        open.decrementAndGet();
    }

    /** Runs a task on Jetty's thread pool; during shutdown the task may be dropped. */
    void execute(Runnable task) {
        ServerWebSocketContainer current = container;
        Executor executor = current == null ? null : current.getExecutor();
        if (executor == null) {
            LOG.debug("No executor; dropping {}", task);
            return;
        }
        try {
            executor.execute(task);
        } catch (RejectedExecutionException stopping) {
            LOG.debug("Executor refused a task, probably stopping", stopping);
        }
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
        if (origin != null && !isSameOrigin(request, origin) && !cors.allows(origin)) {
            LOG.debug("Refused a WebSocket upgrade from origin {}", origin);
            response.setStatus(403);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain;charset=UTF-8");
            response.write(true, ByteBuffer.wrap("Origin not allowed".getBytes(StandardCharsets.UTF_8)), callback);
            return true;
        }
        try {
            return current.upgrade((upgradeRequest, upgradeResponse, upgradeCallback) -> new WebSocketCarrier(this),
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

    /** @return true if the origin is the scheme, host and port the request was sent to */
    static boolean isSameOrigin(Request request, String origin) {
        URI uri;
        try {
            uri = URI.create(origin.trim());
        } catch (IllegalArgumentException malformed) {
            return false;
        }
        String scheme = uri.getScheme();
        String host = uri.getHost();
        if (scheme == null || host == null) {
            return false;
        }
        String expectedScheme = request.isSecure() ? "https" : "http";
        if (!expectedScheme.equalsIgnoreCase(scheme)) {
            return false;
        }
        int port = uri.getPort() != -1 ? uri.getPort() : request.isSecure() ? 443 : 80;
        return host.equalsIgnoreCase(Request.getServerName(request)) && port == Request.getServerPort(request);
    }
}
