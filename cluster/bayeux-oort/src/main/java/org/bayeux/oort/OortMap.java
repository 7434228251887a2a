package org.bayeux.oort;

import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A map replicated across the cluster in parts ({@link OortObject}): each node puts and removes entries of its own
 * part only, each change is sent as one entry, and {@link #getMerged} and {@link #merge} give the union.
 *
 * <p>Keys are strings, because a part travels as a JSON object, whose keys are strings. Values are JSON values (a
 * peer reads integers as {@code Long}). Parts are immutable snapshots: each change copies this node's part, which
 * {@code oort.maxMessageBytes} keeps small.</p>
 *
 * @param <V> the values' type
 */
public final class OortMap<V> extends OortObject<Map<String, V>> {
    private OortMap(Oort oort, String name) {
        super(oort, name, Map.of());
    }

    /**
     * @param oort the node
     * @param name the map's name, the same on every node: letters, digits, '-', '_' or '.'
     * @param <V> the values' type
     * @return the map, with an empty part on this node, registered on the node
     */
    public static <V> OortMap<V> create(Oort oort, String name) {
        return new OortMap<>(oort, name);
    }

    /**
     * Puts an entry in this node's part and sends the change to every joined member.
     *
     * @param key the key
     * @param value the value, JSON-serialisable
     * @return the value before in this node's part, or null
     * @throws OortMessageTooLargeException if the part would be larger than {@code oort.maxMessageBytes}: unchanged
     */
    public V put(String key, V value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        Map<String, Object> delta = new HashMap<>();
        delta.put("op", "put");
        delta.put("key", key);
        delta.put("value", value);
        return update(part -> with(part, key, value), delta).get(key);
    }

    /**
     * Removes an entry from this node's part and sends the change to every joined member.
     *
     * @param key the key
     * @return the value removed from this node's part, or null (then nothing is sent)
     */
    public V remove(String key) {
        if (!getLocal().containsKey(key)) {
            return null;
        }
        Map<String, Object> delta = new HashMap<>();
        delta.put("op", "remove");
        delta.put("key", key);
        return update(part -> without(part, key), delta).get(key);
    }

    /**
     * @param key a key
     * @return its value in this node's part, else in the first joined member's part that has it (by member id), or
     *         null
     */
    public V get(String key) {
        for (Map<String, V> part : parts().values()) {
            V value = part.get(key);
            if (value != null) {
                return value;
            }
        }
        return null;
    }

    /** @return the union of every part this node knows; on a key in several parts, this node's value wins */
    public Map<String, V> getMerged() {
        return merge(OortMergers.unionMaps());
    }

    @Override
    protected Map<String, V> apply(Map<String, V> part, Map<String, Object> delta) {
        Object op = delta.get("op");
        if ("put".equals(op) && delta.get("key") instanceof String key) {
            return with(part, key, value(delta.get("value")));
        }
        if ("remove".equals(op) && delta.get("key") instanceof String key) {
            return without(part, key);
        }
        return super.apply(part, delta);
    }

    @Override
    @SuppressWarnings("unchecked")
    protected Map<String, V> fromJson(Object json) {
        if (!(json instanceof Map<?, ?> map)) {
            throw new IllegalArgumentException("An Oort map's part is a JSON object");
        }
        return Collections.unmodifiableMap(new LinkedHashMap<>((Map<String, V>) map));
    }

    @SuppressWarnings("unchecked")
    private V value(Object json) {
        return (V) json;
    }

    private static <V> Map<String, V> with(Map<String, V> part, String key, V value) {
        Map<String, V> copy = new LinkedHashMap<>(part);
        copy.put(key, value);
        return Collections.unmodifiableMap(copy);
    }

    private static <V> Map<String, V> without(Map<String, V> part, String key) {
        Map<String, V> copy = new LinkedHashMap<>(part);
        copy.remove(key);
        return Collections.unmodifiableMap(copy);
    }
}
