package org.bayeux.load;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Latency from a message's scheduled publish time to each delivery, in microseconds, recorded without locks from any
 * thread (HdrHistogram's {@link Recorder}), with a per-second timeline of rates and percentiles for the report.
 */
final class LatencyRecorder {
    /** Latencies up to an hour are recorded exactly to 3 significant digits; longer ones are clamped. */
    private static final long HIGHEST_MICROS = TimeUnit.HOURS.toMicros(1);

    private final Recorder recorder = new Recorder(HIGHEST_MICROS, 3);
    private final Histogram total = new Histogram(HIGHEST_MICROS, 3);
    private final LongAdder sent = new LongAdder();
    private final LongAdder received = new LongAdder();
    private final List<Interval> timeline = new ArrayList<>();
    private Histogram recycled;
    private long lastSent;
    private long lastReceived;

    /**
     * One second of the run; {@code measured} is how many of its deliveries were measured (none in the warm-up: its
     * percentiles are then 0 and mean "no data", which the report draws as a gap).
     */
    record Interval(double atSeconds, long sent, long received, double p50Millis, double p99Millis,
            double maxMillis, long measured) {
    }

    void sent(int messages) {
        sent.add(messages);
    }

    /** A delivery, measured or not (warm-up deliveries count in rates only). */
    void received(long latencyNanos, boolean measured) {
        received.increment();
        if (measured) {
            recorder.recordValue(Math.min(HIGHEST_MICROS, Math.max(0, latencyNanos / 1000)));
        }
    }

    /**
     * Closes the interval since the last call: adds it to the total and the timeline. Called by one thread, once a
     * second.
     *
     * @param atSeconds the time since the run started
     * @return the interval
     */
    synchronized Interval tick(double atSeconds) {
        recycled = recorder.getIntervalHistogram(recycled);
        total.add(recycled);
        long sentNow = sent.sum();
        long receivedNow = received.sum();
        Interval interval = new Interval(atSeconds, sentNow - lastSent, receivedNow - lastReceived,
                millis(recycled.getValueAtPercentile(50)), millis(recycled.getValueAtPercentile(99)),
                millis(recycled.getMaxValue()), recycled.getTotalCount());
        lastSent = sentNow;
        lastReceived = receivedNow;
        timeline.add(interval);
        return interval;
    }

    /** @return every latency measured so far (after a {@link #tick}) */
    synchronized Histogram total() {
        return total.copy();
    }

    synchronized List<Interval> timeline() {
        return List.copyOf(timeline);
    }

    static double millis(long micros) {
        return micros / 1000.0;
    }
}
