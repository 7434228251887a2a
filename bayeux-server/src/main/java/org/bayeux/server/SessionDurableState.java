package org.bayeux.server;

import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

import org.bayeux.api.server.ServerChannel;
import org.bayeux.api.server.SessionExtension;
import org.bayeux.server.cluster.AcknowledgedBatch;
import org.bayeux.server.cluster.ChannelPosition;
import org.bayeux.server.cluster.SessionState;
import org.bayeux.server.cluster.SessionStore;

/**
 * A session's subscriptions, and what of the session a {@link SessionStore} sees ({@link SessionState}): kept apart
 * so that {@link ServerSessionImpl} holds only the session's life, queue and connects. The store is told here when
 * the subscriptions change.
 */
abstract class SessionDurableState extends SessionCallbacks implements SessionState {
    /** The channels subscribed to ({@link SubscriptionSets}); changed under {@code this}, read without a lock. */
    private volatile Set<ServerChannelImpl> subscriptions = Set.of();

    /** What every session of the engine works with. */
    final SessionParts parts;

    SessionDurableState(SessionParts parts) {
        super(parts.config());
        this.parts = parts;
    }

    /** @return the store of the engine this session belongs to, now */
    SessionStore store() {
        return parts.store();
    }

    /** @return whether this session keeps positions: its engine has a cluster, which may give messages one */
    boolean tracksPositions() {
        return parts.cluster().hasCluster();
    }

    @Override
    public Set<ServerChannel> getSubscriptions() {
        return Set.copyOf(subscriptions);
    }

    void subscribed(ServerChannelImpl channel) {
        synchronized (this) {
            subscriptions = SubscriptionSets.with(subscriptions, channel);
        }
        store().changed(this);
    }

    void unsubscribed(ServerChannelImpl channel) {
        synchronized (this) {
            subscriptions = SubscriptionSets.without(subscriptions, channel);
        }
        store().changed(this);
    }

    Set<ServerChannelImpl> subscribedChannels() {
        return subscriptions;
    }

    @Override
    public String sessionId() {
        return getId();
    }

    @Override
    public Set<String> subscriptions() {
        Set<ServerChannelImpl> now = subscriptions;
        Set<String> names = new LinkedHashSet<>(now.size() * 2);
        for (ServerChannelImpl channel : now) {
            names.add(channel.getId());
        }
        return names;
    }

    /** @return the session's {@code ack} extension, if it has one */
    AcknowledgedBatch acknowledging() {
        for (SessionExtension extension : extensionList()) {
            if (extension instanceof AcknowledgedBatch numbered) {
                return numbered;
            }
        }
        return null;
    }

    /**
     * @return per channel, the last position handed to a carrier or, with the {@code ack} extension, acknowledged:
     *         a copy, taken under the session's lock
     */
    abstract Map<String, ChannelPosition> lastPositions();

    @Override
    public Map<String, ChannelPosition> positions() {
        Map<String, ChannelPosition> last = lastPositions();
        if (last.isEmpty()) {
            return Map.of();
        }
        Map<String, ChannelPosition> subscribed = new HashMap<>(last.size() * 2);
        for (ServerChannelImpl channel : subscriptions) {
            ChannelPosition position = channel.isWildcard() ? null : last.get(channel.getId());
            if (position != null) {
                subscribed.put(channel.getId(), position);
            }
        }
        return Map.copyOf(subscribed);
    }

    @Override
    public Duration maxInterval() {
        return getMaxInterval();
    }

    @Override
    public long ackBatch() {
        AcknowledgedBatch numbered = acknowledging();
        return numbered == null ? -1 : numbered.acknowledgedBatch();
    }
}
