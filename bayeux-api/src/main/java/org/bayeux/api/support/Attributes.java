package org.bayeux.api.support;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Named values attached to a session or a channel: the one holder behind every {@code getAttribute},
 * {@code setAttribute}, {@code removeAttribute} and {@code getAttributeNames} of the server's sessions and channels and
 * of the Java client. The map is allocated on first use, so idle sessions stay small. Safe for concurrent use.
 */
public final class Attributes {
    private volatile Map<String, Object> values;

    /** Creates an empty holder; its map is allocated when the first value is set. */
    public Attributes() {
    }

    private Map<String, Object> values(boolean create) {
        Map<String, Object> map = values;
        if (map == null && create) {
            synchronized (this) {
                map = values;
                if (map == null) {
                    map = new ConcurrentHashMap<>(4);
                    values = map;
                }
            }
        }
        return map;
    }

    /**
     * @param name the name
     * @return the value, or null
     */
    public Object get(String name) {
        Map<String, Object> map = values(false);
        return map == null ? null : map.get(name);
    }

    /**
     * @param name the name
     * @param value the value; null removes the attribute
     */
    public void set(String name, Object value) {
        if (value == null) {
            remove(name);
        } else {
            values(true).put(name, value);
        }
    }

    /**
     * @param name the name
     * @return the removed value, or null
     */
    public Object remove(String name) {
        Map<String, Object> map = values(false);
        return map == null ? null : map.remove(name);
    }

    /** @return the names set now */
    public Set<String> names() {
        Map<String, Object> map = values(false);
        return map == null ? Set.of() : Set.copyOf(map.keySet());
    }
}
