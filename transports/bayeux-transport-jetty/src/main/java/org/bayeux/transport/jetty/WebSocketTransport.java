package org.bayeux.transport.jetty;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

import org.bayeux.server.BayeuxEngine;
import org.bayeux.transport.http.TransportConfig;
import org.bayeux.transport.websocket.SocketCarrier;
import org.bayeux.transport.websocket.SocketTransport;
import org.eclipse.jetty.http.HttpCookie;
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
import org.eclipse.jetty.websocket.core.Configuration;
import org.eclipse.jetty.websocket.core.FrameHandler;
import org.eclipse.jetty.websocket.core.server.Handshaker;
import org.eclipse.jetty.websocket.core.server.ServerUpgradeRequest;
import org.eclipse.jetty.websocket.core.server.ServerUpgradeResponse;
import org.eclipse.jetty.websocket.core.server.WebSocketNegotiator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code websocket} transport on Jetty 12's core WebSocket server: it accepts upgrades on the endpoint's path
 * and every path below it, refuses origins that are neither the page's own nor allowed, and gives each connection a
 * {@link JettySocket} over a {@link org.bayeux.transport.websocket.SocketCarrier}, which holds the protocol logic
 * shared with the Jakarta WebSocket endpoint.
 *
 * <p>Limits come from the engine and transport configuration: the largest incoming message (and frame) is the
 * engine's {@code maxMessageSizeBytes}, beyond which the socket closes with 1009; the idle timeout is
 * {@code wsIdleTimeout}; outgoing pushes are grouped into frames of at most {@code wsMaxOutgoingFrameBytes}.
 * {@code permessage-deflate} is negotiated when the client offers it; messages under {@code wsDeflateMinSizeBytes}
 * go out uncompressed ({@link MinimumSizeDeflateExtension}). Inflated input counts against the message size
 * limit.</p>
 */
final class WebSocketTransport {
    /** The transport's name in handshakes and connects. */
    static final String NAME = SocketTransport.NAME;

    private static final Logger LOG = LoggerFactory.getLogger(WebSocketTransport.class);
    /** Close code for a server going down. */
    private static final int GOING_AWAY = 1001;

    private final SocketTransport sockets;
    private final Set<JettySocket> open = ConcurrentHashMap.newKeySet();
    private final Handshaker handshaker = Handshaker.newInstance();
    private final SharedUriRequest.Cache upgradeUris = new SharedUriRequest.Cache();
    private volatile WebSocketComponents components;
    private volatile Executor executor;
    private volatile Duration idleTimeout;

    WebSocketTransport(BayeuxEngine engine, TransportConfig config) {
        this.sockets = new SocketTransport(engine, config, this::execute);
    }

    /**
     * Readies Jetty's WebSocket components of the server (or context) for this endpoint.
     *
     * @param server the Jetty server
     * @param context the context the endpoint is mounted in, or null
     */
    void start(Server server, ContextHandler context) {
        WebSocketComponents current = context == null ? WebSocketServerComponents.ensureWebSocketComponents(server)
                : WebSocketServerComponents.ensureWebSocketComponents(server, context);
        useMinimumSizeDeflate(current);
        executor = server.getThreadPool();
        idleTimeout = sockets.idleTimeout();
        components = current;
    }

