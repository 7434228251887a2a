package org.bayeux.transport.http;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import org.bayeux.api.Message;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.server.transport.Carrier;

/**
 * One HTTP request carrying a batch: it answers once, at once or when the engine releases a held connect.
 */
final class HttpCarrier implements Carrier {
    private static final byte[] JSONP_PREFIX = "/**/".getBytes(StandardCharsets.US_ASCII);

    private final HttpTransport transport;
    private final HttpExchange exchange;
    private final String callback;
    private final AtomicBoolean responded = new AtomicBoolean();
    private final List<ServerSession> attached = new CopyOnWriteArrayList<>();
    private volatile String browserId;
    private volatile boolean holdCounted;

    HttpCarrier(HttpTransport transport, HttpExchange exchange, String callback) {
        this.transport = transport;
        this.exchange = exchange;
        this.callback = callback;
        this.browserId = exchange.cookie(transport.config().get(TransportConfig.BROWSER_COOKIE_NAME));
    }

    @Override
    public String transportName() {
        return callback == null ? HttpTransport.LONG_POLLING : HttpTransport.CALLBACK_POLLING;
    }

    @Override
    public boolean canHoldConnect() {
        return true;
    }

    @Override
    public boolean pushesWhileHeld() {
        return false;
    }

    @Override
    public int maxResponseBytes() {
        return transport.config().get(TransportConfig.HTTP_MAX_RESPONSE);
    }

    @Override
    public boolean allowsPiggyback() {
        return callback == null;
    }

    @Override
    public void send(List<ServerMessage> messages) {
        if (!responded.compareAndSet(false, true)) {
            return;
        }
        setBrowserCookieAfterHandshake(messages);
        byte[] json = transport.engine().toJson(messages);
        transport.cors().addResponseHeaders(exchange);
        exchange.addHeader("Cache-Control", "no-cache, no-store");
        if (callback == null) {
            exchange.respond(200, "application/json;charset=UTF-8", json);
            return;
        }
        byte[] name = callback.getBytes(StandardCharsets.US_ASCII);
        byte[] body = new byte[JSONP_PREFIX.length + name.length + 1 + json.length + 2];
        int at = 0;
        System.arraycopy(JSONP_PREFIX, 0, body, at, JSONP_PREFIX.length);
        at += JSONP_PREFIX.length;
        System.arraycopy(name, 0, body, at, name.length);
        at += name.length;
        body[at++] = '(';
        System.arraycopy(json, 0, body, at, json.length);
        at += json.length;
        body[at++] = ')';
        body[at] = ';';
        exchange.addHeader("X-Content-Type-Options", "nosniff");
        exchange.respond(200, "text/javascript;charset=UTF-8", body);
    }

    private void setBrowserCookieAfterHandshake(List<ServerMessage> messages) {
        if (browserId != null) {
            return;
        }
        for (ServerMessage message : messages) {
            if (Message.META_HANDSHAKE.equals(message.getChannel()) && message.isSuccessful()) {
                browserId = transport.browsers().newBrowserId();
                // Secure on HTTPS (also as a forwarding proxy reports it), so the cookie never travels in clear.
                Map<String, String> attributes = transport.config().get(TransportConfig.BROWSER_COOKIE_CROSS_SITE)
                        ? Map.of("SameSite", "None", "Secure", "")
                        : exchange.isSecure() ? Map.of("Secure", "") : Map.of();
                exchange.addCookie(transport.config().get(TransportConfig.BROWSER_COOKIE_NAME), browserId, attributes);
                return;
            }
        }
    }

    @Override
    public void superseded() {
        respondError(transport.config().get(TransportConfig.DUPLICATE_CONNECT_STATUS), "Superseded by a newer connect");
    }

    void respondError(int status, String reason) {
        if (responded.compareAndSet(false, true)) {
            transport.cors().addResponseHeaders(exchange);
            exchange.respond(status, "text/plain;charset=UTF-8", reason.getBytes(StandardCharsets.UTF_8));
        }
    }

    @Override
    public Map<String, Object> refuseHold(ServerSession session) {
        String browser = browserId;
        if (browser == null || exchange.isMultiplexed()) {
            return null;
        }
        if (transport.browsers().tryHold(browser)) {
            holdCounted = true;
            return null;
        }
        long interval = transport.config().get(TransportConfig.MULTI_SESSION_INTERVAL).toMillis();
        if (interval <= 0) {
            return Map.of(Message.RECONNECT_FIELD, Message.RECONNECT_NONE, Message.MULTIPLE_CLIENTS_FIELD, true);
        }
        return Map.of(Message.RECONNECT_FIELD, Message.RECONNECT_RETRY, Message.INTERVAL_FIELD, interval,
                Message.MULTIPLE_CLIENTS_FIELD, true);
    }

    @Override
    public void holdEnded(ServerSession session) {
        if (holdCounted) {
            holdCounted = false;
            transport.browsers().release(browserId);
        }
    }

    @Override
    public void attach(ServerSession session) {
        if (!attached.contains(session)) {
            attached.add(session);
        }
    }

    /** The client went away or the exchange failed before the response: the sessions it carried must know. */
    void failed(Throwable failure) {
        if (responded.compareAndSet(false, true)) {
            for (ServerSession session : attached) {
                transport.engine().carrierFailed(session, this);
            }
        }
    }
}
