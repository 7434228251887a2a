package org.bayeux.server;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

import org.bayeux.api.ChannelId;
import org.bayeux.api.server.ServerChannel;
import org.bayeux.server.config.BayeuxServerConfig;
import org.bayeux.server.internal.Callbacks;

/**
 * The channels of a server, by name, and the walk from a channel to its wildcard ancestors.
 *
 * <p>The walk builds no name: wildcard channels are also indexed by the prefix they cover ({@link WildcardKey}), and
 * a channel's prefixes are looked up as offsets into its own name with hashes computed in one pass, so that the work
 * is linear in the name's length (one string per prefix would be quadratic).</p>
 */
final class ChannelRegistry {
    private final BayeuxServerConfig config;
    private final EngineEvents events;
    private final PublishPath publishing;
    private final ConcurrentHashMap<String, ServerChannelImpl> channels = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<WildcardKey, ServerChannelImpl> wildcards = new ConcurrentHashMap<>();
    /** Creation is rare next to look-ups: one lock keeps initializers atomic and lets them create other channels. */
    private final Object creationLock = new Object();

    /**
     * @param config the engine's configuration, for channels' defaults
     * @param events told of channels added and removed, and of subscriptions
     * @param publishing where a channel's own {@code publish} goes
     */
    ChannelRegistry(BayeuxServerConfig config, EngineEvents events, PublishPath publishing) {
        this.config = config;
        this.events = events;
        this.publishing = publishing;
    }

    /** How a channel publishes: the engine's publisher, which in turn looks channels up here. */
    @FunctionalInterface
    interface PublishPath {
        CompletionStage<Boolean> publish(ServerSessionImpl sender, ServerChannelImpl channel, ServerMessageImpl message);
    }

    BayeuxServerConfig config() {
        return config;
    }

    EngineEvents events() {
        return events;
    }

    PublishPath publishing() {
        return publishing;
    }

    ServerChannelImpl get(String name) {
        return channels.get(name);
    }

    Collection<ServerChannel> all() {
        return List.copyOf(channels.values());
    }

    /** @return how many channels exist now */
    long size() {
        return channels.mappingCount();
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
            created = new ServerChannelImpl(this, id);
            for (ServerChannel.Initializer initializer : initializers) {
                Callbacks.run(initializer, () -> initializer.configureChannel(created));
            }
            channels.put(id.name(), created);
            if (id.isWildcard()) {
                wildcards.put(WildcardKey.of(id), created);
            }
        }
        events.channelAdded(created);
        return created;
    }

    void remove(ServerChannelImpl channel) {
        if (channels.remove(channel.getId(), channel)) {
            ChannelId id = channel.getChannelId();
            if (id.isWildcard()) {
                wildcards.remove(WildcardKey.of(id), channel);
            }
            channel.removed();
            events.channelRemoved(channel.getId());
        }
    }

    /**
     * Collects the channel and its existing wildcard ancestors, nearest first.
     *
     * @param id a channel without wildcard
     * @return the channels whose subscribers and listeners a publish to {@code id} reaches
     */
    List<ServerChannelImpl> matching(ChannelId id) {
        return covering(id);
    }

    /**
     * Collects a channel, if it exists, and the existing wildcard channels that cover it, nearest first: for
     * {@code /a/b} they are {@code /a/*}, {@code /a/**} and {@code /**}; for {@code /a/b/*} they are {@code /a/b/**},
     * {@code /a/**} and {@code /**}; for {@code /a/**} only {@code /**}.
     *
     * @param id any channel
     * @return the channel and the wildcards covering it that exist now
     */
    List<ServerChannelImpl> covering(ChannelId id) {
        List<ServerChannelImpl> result = new ArrayList<>(4);
        addIfPresent(result, channels.get(id.name()));
        if (wildcards.isEmpty()) {
            return result;
        }
        String name = id.name();
        int depth = id.depth();
        // The hash String.hashCode() would give each prefix, computed in one pass over the name.
        int[] prefixHashes = new int[depth];
        int hash = 0;
        for (int count = 1; count < depth; count++) {
            for (int i = id.prefixLength(count - 1); i < id.prefixLength(count); i++) {
                hash = 31 * hash + name.charAt(i);
            }
            prefixHashes[count] = hash;
        }
        int deepest;
        switch (id.wildcard()) {
            case NONE:
                addIfPresent(result, wildcards.get(new WildcardKey(name, id.prefixLength(depth - 1), false,
                        prefixHashes[depth - 1])));
                deepest = depth - 1;
                break;
            case SINGLE:
                deepest = depth - 1;
                break;
            default:
                deepest = depth - 2;
        }
        for (int count = deepest; count >= 0; count--) {
            addIfPresent(result, wildcards.get(new WildcardKey(name, id.prefixLength(count), true,
                    prefixHashes[count])));
        }
        return result;
    }

    private static void addIfPresent(List<ServerChannelImpl> result, ServerChannelImpl channel) {
        if (channel != null) {
            result.add(channel);
        }
    }

    void sweep() {
        for (ServerChannelImpl channel : channels.values()) {
            if (channel.sweepable()) {
                remove(channel);
            }
        }
    }

    /**
     * A wildcard channel as the prefix it covers and its kind: {@code /a/b/*} is the first 4 characters of its name,
     * single. Look-ups use the same class over a prefix of the published channel's name, so no prefix is copied.
     */
    static final class WildcardKey {
        private final String source;
        private final int length;
        private final boolean deep;
        private final int prefixHash;

        WildcardKey(String source, int length, boolean deep, int prefixHash) {
            this.source = source;
            this.length = length;
            this.deep = deep;
            this.prefixHash = prefixHash;
        }

        static WildcardKey of(ChannelId wildcard) {
            String name = wildcard.name();
            int length = wildcard.prefixLength(wildcard.depth() - 1);
            int hash = 0;
            for (int i = 0; i < length; i++) {
                hash = 31 * hash + name.charAt(i);
            }
            return new WildcardKey(name, length, wildcard.isDeepWildcard(), hash);
        }

        @Override
        public boolean equals(Object other) {
            if (!(other instanceof WildcardKey)) {
                return false;
            }
            WildcardKey key = (WildcardKey) other;
            return key.deep == deep && key.length == length && key.prefixHash == prefixHash
                    && source.regionMatches(0, key.source, 0, length);
        }

        @Override
        public int hashCode() {
            return deep ? ~prefixHash : prefixHash;
        }
    }
}
