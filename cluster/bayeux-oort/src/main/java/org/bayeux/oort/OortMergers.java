package org.bayeux.oort;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Mergers for {@link OortObject#merge}: each makes one cluster-wide value of the parts, given this node's part first
 * and then the joined members' in member id order.
 */
public final class OortMergers {
    private OortMergers() {
    }

    /** @return the sum of the parts as longs (any {@code Number}; a peer's integers arrive as {@code Long}) */
    public static Function<List<? extends Number>, Long> sumLongs() {
        return parts -> {
            long sum = 0;
            for (Number part : parts) {
                sum += part.longValue();
            }
            return sum;
        };
    }

    /**
     * @param <V> the values' type
     * @return the union of the maps; on a key in several parts the first part's value wins (this node's)
     */
    public static <V> Function<List<Map<String, V>>, Map<String, V>> unionMaps() {
        return parts -> {
            Map<String, V> union = new LinkedHashMap<>();
            for (Map<String, V> part : parts) {
                part.forEach(union::putIfAbsent);
            }
            return Collections.unmodifiableMap(union);
        };
    }

    /**
     * @param <E> the elements' type
     * @return the lists one after the other, this node's first
     */
    public static <E> Function<List<List<E>>, List<E>> concatLists() {
        return parts -> {
            List<E> all = new ArrayList<>();
            parts.forEach(all::addAll);
            return Collections.unmodifiableList(all);
        };
    }

    /**
     * @param <E> the elements' type
     * @return the distinct elements of the lists, in the order first seen (this node's first)
     */
    public static <E> Function<List<List<E>>, List<E>> unionLists() {
        return parts -> {
            LinkedHashSet<E> union = new LinkedHashSet<>();
            parts.forEach(union::addAll);
            return List.copyOf(union);
        };
    }
}
