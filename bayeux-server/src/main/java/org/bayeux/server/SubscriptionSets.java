package org.bayeux.server;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A session's subscriptions as a set that is cheap while small: an immutable set, copied on each change, while it
 * holds at most {@value #FEW} channels (an idle session's one or two cost a few bytes, where a concurrent set costs
 * about 150), a concurrent set from then on, so that a session with many subscriptions does not copy them all on each
 * change. The owner keeps the set in a volatile field and calls these methods under its own lock.
 */
final class SubscriptionSets {
    /** Beyond this many subscriptions, a concurrent set replaces the copied immutable one. */
    static final int FEW = 8;

    private SubscriptionSets() {
    }

    /**
     * @param subscriptions the current set
     * @param channel the channel subscribed to
     * @return the set to keep: a new immutable one, or the same concurrent one with the channel added
     */
    static Set<ServerChannelImpl> with(Set<ServerChannelImpl> subscriptions, ServerChannelImpl channel) {
        if (subscriptions.contains(channel)) {
            return subscriptions;
        }
        if (subscriptions.size() < FEW) {
            ServerChannelImpl[] grown = subscriptions.toArray(new ServerChannelImpl[subscriptions.size() + 1]);
            grown[grown.length - 1] = channel;
            return Set.of(grown);
        }
        Set<ServerChannelImpl> many = subscriptions;
        if (!(many instanceof ConcurrentHashMap.KeySetView)) {
            many = ConcurrentHashMap.newKeySet(2 * FEW);
            many.addAll(subscriptions);
        }
        many.add(channel);
        return many;
    }

    /**
     * @param subscriptions the current set
     * @param channel the channel unsubscribed from
     * @return the set to keep: a new immutable one, or the same set (concurrent ones shrink in place)
     */
    static Set<ServerChannelImpl> without(Set<ServerChannelImpl> subscriptions, ServerChannelImpl channel) {
        if (subscriptions instanceof ConcurrentHashMap.KeySetView) {
            subscriptions.remove(channel);
            return subscriptions;
        }
        if (!subscriptions.contains(channel)) {
            return subscriptions;
        }
        return Set.of(subscriptions.stream().filter(kept -> kept != channel).toArray(ServerChannelImpl[]::new));
    }
}
