package org.bayeux.server;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * How many times each {@link Limit} refused a message since the engine was made, for monitoring. Counting is cheap
 * and contention-free; reading sums the counters.
 */
public final class LimitCounters {
    private final EnumMap<Limit, LongAdder> counters = new EnumMap<>(Limit.class);

    LimitCounters() {
        for (Limit limit : Limit.values()) {
            counters.put(limit, new LongAdder());
        }
    }

    void hit(Limit limit) {
        counters.get(limit).increment();
    }

    /**
     * @param limit a limit
     * @return how many messages it refused
     */
    public long get(Limit limit) {
        return counters.get(limit).sum();
    }

    /** @return every limit with its count, in declaration order */
    public Map<Limit, Long> snapshot() {
        EnumMap<Limit, Long> snapshot = new EnumMap<>(Limit.class);
        counters.forEach((limit, counter) -> snapshot.put(limit, counter.sum()));
        return Collections.unmodifiableMap(snapshot);
    }

    @Override
    public String toString() {
        return "LimitCounters" + snapshot();
    }
}
