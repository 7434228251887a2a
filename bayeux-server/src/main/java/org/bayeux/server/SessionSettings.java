package org.bayeux.server;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;

import org.bayeux.server.config.BayeuxServerConfig;
import org.bayeux.server.transport.Carrier;

/**
 * A session's settings, one part of a {@link ServerSessionImpl}: each falls back to the server's configuration until
 * set (the session's {@code getInterval()}, {@code setMaxQueue(int)} and the others are these); the browser the
 * session is bound to, the carrier it is pinned to, and its budget of channel creations. Each field is read without a
 * lock.
 */
final class SessionSettings {
    private final BayeuxServerConfig config;
    private volatile Duration interval;
    private volatile Duration timeout;
    private volatile Duration maxInterval;
    private volatile int maxQueue = -1;
    private volatile int maxQueueBytes = -1;
    private volatile Boolean broadcastToPublisher;
    private volatile boolean metaConnectDeliveryOnly;
    /** The browser (cookie value) the session was created from, set once by the transport; null if none. */
    private volatile String browserId;
    /**
     * The lower-case hex SHA-256 of the browser cookie: computed from {@link #browserId} when a store asks, or, for a
     * session adopted from another node, all that is known of the cookie until its client presents it.
     */
    private volatile String browserDigest;
    /** Whether the client ever presented {@link #browserId} itself (a cookie the server gave proves nothing). */
    private volatile boolean browserCookieShown;
    /** Asked during the handshake: the session is to be carried by its handshake's carrier only. */
    private volatile boolean pinRequested;
    /** The carrier the session is pinned to, set once when its handshake completes; null if none. */
    private volatile Carrier pinnedCarrier;
    /** Made on the session's first channel creation: most sessions create none. */
    private volatile Limits.CreationBudget creationBudget;

    SessionSettings(BayeuxServerConfig config) {
        this.config = config;
        this.metaConnectDeliveryOnly = config.metaConnectDeliveryOnly();
    }

    /** @return the browser (cookie value) the session was created from, or null */
    String browserId() {
        return browserId;
    }

    /**
     * @param browser the browser the session was created from; only the first call counts, and for a session adopted
     *        bound to a cookie's digest only that cookie counts
     * @return true if this call bound the session (a store keeps the binding)
     */
    boolean bindToBrowser(String browser) {
        if (browserId != null || browser == null) {
            return false;
        }
        if (browserDigest != null) {
            // Adopted: the cookie is known by its digest only; the one that matches it is the cookie.
            if (browserDigest.equals(digest(browser))) {
                browserId = browser;
            }
            return false;
        }
        browserId = browser;
        return true;
    }

    /** @return true if the session is bound to a browser, by its cookie or (adopted) by the cookie's digest */
    boolean isBoundToBrowser() {
        return browserId != null || browserDigest != null;
    }

    /**
     * @param cookie a browser cookie a carrier presents, or null
     * @return true if it is the cookie the session is bound to; for an adopted session that knows only the cookie's
     *         digest, the cookie is then remembered, so that it is hashed once
     */
    boolean isBrowser(String cookie) {
        if (cookie == null) {
            return false;
        }
        String own = browserId;
        if (own != null) {
            return own.equals(cookie);
        }
        String known = browserDigest;
        if (known != null && known.equals(digest(cookie))) {
            browserId = cookie;
            return true;
        }
        return false;
    }

    /** @return the hex SHA-256 of the browser cookie the session is bound to, or null if it is bound to none */
    String browserDigest() {
        String known = browserDigest;
        if (known == null) {
            String own = browserId;
            if (own != null) {
                known = digest(own);
                browserDigest = known;
            }
        }
        return known;
    }

    /**
     * Restores, on the node that adopts a session, what binds it to its client.
     *
     * @param digest the hex SHA-256 of its browser cookie, or null
     * @param shown whether its client has shown that cookie
     * @param pinned whether the application pinned it to its handshake's carrier
     */
    void restoreBinding(String digest, boolean shown, boolean pinned) {
        this.browserDigest = digest;
        this.browserCookieShown = shown;
        this.pinRequested = pinned;
    }

