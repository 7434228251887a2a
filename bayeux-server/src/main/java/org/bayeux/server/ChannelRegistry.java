package org.bayeux.server;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

import org.bayeux.api.ChannelId;
import org.bayeux.api.server.ServerChannel;
import org.bayeux.server.internal.Callbacks;

/**
 * The channels of a server, by name, and the walk from a channel to its wildcard ancestors.
 */
final class ChannelRegistry {
    private final BayeuxServerImpl server;
    private final ConcurrentHashMap<String, ServerChannelImpl> channels = new ConcurrentHashMap<>();
    /** Creation is rare next to look-ups: one lock keeps initializers atomic and lets them create other channels. */
    private final Object creationLock = new Object();

    ChannelRegistry(BayeuxServerImpl server) {
        this.server = server;
    }

    ServerChannelImpl get(String name) {
        return channels.get(name);
    }

    Collection<ServerChannel> all() {
        return List.copyOf(channels.values());
    }

    ServerChannelImpl createIfAbsent(ChannelId id, ServerChannel.Initializer... initializers) {
        ServerChannelImpl existing = channels.get(id.name());
        if (existing != null) {
            return existing;
        }
        ServerChannelImpl created;
        synchronized (creationLock) {
            existing = channels.get(id.name());
            if (existing != null) {
                return existing;
            }
            created = new ServerChannelImpl(server, id);
            for (ServerChannel.Initializer initializer : initializers) {
                Callbacks.run(initializer, () -> initializer.configureChannel(created));
            }
            channels.put(id.name(), created);
        }
        server.notifyChannelAdded(created);
        return created;
    }

    void remove(ServerChannelImpl channel) {
        if (channels.remove(channel.getId(), channel)) {
            channel.removed();
            server.notifyChannelRemoved(channel.getId());
        }
    }

    /**
     * Collects the channel and its existing wildcard ancestors, nearest first.
     *
     * @param id a channel without wildcard
     * @return the channels whose subscribers and listeners a publish to {@code id} reaches
     */
    List<ServerChannelImpl> matching(ChannelId id) {
        List<ServerChannelImpl> result = new ArrayList<>(4);
        ServerChannelImpl exact = channels.get(id.name());
        if (exact != null) {
            result.add(exact);
        }
        for (String wildcard : id.wildcardNames()) {
            ServerChannelImpl channel = channels.get(wildcard);
            if (channel != null) {
                result.add(channel);
            }
        }
        return result;
    }

    void sweep() {
        for (ServerChannelImpl channel : channels.values()) {
            if (channel.sweepable()) {
                remove(channel);
            }
        }
    }
}
