package org.bayeux.transport.http;

import java.util.List;
import java.util.Locale;

/**
 * Cross-origin rules: which origins may call, and the headers that say so. Credentials are always allowed (both
 * CometD and Faye send cookies cross-origin), so an allowed origin is echoed, never answered with {@code *}.
 */
public final class Cors {
    private static final String DEFAULT_ALLOWED_HEADERS = "Content-Type, Accept, Origin, X-Requested-With, Pragma, Authorization";

    private final List<String> allowedOrigins;
    private final boolean anyOrigin;

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
        if (origin == null || origin.isEmpty() || "null".equals(origin)) {
            return false;
        }
        return anyOrigin || allowedOrigins.contains(origin.toLowerCase(Locale.ROOT));
    }

    /**
     * Adds the headers of an actual (non-preflight) response, if the origin is allowed.
     *
     * @param exchange the exchange
     */
    public void addResponseHeaders(HttpExchange exchange) {
        String origin = exchange.header("Origin");
        if (allows(origin)) {
            exchange.addHeader("Access-Control-Allow-Origin", origin);
            exchange.addHeader("Access-Control-Allow-Credentials", "true");
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
}
