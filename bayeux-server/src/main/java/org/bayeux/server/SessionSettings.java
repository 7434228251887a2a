package org.bayeux.server;

import java.time.Duration;
import java.util.Set;

import org.bayeux.api.server.ServerSession;
import org.bayeux.api.support.Attributes;
import org.bayeux.server.config.BayeuxServerConfig;
import org.bayeux.server.transport.Carrier;

/**
 * The per-session settings and attributes of a {@link ServerSessionImpl}: each falls back to the server's
 * configuration until set; the browser it is bound to and its budget of channel creations. Kept apart so the
 * session class holds only its life and its queue.
 */
abstract class SessionSettings implements ServerSession {
    private final BayeuxServerConfig config;
    private volatile Duration interval;
    private volatile Duration timeout;
    private volatile Duration maxInterval;
    private volatile int maxQueue = -1;
    private volatile int maxQueueBytes = -1;
    private volatile Boolean broadcastToPublisher;
    private volatile boolean metaConnectDeliveryOnly;
    private final Attributes attributes = new Attributes();
    /** The browser (cookie value) the session was created from, set once by the transport; null if none. */
    private volatile String browserId;
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

    /** @param browser the browser the session was created from; only the first call counts */
    void bindToBrowser(String browser) {
        if (browserId == null) {
            browserId = browser;
        }
    }

    /** @return true once the client has presented the browser cookie the session is bound to */
    boolean hasShownBrowserCookie() {
        return browserCookieShown;
    }

    /** The client presented the browser cookie the session is bound to: from now on it must, always. */
    void browserCookieShown() {
        if (!browserCookieShown) {
            browserCookieShown = true;
        }
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

    /** @return the server's configuration, which each setting falls back to */
    BayeuxServerConfig config() {
        return config;
    }

    @Override
    public Duration getInterval() {
        Duration own = interval;
        return own == null ? config.interval() : own;
    }

    @Override
    public void setInterval(Duration interval) {
        this.interval = checkNotNegative("interval", interval);
    }

    @Override
    public Duration getTimeout() {
        Duration own = timeout;
        return own == null ? config.timeout() : own;
    }

    @Override
    public void setTimeout(Duration timeout) {
        this.timeout = checkNotNegative("timeout", timeout);
    }

    @Override
    public Duration getMaxInterval() {
        Duration own = maxInterval;
        return own == null ? config.maxInterval() : own;
    }

    @Override
    public void setMaxInterval(Duration maxInterval) {
        this.maxInterval = checkNotNegative("maxInterval", maxInterval);
    }

    private static Duration checkNotNegative(String name, Duration value) {
        if (value != null && value.isNegative()) {
            throw new IllegalArgumentException(name + " must not be negative: " + value);
        }
        return value;
    }

    @Override
    public int getMaxQueue() {
        int own = maxQueue;
        return own < 0 ? config.maxQueue() : own;
    }

    @Override
    public void setMaxQueue(int maxQueue) {
        if (maxQueue == 0 || maxQueue < -1) {
            throw new IllegalArgumentException("maxQueue must be at least 1, or -1 for the server's: " + maxQueue);
        }
        this.maxQueue = maxQueue;
    }

    @Override
    public int getMaxQueueBytes() {
        int own = maxQueueBytes;
        return own < 0 ? config.maxQueueBytes() : own;
    }

    @Override
    public void setMaxQueueBytes(int maxQueueBytes) {
        if (maxQueueBytes != -1 && maxQueueBytes < 1024) {
            throw new IllegalArgumentException("maxQueueBytes must be at least 1024, or -1 for the server's: "
                    + maxQueueBytes);
        }
        this.maxQueueBytes = maxQueueBytes;
    }

    @Override
    public boolean isBroadcastToPublisher() {
        Boolean own = broadcastToPublisher;
        return own == null ? config.broadcastToPublisher() : own;
    }

    @Override
    public void setBroadcastToPublisher(boolean broadcastToPublisher) {
        this.broadcastToPublisher = broadcastToPublisher;
    }

    @Override
    public boolean isMetaConnectDeliveryOnly() {
        return metaConnectDeliveryOnly;
    }

    @Override
    public void setMetaConnectDeliveryOnly(boolean metaConnectDeliveryOnly) {
        this.metaConnectDeliveryOnly = metaConnectDeliveryOnly;
    }

    @Override
    public Object getAttribute(String name) {
        return attributes.get(name);
    }

    @Override
    public void setAttribute(String name, Object value) {
        attributes.set(name, value);
    }

    @Override
    public Object removeAttribute(String name) {
        return attributes.remove(name);
    }

    @Override
    public Set<String> getAttributeNames() {
        return attributes.names();
    }
}
