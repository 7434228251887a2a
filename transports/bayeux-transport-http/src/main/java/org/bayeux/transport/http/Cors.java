package org.bayeux.transport.http;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.LongAdder;


/**
 * Cross-origin rules: which origins may call, and the headers that say so.
 *
 * <p>An origin listed in {@code allowedOrigins} is echoed with {@code Access-Control-Allow-Credentials: true}: its
 * pages may send the browser cookie that sessions are bound to. An origin allowed only by {@code *} is echoed without
 * credentials, so that no page of an arbitrary site can act with its visitor's cookie; cross-origin long-polling then
 * works only for clients that send no cookie, that is with {@code requireBrowserCookie=false} or over WebSocket. A
 * request whose {@code Origin} is neither the endpoint's own nor allowed is refused with 403, simple requests
 * included, before anything is processed.</p>
 */
public final class Cors {
    private static final String DEFAULT_ALLOWED_HEADERS = "Content-Type, Accept, Origin, X-Requested-With, Pragma, Authorization";

    private final List<String> allowedOrigins;
    private final boolean anyOrigin;
    private final LongAdder refused = new LongAdder();

    /**
     * @param allowedOrigins origins such as {@code https://app.example.com}, or {@code *} for any
     */
    public Cors(List<String> allowedOrigins) {
        this.allowedOrigins = allowedOrigins.stream().map(origin -> origin.toLowerCase(Locale.ROOT)).toList();
        this.anyOrigin = this.allowedOrigins.contains("*");
    }

    /**
     * @param origin the request's {@code Origin} header, may be null
     * @return true if the origin may make cross-origin requests and WebSocket upgrades
     */
    public boolean allows(String origin) {
        return isOrigin(origin) && (anyOrigin || lists(origin));
    }

    /**
     * @param origin the request's {@code Origin} header, may be null
     * @return true if the origin is named in the list (not merely allowed by {@code *}): its pages may send cookies
     */
    public boolean lists(String origin) {
        return isOrigin(origin) && allowedOrigins.contains(origin.toLowerCase(Locale.ROOT));
    }

    private static boolean isOrigin(String origin) {
        return origin != null && !origin.isEmpty() && !"null".equals(origin);
    }

    /**
     * Refuses, with 403, a request whose {@code Origin} is neither the endpoint's own (same scheme, host and port)
     * nor allowed. Requests without {@code Origin} (non-browser clients, JSONP script tags) pass.
     *
     * @param exchange the exchange
     * @return true if the request was refused and answered
     */
    public boolean refuse(HttpExchange exchange) {
        String origin = exchange.header("Origin");
        if (origin == null || allows(origin)
                || isSameOrigin(origin, exchange.isSecure(), exchange.serverName(), exchange.serverPort())) {
            return false;
        }
        refused.increment();
        if (!allowedOrigins.isEmpty()) {
            exchange.addHeader("Vary", "Origin");
        }
        exchange.addHeader("Cache-Control", "no-cache, no-store");
        exchange.respond(403, "text/plain;charset=UTF-8", "Origin not allowed".getBytes(StandardCharsets.UTF_8));
        return true;
    }

    /** @return how many requests were refused for their {@code Origin} */
    public long refusedOrigins() {
        return refused.sum();
    }

    /**
     * Adds the headers of an actual (non-preflight) response, if the origin is allowed.
     *
     * @param exchange the exchange
     */
    public void addResponseHeaders(HttpExchange exchange) {
        String origin = exchange.header("Origin");
        if (lists(origin)) {
            exchange.addHeader("Access-Control-Allow-Origin", origin);
            exchange.addHeader("Access-Control-Allow-Credentials", "true");
        } else if (allows(origin)) {
            exchange.addHeader("Access-Control-Allow-Origin", origin);
        }
        if (!allowedOrigins.isEmpty()) {
            // Without an allow-list no response has CORS headers, so none varies with the origin.
            exchange.addHeader("Vary", "Origin");
        }
    }

    /**
     * Answers a preflight {@code OPTIONS} request: 200, with the CORS headers if the origin is allowed.
     *
     * @param exchange the exchange
     */
    public void answerPreflight(HttpExchange exchange) {
        addResponseHeaders(exchange);
        if (allows(exchange.header("Origin"))) {
            exchange.addHeader("Access-Control-Allow-Methods", "GET, POST, OPTIONS");
            String requested = exchange.header("Access-Control-Request-Headers");
            exchange.addHeader("Access-Control-Allow-Headers",
                    requested == null || requested.isBlank() ? DEFAULT_ALLOWED_HEADERS : requested);
            exchange.addHeader("Access-Control-Max-Age", "86400");
        }
        exchange.respond(200, null, new byte[0]);
    }

    /**
     * @param origin an {@code Origin} header
     * @param secure whether the request came over TLS
     * @param serverHost the host the request was sent to
     * @param serverPort the port the request was sent to
     * @return true if the origin is the scheme, host and port the request was sent to
     */
    public static boolean isSameOrigin(String origin, boolean secure, String serverHost, int serverPort) {
        URI uri;
        try {
            uri = URI.create(origin.trim());
        } catch (IllegalArgumentException malformed) {
            return false;
        }
        String scheme = uri.getScheme();
        String host = uri.getHost();
        if (scheme == null || host == null || serverHost == null) {
            return false;
        }
        if (!(secure ? "https" : "http").equalsIgnoreCase(scheme)) {
            return false;
        }
        int port = uri.getPort() != -1 ? uri.getPort() : secure ? 443 : 80;
        return host.equalsIgnoreCase(serverHost) && port == serverPort;
    }
}
