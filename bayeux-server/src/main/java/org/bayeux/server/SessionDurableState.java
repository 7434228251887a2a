package org.bayeux.server;

import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

import org.bayeux.server.cluster.ChannelPosition;
import org.bayeux.server.cluster.SessionState;
import org.bayeux.server.cluster.SessionStore;

/**
 * A session's subscriptions, one part of a {@link ServerSessionImpl}: the state a {@link SessionStore} keeps of the
 * session besides its settings ({@link SessionState#subscriptions()}, and the positions of the channels subscribed
 * to). The session tells the store when they change.
 */
final class SessionDurableState {
    /** The channels subscribed to ({@link SubscriptionSets}); changed under this part's monitor, read without lock. */
    private volatile Set<ServerChannelImpl> subscriptions = Set.of();
    /** The fencing token this node holds ({@link SessionState#generation()}): 0, 1 once created, more once adopted. */
    private volatile long generation;

    long generation() {
        return generation;
    }

    void generation(long generation) {
        this.generation = generation;
    }

    void subscribed(ServerChannelImpl channel) {
        synchronized (this) {
            subscriptions = SubscriptionSets.with(subscriptions, channel);
        }
    }

    void unsubscribed(ServerChannelImpl channel) {
        synchronized (this) {
            subscriptions = SubscriptionSets.without(subscriptions, channel);
        }
    }

    /** @return the channels subscribed to now (an unchangeable set) */
    Set<ServerChannelImpl> channels() {
        return subscriptions;
    }

    /** @return the names of the channels subscribed to now, in a new set */
    Set<String> names() {
        Set<ServerChannelImpl> now = subscriptions;
        Set<String> names = new LinkedHashSet<>(now.size() * 2);
        for (ServerChannelImpl channel : now) {
            names.add(channel.getId());
        }
        return names;
    }

    /**
     * @param last per channel, the last position handed to a carrier or acknowledged
     * @return those of the channels subscribed to now, but wildcards
     */
    Map<String, ChannelPosition> positions(Map<String, ChannelPosition> last) {
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
}
