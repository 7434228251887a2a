package org.bayeux.standalone.admin;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongConsumer;

/**
 * The sampled delivery latencies of one interval, in fixed buckets: recording is one bucket search and two adder
 * updates (it runs on delivering threads); {@link #drain()} turns the interval into percentiles, each the upper bound
 * of the bucket its rank falls in (so "p99 2.5 ms" reads "99% of the samples took at most 2.5 ms").
 */
final class LatencyHistogram implements LongConsumer {
    /** Upper bounds of the buckets, in microseconds; beyond the last, the maximum seen is the bound. */
    private static final long[] BOUNDS_MICROS = {50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000,
        100_000, 250_000, 500_000, 1_000_000, 2_500_000, 5_000_000, 10_000_000};

    private final LongAdder[] counts = new LongAdder[BOUNDS_MICROS.length + 1];
    private final LongAccumulator max = new LongAccumulator(Math::max, 0);

    LatencyHistogram() {
        for (int i = 0; i < counts.length; i++) {
            counts[i] = new LongAdder();
        }
    }

    @Override
    public void accept(long nanos) {
        long micros = nanos / 1000;
        int bucket = 0;
        while (bucket < BOUNDS_MICROS.length && micros > BOUNDS_MICROS[bucket]) {
            bucket++;
        }
        counts[bucket].increment();
        max.accumulate(nanos);
    }

    /**
     * Takes the interval's samples and starts a new interval. Samples recorded while it runs count in this interval
     * or the next, never in both and never lost.
     *
     * @return {@code samples}, and {@code p50}, {@code p90}, {@code p99}, {@code max} in milliseconds (null when no
     *         sample came)
     */
    Map<String, Object> drain() {
        long[] taken = new long[counts.length];
        long total = 0;
        for (int i = 0; i < counts.length; i++) {
            taken[i] = counts[i].sumThenReset();
            total += taken[i];
        }
        double maxMillis = max.getThenReset() / 1e6;
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("samples", total);
        out.put("p50", percentile(taken, total, 0.50, maxMillis));
        out.put("p90", percentile(taken, total, 0.90, maxMillis));
        out.put("p99", percentile(taken, total, 0.99, maxMillis));
        out.put("max", total == 0 ? null : round(maxMillis));
        return out;
    }

    private static Double percentile(long[] counts, long total, double quantile, double maxMillis) {
        if (total == 0) {
            return null;
        }
        long rank = (long) Math.ceil(quantile * total);
        long seen = 0;
        for (int i = 0; i < counts.length; i++) {
            seen += counts[i];
            if (seen >= rank) {
                // Never above the largest sample: a bucket's bound can be far above what was seen.
                double bound = i < BOUNDS_MICROS.length ? BOUNDS_MICROS[i] / 1000.0 : maxMillis;
                return round(Math.min(bound, Math.max(maxMillis, 0.001)));
            }
        }
        return round(maxMillis);
    }

    private static double round(double millis) {
        return Math.round(millis * 1000) / 1000.0;
    }
}
