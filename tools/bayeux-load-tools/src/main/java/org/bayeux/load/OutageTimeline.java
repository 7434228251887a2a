package org.bayeux.load;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * An outage run's clock and its samples, about one a second, for the report: what was published, delivered (unique)
 * and recovered in each sample, the subscribers connected at its end, and the errors in it. Counts, not rates: the
 * last sample, at the end of the drain, is shorter than a second, and the report divides by each sample's length.
 */
final class OutageTimeline {
    private final long startedNanos = System.nanoTime();
    /** Unique deliveries, all subscribers. */
    private final AtomicLong delivered = new AtomicLong();
    /** Missed messages that arrived after their subscriber's reconnection, all subscribers. */
    private final AtomicLong recovered = new AtomicLong();
    private final LongSupplier published;
    private final LongSupplier errors;
    private final IntSupplier connected;
    /** Guarded by itself. */
    private final List<Map<String, Object>> samples = new ArrayList<>();
    /** Published, delivered, recovered and errors at the last sample. Guarded by {@link #samples}. */
    private long[] last = new long[4];

    /**
     * @param published the messages published so far
     * @param errors the errors so far
     * @param connected the subscribers connected now
     */
    OutageTimeline(LongSupplier published, LongSupplier errors, IntSupplier connected) {
        this.published = published;
        this.errors = errors;
        this.connected = connected;
    }

    void delivered() {
        delivered.incrementAndGet();
    }

    void recovered() {
        recovered.incrementAndGet();
    }

    /** Ends the current sample and starts the next. */
    void sample() {
        int clients = connected.getAsInt();
        long[] now = {published.getAsLong(), delivered.get(), recovered.get(), errors.getAsLong()};
        Map<String, Object> sample = new LinkedHashMap<>();
        sample.put("t", seconds(System.nanoTime()));
        synchronized (samples) {
            sample.put("sent", now[0] - last[0]);
            sample.put("received", now[1] - last[1]);
            sample.put("recovered", now[2] - last[2]);
            sample.put("clients", clients);
            sample.put("errors", now[3] - last[3]);
            last = now;
            samples.add(sample);
        }
    }

    /** @return the samples so far, as result.json's {@code timeline} */
    List<Map<String, Object>> samples() {
        synchronized (samples) {
            return new ArrayList<>(samples);
        }
    }

    /**
     * @param nanos a moment ({@link System#nanoTime()}), or 0 for one that has not come
     * @return seconds since the run started, to a tenth; null for a moment that has not come
     */
    Double seconds(long nanos) {
        return nanos == 0 ? null : Math.round((nanos - startedNanos) / 1e8) / 10.0;
    }
}