    /**
     * Closes every open socket with 1001 (going away); the sessions they carried then start to expire. Each socket is
     * closed on its own: one whose connection already failed (or fails now) is dropped, and never stops the others
     * from being closed or the server from stopping.
     */
    void stop() {
        components = null;
        for (JettySocket socket : List.copyOf(open)) {
            try {
                socket.close(GOING_AWAY, "server stopping");
            } catch (RuntimeException failure) {
                LOG.debug("Could not close {} while stopping; dropping it", socket, failure);
                socket.abort();
                open.remove(socket);
            }
        }
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

    /** @return the sockets open now, unmodifiable; for tests of this package */
    Set<JettySocket> openSockets() {
        return java.util.Collections.unmodifiableSet(open);
    }

    /** @return how many sockets were closed for carrying no session within {@code wsHandshakeTimeout} */
    long handshakeTimeouts() {
        return sockets.handshakeTimeouts();
    }

    /** @return the number of open WebSocket connections carrying Bayeux traffic */
    int openConnections() {
        return sockets.openConnections();
    }

    /** @return the transport's counters of dropped sockets ({@link SocketTransport#slowPeerDrops()} and others) */
    SocketTransport sockets() {
        return sockets;
    }

    /** Runs a task on Jetty's thread pool; during shutdown the task may be dropped. */
    private void execute(Runnable task) {
        Executor current = executor;
        if (current == null) {
            LOG.debug("No executor; dropping {}", task);
            return;
        }
        // A refusal while stopping is logged by SocketTransport.
        current.execute(task);
    }

    /**
     * Upgrades the request to a WebSocket if it asks for one.
     *
     * @return true if the request was handled (upgraded or refused), false if it is not an upgrade request
     */
    boolean handle(Request request, Response response, Callback callback) {
        WebSocketComponents current = components;
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
            // Jetty keeps the upgrade's URI for each socket: sockets that upgraded at the same URI share one.
            return handshaker.upgradeRequest(negotiator, new SharedUriRequest(request, upgradeUris), response, callback,
                    current, null);
        } catch (RuntimeException failure) {
            LOG.debug("WebSocket upgrade failed", failure);
            Response.writeError(request, response, callback, failure);
            return true;
        }
    }

    /** Creates a socket per upgrade and sets the limits of its connection. */
    private final WebSocketNegotiator negotiator = new WebSocketNegotiator() {
        @Override
        public FrameHandler negotiate(ServerUpgradeRequest request, ServerUpgradeResponse response,
                Callback callback) {
            SocketCarrier carrier = sockets.newCarrier();
            String cookie = browserCookieOf(request);
            if (cookie != null || !trustsCookie(request)) {
                carrier.setBrowserId(cookie, false);
            } else {
                // Given a cookie now, a client that reconnects on a new socket keeps its sessions.
                String given = sockets.newBrowserId();
                if (given != null) {
                    HttpCookie.Builder setCookie = HttpCookie.build(sockets.browserCookieName(), given).path("/")
                            .httpOnly(true);
                    sockets.browserCookieAttributes(request.isSecure()).forEach(setCookie::attribute);
                    Response.addCookie(response, setCookie.build());
                }
                carrier.setBrowserId(given, given != null);
            }
            carrier.setRemoteAddress(Request.getRemoteAddr(request));
            return new JettySocket(carrier, sockets.maxIncomingMessageBytes(), open);
        }

        @Override
        public void customize(Configuration configuration) {
            // Browsers send a message as one frame: a frame may be as large as a message.
            configuration.setMaxFrameSize(sockets.maxIncomingMessageBytes());
            configuration.setMaxTextMessageSize(sockets.maxIncomingMessageBytes());
            configuration.setMaxBinaryMessageSize(sockets.maxIncomingMessageBytes());
            configuration.setIdleTimeout(idleTimeout);
        }
    };

    private boolean trustsCookie(Request request) {
        return sockets.trustsCookieFrom(request.getHeaders().get(HttpHeader.ORIGIN), request.isSecure(),
                Request.getServerName(request), Request.getServerPort(request));
    }

    /** @return the upgrade's browser cookie, if it may vouch for sessions ({@link SocketTransport#trustsCookieFrom}) */
    private String browserCookieOf(Request request) {
        if (!trustsCookie(request)) {
            return null;
        }
        for (String header : request.getHeaders().getValuesList(HttpHeader.COOKIE)) {
            String value = CookieHeader.valueOf(header, sockets.browserCookieName());
            if (value != null) {
                return value;
            }
        }
        return null;
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
