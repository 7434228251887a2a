package org.bayeux.backplane.redis;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The fan-out streams and which channel goes to which: {@code <prefix>:fanout:{<n>}}, n from 0, chosen by
 * {@link String#hashCode()} of the channel name, which the Java language fixes, so that every node, whatever its
 * JVM, puts a channel in the same stream. The shard number is the key's hash tag: on a Redis Cluster each stream
 * lives on the master of its tag's slot.
 */
final class StreamShards {
    private final List<String> keys;
    private final Map<String, Integer> indexes = new HashMap<>();

    StreamShards(String prefix, int count) {
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
        return keys.get(Math.floorMod(channel.hashCode(), keys.size()));
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