    /**
     * @param cookie a browser cookie
     * @return its lower-case hex SHA-256
     */
    static String digest(String cookie) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(cookie.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException impossible) {
            throw new IllegalStateException("every JVM has SHA-256", impossible);
        }
    }

    /** @return true once the client has presented the browser cookie the session is bound to */
    boolean hasShownBrowserCookie() {
        return browserCookieShown;
    }

    /**
     * The client presented the browser cookie the session is bound to: from now on it must, always.
     *
     * @return true the first time (a store keeps it)
     */
    boolean browserCookieShown() {
        if (!browserCookieShown) {
            browserCookieShown = true;
            return true;
        }
        return false;
    }

    /** Asks that the session be carried only by the carrier that completes its handshake. */
    void requestPin() {
        pinRequested = true;
    }

    /** @return true if the session was asked to be pinned ({@link #requestPin()}) */
    boolean isPinRequested() {
        return pinRequested;
    }

    /**
     * @param carrier the carrier of the session's handshake, if a pin was requested; only the first call counts, and
     *        only a persistent connection (a WebSocket) is pinned to: over HTTP the transports bind the session to its
     *        cookie instead ({@link org.bayeux.server.transport.TransportEngine#isPinned})
     */
    void pinTo(Carrier carrier) {
        if (pinRequested && pinnedCarrier == null && carrier.capabilities().persistentConnection()) {
            pinnedCarrier = carrier;
        }
    }

    /** @return the carrier the session is pinned to, or null */
    Carrier pinnedCarrier() {
        return pinnedCarrier;
    }

    /** @return this session's budget of channel creations, made on first use */
    Limits.CreationBudget creationBudget() {
        Limits.CreationBudget budget = creationBudget;
        if (budget == null) {
            synchronized (this) {
                if (creationBudget == null) {
                    creationBudget = new Limits.CreationBudget();
                }
                budget = creationBudget;
            }
        }
        return budget;
    }

    /** @return the server's configuration, which each setting falls back to, and the overflow policy comes from */
    BayeuxServerConfig config() {
        return config;
    }

    Duration getInterval() {
        Duration own = interval;
        return own == null ? config.interval() : own;
    }

    void setInterval(Duration interval) {
        this.interval = checkNotNegative("interval", interval);
    }

    Duration getTimeout() {
        Duration own = timeout;
        return own == null ? config.timeout() : own;
    }

    void setTimeout(Duration timeout) {
        this.timeout = checkNotNegative("timeout", timeout);
    }

    Duration getMaxInterval() {
        Duration own = maxInterval;
        return own == null ? config.maxInterval() : own;
    }

    void setMaxInterval(Duration maxInterval) {
        this.maxInterval = checkNotNegative("maxInterval", maxInterval);
    }

    private static Duration checkNotNegative(String name, Duration value) {
        if (value != null && value.isNegative()) {
            throw new IllegalArgumentException(name + " must not be negative: " + value);
        }
        return value;
    }

    int getMaxQueue() {
        int own = maxQueue;
        return own < 0 ? config.maxQueue() : own;
    }

    void setMaxQueue(int maxQueue) {
        if (maxQueue == 0 || maxQueue < -1) {
            throw new IllegalArgumentException("maxQueue must be at least 1, or -1 for the server's: " + maxQueue);
        }
        this.maxQueue = maxQueue;
    }

    int getMaxQueueBytes() {
        int own = maxQueueBytes;
        return own < 0 ? config.maxQueueBytes() : own;
    }

    void setMaxQueueBytes(int maxQueueBytes) {
        if (maxQueueBytes != -1 && maxQueueBytes < 1024) {
            throw new IllegalArgumentException("maxQueueBytes must be at least 1024, or -1 for the server's: "
                    + maxQueueBytes);
        }
        this.maxQueueBytes = maxQueueBytes;
    }

    boolean isBroadcastToPublisher() {
        Boolean own = broadcastToPublisher;
        return own == null ? config.broadcastToPublisher() : own;
    }

    void setBroadcastToPublisher(boolean broadcastToPublisher) {
        this.broadcastToPublisher = broadcastToPublisher;
    }

    boolean isMetaConnectDeliveryOnly() {
        return metaConnectDeliveryOnly;
    }

    void setMetaConnectDeliveryOnly(boolean metaConnectDeliveryOnly) {
        this.metaConnectDeliveryOnly = metaConnectDeliveryOnly;
    }
}
