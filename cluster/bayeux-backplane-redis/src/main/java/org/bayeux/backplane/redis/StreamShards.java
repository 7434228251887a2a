package org.bayeux.backplane.redis;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The fan-out streams and which channel goes to which: {@code <prefix>:fanout:{<n>}}, n from 0, chosen by
 * {@link String#hashCode()} of the channel name, which the Java language fixes, so that every node, whatever its
 * JVM, puts a channel in the same stream. The shard number is the key's hash tag: on a Redis Cluster each stream
 * lives on the master of its tag's slot. A publish's idempotency key lives beside its channel's stream, scoped to its
 * publisher: {@code <prefix>:idem:{<n>}:<channel length>:<channel>:<publisher digest>:<key>}; so do its history
 * ({@code <prefix>:history:{<n>}:<channel length>:<channel>}, a stream) and its position
 * ({@code <prefix>:meta:{<n>}:<channel length>:<channel>}, a hash of epoch and last offset): one publish script
 * touches them all with the fan-out stream, which Redis Cluster allows only within one hash slot, and which makes the
 * fan-out order and the offsets one and the same.
 */
final class StreamShards {
    private final String prefix;
    private final List<String> keys;
    private final Map<String, Integer> indexes = new HashMap<>();

    StreamShards(String prefix, int count) {
        this.prefix = prefix;
        String[] names = new String[count];
        for (int shard = 0; shard < count; shard++) {
            names[shard] = prefix + ":fanout:{" + shard + "}";
            indexes.put(names[shard], shard);
        }
        this.keys = List.of(names);
    }

    int count() {
        return keys.size();
    }

    /** @return the stream a channel's messages go to */
    String keyOf(String channel) {
        return keys.get(shardOf(channel));
    }

    /**
     * @param publisher the publisher's digest ({@code HistoryCalls#publisherDigest}): another publisher's same key
     *        is another key
     * @return the key that remembers a publish's idempotency key on a channel: in the hash tag of the channel's
     *         stream, so that one script can check it and append (one slot on a Redis Cluster)
     */
    String idempotencyKeyOf(String channel, String publisher, String idempotencyKey) {
        return prefix + ":idem:{" + shardOf(channel) + "}:" + channel.length() + ":" + channel + ":" + publisher + ":"
                + idempotencyKey;
    }

    /** @return the hash of a shard's history bytes: one field per channel with history, and {@code total} */
    String historyBytesKeyOf(int shard) {
        return prefix + ":history-bytes:{" + shard + "}";
    }

    /** @return the sorted set of a shard's channels with history, by when their history expires (ms) */
    String historyExpiryKeyOf(int shard) {
        return prefix + ":history-expiry:{" + shard + "}";
    }

    /** @return what a history key of a shard starts with, before {@code <channel length>:<channel>} */
    String historyKeyPrefixOf(int shard) {
        return prefix + ":history:{" + shard + "}:";
    }

    /**
     * @return the marker a reader writes in its shard's slot before waiting for replicas
     *         ({@link RedisBackplaneConfig#MIN_REPLICAS}): the id of the last entry it read
     */
    String replicationMarkKeyOf(int shard) {
        return prefix + ":rmark:{" + shard + "}";
    }

    /** @return the hash holding a channel's epoch ({@code e}) and last offset ({@code o}) */
    String metaKeyOf(String channel) {
        return prefix + ":meta:{" + shardOf(channel) + "}:" + channel.length() + ":" + channel;
    }

    /** @return the stream holding a channel's history */
    String historyKeyOf(String channel) {
        return historyKeyPrefixOf(shardOf(channel)) + channel.length() + ":" + channel;
    }

    /** @return the hash of a channel's present sessions: session id to node id */
    String presenceKeyOf(String channel) {
        return prefix + ":presence:{" + shardOf(channel) + "}:" + channel.length() + ":" + channel;
    }

    /** @return the sorted set of a channel's present sessions by expiry time (ms) */
    String presenceExpiryKeyOf(String channel) {
        return prefix + ":presence-expiry:{" + shardOf(channel) + "}:" + channel.length() + ":" + channel;
    }

    /** @return the set of the channels with presence of a channel's shard */
    String presenceChannelsKey(String channel) {
        return presenceChannelsKeyOf(shardOf(channel));
    }

    /** @return the set of the channels with presence of a shard */
    String presenceChannelsKeyOf(int shard) {
        return prefix + ":presence-channels:{" + shard + "}";
    }

    /** @return the shard of a channel */
    int shardOf(String channel) {
        return Math.floorMod(channel.hashCode(), keys.size());
    }

    String key(int shard) {
        return keys.get(shard);
    }

    /** @return the shard of a stream key, or -1 if it is none of ours */
    int indexOf(String key) {
        Integer index = indexes.get(key);
        return index == null ? -1 : index;
    }
}
