package org.bayeux.transport.http;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import org.bayeux.api.Message;
import org.bayeux.api.server.ServerSession;
import org.bayeux.server.transport.Carrier;
import org.bayeux.server.transport.CarrierCapabilities;
import org.bayeux.server.transport.HoldPolicy;
import org.bayeux.server.transport.OutgoingMessages;

/**
 * One HTTP request carrying a batch: it answers once, at once or when the engine releases a held connect.
 */
final class HttpCarrier implements Carrier, HoldPolicy {
    private static final byte[] JSONP_PREFIX = "/**/".getBytes(StandardCharsets.US_ASCII);

    private final HttpTransport transport;
    private final HttpExchange exchange;
    private final String callback;
    private final AtomicBoolean responded = new AtomicBoolean();
    private final List<ServerSession> attached = new CopyOnWriteArrayList<>();
    private volatile String browserId;
    /** A handshake on this request created a session for a browser without a cookie: the reply sets one. */
    private volatile boolean setBrowserCookie;
    private volatile boolean holdCounted;
    /** The limits' admission of this request's handshake, bound to the session it creates. */
    private volatile SessionLimits.Admission admission;

    HttpCarrier(HttpTransport transport, HttpExchange exchange, String callback) {
        this.transport = transport;
        this.exchange = exchange;
        this.callback = callback;
        this.browserId = exchange.cookie(transport.config().get(TransportConfig.BROWSER_COOKIE_NAME));
    }

    /** @return the browser cookie the request came with, or null */
    String browserCookie() {
        return browserId;
    }

    void admitted(SessionLimits.Admission handshake) {
        this.admission = handshake;
    }

    @Override
    public CarrierCapabilities capabilities() {
        return callback == null ? transport.longPolling() : transport.callbackPolling();
    }

    /** @return this request's hold policy: one held connect per browser at a time, and a status when superseded */
    @Override
    public HoldPolicy holdPolicy() {
        return this;
    }

    @Override
    public void send(OutgoingMessages messages) {
        if (!responded.compareAndSet(false, true)) {
            return;
        }
        if (setBrowserCookie) {
            exchange.addCookie(transport.config().get(TransportConfig.BROWSER_COOKIE_NAME), browserId,
                    BrowserRegistry.cookieAttributes(transport.config(), exchange.isSecure()));
        }
        byte[] json = messages.toJson();
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
        Map<String, Object> refusal = holdRefusal();
        if (refusal == null) {
            // Held: a client that goes away now must be noticed now, not when the hold times out.
            exchange.watchForClose();
        }
        return refusal;
    }

    private Map<String, Object> holdRefusal() {
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
        if (!transport.bindings().isBoundToBrowser(session)) {
            // The session's handshake: it belongs to this request's browser, given a cookie now if it has none.
            boolean presented = browserId != null;
            if (!presented) {
                browserId = transport.browsers().newBrowserId();
                setBrowserCookie = true;
                if (transport.binding().mode() != SessionBinding.NONE) {
                    // A socket the client opened before it had the cookie may still take the session (Faye), even
                    // once the client has shown the cookie over HTTP.
                    transport.adoptions().awaitSocket(session, exchange.remoteAddress());
                }
            }
            transport.binding().bind(session, browserId, presented);
            SessionLimits.Admission admitted = admission;
            if (admitted != null) {
                admitted.bind(session);
            }
        }
        if (!attached.contains(session)) {
            attached.add(session);
        }
    }

    @Override
    public boolean mayCarry(ServerSession session) {
        if (transport.bindings().isPinned(session)) {
            // Pinned over HTTP (over WebSocket the engine refuses every other carrier): its handshake's cookie, as
            // strictly as can be, whatever the mode.
            return browserId != null && transport.bindings().isBrowserOf(session, browserId);
        }
        if (setBrowserCookie) {
            // The cookie this request's reply is about to set was not sent by the client, so it shows nothing; but a
            // session its handshake bound to it, earlier in this batch, is this client's.
            return transport.bindings().isBrowserOf(session, browserId)
                    || transport.binding().mayCarry(session, null);
        }
        return transport.binding().mayCarry(session, browserId);
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
