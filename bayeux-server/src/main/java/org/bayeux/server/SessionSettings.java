package org.bayeux.server;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.bayeux.api.server.ServerSession;
import org.bayeux.server.config.BayeuxServerConfig;

/**
 * The per-session settings and attributes of a {@link ServerSessionImpl}: each falls back to the server's
 * configuration until set. Kept apart so the session class holds only its life and its queue.
 */
abstract class SessionSettings implements ServerSession {
    private final BayeuxServerConfig config;
    private volatile Duration interval;
    private volatile Duration timeout;
    private volatile Duration maxInterval;
    private volatile int maxQueue = -1;
    private volatile Boolean broadcastToPublisher;
    private volatile boolean metaConnectDeliveryOnly;
    private volatile Map<String, Object> attributes;

    SessionSettings(BayeuxServerConfig config) {
        this.config = config;
        this.metaConnectDeliveryOnly = config.metaConnectDeliveryOnly();
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

    private Map<String, Object> attributes(boolean create) {
        Map<String, Object> map = attributes;
        if (map == null && create) {
            synchronized (this) {
                map = attributes;
                if (map == null) {
                    map = new ConcurrentHashMap<>(4);
                    attributes = map;
                }
            }
        }
        return map;
    }

    @Override
    public Object getAttribute(String name) {
        Map<String, Object> map = attributes(false);
        return map == null ? null : map.get(name);
    }

    @Override
    public void setAttribute(String name, Object value) {
        if (value == null) {
            removeAttribute(name);
        } else {
            attributes(true).put(name, value);
        }
    }

    @Override
    public Object removeAttribute(String name) {
        Map<String, Object> map = attributes(false);
        return map == null ? null : map.remove(name);
    }

    @Override
    public Set<String> getAttributeNames() {
        Map<String, Object> map = attributes(false);
        return map == null ? Set.of() : Set.copyOf(map.keySet());
    }
}
