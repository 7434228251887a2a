package org.bayeux.transport.servlet;

import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;

import jakarta.websocket.HandshakeResponse;
import jakarta.websocket.server.HandshakeRequest;
import jakarta.websocket.server.ServerEndpointConfig;

import org.bayeux.transport.websocket.SocketTransport;

/**
 * Creates a {@link BayeuxWebSocketEndpoint} for each connection and applies the origin rule of
 * {@link SocketTransport#allowsOrigin}: no {@code Origin}, the page's own origin, or one of {@code allowedOrigins}.
 *
 * <p>Jakarta's {@code checkOrigin} sees only the origin, not the host the request was sent to, so the check runs in
 * {@link #modifyHandshake}, which sees the {@code Host} header but cannot refuse the upgrade: a refused origin is
 * marked in the connection's user properties and the endpoint closes the socket at once with 1008 (policy
 * violation), before reading anything.</p>
 */
final class BayeuxWebSocketConfigurator extends ServerEndpointConfig.Configurator {
    /** User property set on connections whose origin is refused. */
    static final String ORIGIN_REFUSED = BayeuxWebSocketConfigurator.class.getName() + ".originRefused";
    /** User property holding the upgrade's browser cookie, when it may vouch for sessions. */
    static final String BROWSER_ID = BayeuxWebSocketConfigurator.class.getName() + ".browserId";
    /** User property set when the handshake response set a new browser cookie ({@link #BROWSER_ID}). */
    static final String BROWSER_ID_GIVEN = BayeuxWebSocketConfigurator.class.getName() + ".browserIdGiven";

    private final SocketTransport transport;
    private final Executor closer;

    BayeuxWebSocketConfigurator(SocketTransport transport, Executor closer) {
        this.transport = transport;
        this.closer = closer;
    }

    @Override
    public <T> T getEndpointInstance(Class<T> endpointClass) throws InstantiationException {
        if (!endpointClass.isAssignableFrom(BayeuxWebSocketEndpoint.class)) {
            throw new InstantiationException("Not a Bayeux endpoint: " + endpointClass);
        }
        return endpointClass.cast(new BayeuxWebSocketEndpoint(transport, closer));
    }

    @Override
    public void modifyHandshake(ServerEndpointConfig config, HandshakeRequest request, HandshakeResponse response) {
        Map<String, List<String>> headers = request.getHeaders();
        String origin = first(headers, "Origin");
        URI uri = request.getRequestURI();
        String scheme = uri == null ? null : uri.getScheme();
        boolean secure = "wss".equalsIgnoreCase(scheme) || "https".equalsIgnoreCase(scheme);
        String host = first(headers, "Host");
        String serverHost = null;
        int serverPort = secure ? 443 : 80;
        if (host != null) {
            URI hostUri = parseHost(host);
            if (hostUri != null && hostUri.getHost() != null) {
                serverHost = hostUri.getHost();
                if (hostUri.getPort() != -1) {
                    serverPort = hostUri.getPort();
                }
            }
        } else if (uri != null) {
            serverHost = uri.getHost();
            serverPort = uri.getPort() != -1 ? uri.getPort() : serverPort;
        }
        if (!transport.allowsOrigin(origin, secure, serverHost, serverPort)) {
            config.getUserProperties().put(ORIGIN_REFUSED, Boolean.TRUE);
        } else if (transport.trustsCookieFrom(origin, secure, serverHost, serverPort)) {
            String browserId = cookie(headers, transport.browserCookieName());
            if (browserId == null && (browserId = transport.newBrowserId()) != null) {
                // Given a cookie now, a client that reconnects on a new socket keeps its sessions.
                StringBuilder setCookie = new StringBuilder(transport.browserCookieName()).append('=').append(browserId)
                        .append("; Path=/; HttpOnly");
                transport.browserCookieAttributes(secure).forEach((name, value) -> setCookie.append("; ").append(name)
                        .append(value.isEmpty() ? "" : "=" + value));
                response.getHeaders().put("Set-Cookie", List.of(setCookie.toString()));
                config.getUserProperties().put(BROWSER_ID_GIVEN, Boolean.TRUE);
            }
            if (browserId != null) {
                config.getUserProperties().put(BROWSER_ID, browserId);
            }
        }
    }

    /** @return the value of the named cookie in the {@code Cookie} headers, or null */
    private static String cookie(Map<String, List<String>> headers, String name) {
        for (Map.Entry<String, List<String>> header : headers.entrySet()) {
            if (!"Cookie".equalsIgnoreCase(header.getKey()) || header.getValue() == null) {
                continue;
            }
            for (String line : header.getValue()) {
                for (String pair : line.split(";")) {
                    int equals = pair.indexOf('=');
                    if (equals > 0 && pair.substring(0, equals).trim().equals(name)) {
                        String value = pair.substring(equals + 1).trim();
                        return value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")
                                ? value.substring(1, value.length() - 1) : value;
                    }
                }
            }
        }
        return null;
    }

    private static URI parseHost(String host) {
        try {
            return URI.create("http://" + host.trim());
        } catch (IllegalArgumentException malformed) {
            return null;
        }
    }

    /** Header names are case-insensitive, but not every container's map is. */
    private static String first(Map<String, List<String>> headers, String name) {
        for (Map.Entry<String, List<String>> header : headers.entrySet()) {
            if (name.equalsIgnoreCase(header.getKey()) && header.getValue() != null && !header.getValue().isEmpty()) {
                return header.getValue().get(0);
            }
        }
        return null;
    }
}
