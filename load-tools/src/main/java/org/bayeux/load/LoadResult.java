package org.bayeux.load;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

/**
 * What a load run measured, and the run's configuration, machine and JVM: the content of {@code result.json} and of
 * the HTML report. With several nodes ({@code --url URL1,URL2}), {@code sameNodeMicros} and {@code crossNodeMicros} split
 * the latency by whether the publisher's node was the receiver's; both are null for one node.
 */
record LoadResult(LoadOptions options, Histogram latencyMicros, List<LatencyRecorder.Interval> timeline,
        long published, long refused, long expected, long delivered, long duplicated, long errors, String firstError,
        ResourceUsage client, Map<String, Object> serverBefore, Map<String, Object> serverAfter,
        Histogram sameNodeMicros, Histogram crossNodeMicros) {

    /** @return expected deliveries that never came */
    long lost() {
        return Math.max(0, expected - delivered);
    }

    /** @return whether every expected delivery arrived exactly once */
    boolean complete() {
        return lost() == 0 && duplicated == 0;
    }

    double percentileMillis(double percentile) {
        return percentileMillis(latencyMicros, percentile);
    }

    static double percentileMillis(Histogram micros, double percentile) {
        return micros.getTotalCount() == 0 ? 0 : LatencyRecorder.millis(micros.getValueAtPercentile(percentile));
    }

    /** @return whether the latency is split by node (several --url) */
    boolean byNode() {
        return sameNodeMicros != null && crossNodeMicros != null;
    }

    private static Map<String, Object> latencyMap(Histogram micros) {
        Map<String, Object> latency = new LinkedHashMap<>();
        latency.put("unit", "ms");
        latency.put("measuredDeliveries", micros.getTotalCount());
        latency.put("p50", percentileMillis(micros, 50));
        latency.put("p90", percentileMillis(micros, 90));
        latency.put("p99", percentileMillis(micros, 99));
        latency.put("p99.9", percentileMillis(micros, 99.9));
        latency.put("max", LatencyRecorder.millis(micros.getMaxValue()));
        return latency;
    }

    Map<String, Object> toMap() {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("label", options.label());
        map.put("configuration", configuration());
        map.put("machine", machine());
        map.put("jvm", jvm());
        map.put("latency", latencyMap(latencyMicros));
        if (byNode()) {
            // Same-node: the publisher's node is the receiver's; cross-node: the message went through the cluster.
            map.put("latencySameNode", latencyMap(sameNodeMicros));
            map.put("latencyCrossNode", latencyMap(crossNodeMicros));
        }
        Map<String, Object> counts = new LinkedHashMap<>();
        counts.put("published", published);
        counts.put("refused", refused);
        counts.put("expected", expected);
        counts.put("delivered", delivered);
        counts.put("lost", lost());
        counts.put("duplicated", duplicated);
        counts.put("errors", errors);
        counts.put("firstError", firstError);
        map.put("messages", counts);
        map.put("client", client.toMap());
        map.put("serverBefore", serverBefore);
        map.put("serverAfter", serverAfter);
        if (options.idle && serverBefore.get("heapUsedBytes") instanceof Number before
                && serverAfter.get("heapUsedBytes") instanceof Number after) {
            // The baseline was taken with the first client connected: the difference is the others'.
            map.put("serverHeapBytesPerClient",
                    (after.longValue() - before.longValue()) / Math.max(1, options.clients - 1));
        }
        double loadCpu = serverLoadCpuSeconds();
        if (!Double.isNaN(loadCpu)) {
            map.put("serverLoadCpuSeconds", Math.round(loadCpu * 100) / 100.0);
        }
        map.put("percentiles", percentileCurve());
        List<Map<String, Object>> seconds = new ArrayList<>();
        for (LatencyRecorder.Interval interval : timeline) {
            Map<String, Object> second = new LinkedHashMap<>();
            second.put("t", Math.round(interval.atSeconds() * 10) / 10.0);
            second.put("sent", interval.sent());
            second.put("received", interval.received());
            second.put("p50", interval.p50Millis());
            second.put("p99", interval.p99Millis());
            second.put("max", interval.maxMillis());
            seconds.add(second);
        }
        map.put("timeline", seconds);
        return map;
    }

    /**
     * @return the server's CPU seconds from the first publish to the end of the drain (the load's own cost, without
     *         the connecting), or NaN when the server did not report its CPU (idle mode, or not a load server)
     */
    double serverLoadCpuSeconds() {
        if (!options.idle && serverBefore.get("processCpuSeconds") instanceof Number before
                && serverAfter.get("processCpuSeconds") instanceof Number after) {
            return after.doubleValue() - before.doubleValue();
        }
        return Double.NaN;
    }

    private Map<String, Object> configuration() {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("url", options.url().toString());
        map.put("urls", options.urls.stream().map(java.net.URI::toString).toList());
        map.put("transport", options.transport.toString());
        map.put("client", options.client.toString());
        map.put("clients", options.clients);
        map.put("rooms", options.rooms);
        map.put("roomsPerClient", options.roomsPerClient);
        map.put("ratePerSecond", options.rate);
        map.put("sizeBytes", options.sizeBytes);
        map.put("batch", options.batch);
        map.put("publishers", options.publishers);
        map.put("rampUp", options.rampUp.toString());
        map.put("warmUp", options.warmUp.toString());
        map.put("duration", options.duration.toString());
        map.put("drain", options.drain.toString());
        map.put("maxPending", options.maxPending);
        map.put("idle", options.idle);
        map.put("sourceAddresses", options.sourceAddresses);
        map.put("threads", options.threads);
        return map;
    }

    private static Map<String, Object> machine() {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("cores", Runtime.getRuntime().availableProcessors());
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            map.put("memoryBytes", os.getTotalMemorySize());
        }
        map.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch"));
        return map;
    }

    private static Map<String, Object> jvm() {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("version", System.getProperty("java.vm.version"));
        map.put("vendor", System.getProperty("java.vm.vendor"));
        map.put("arguments", ManagementFactory.getRuntimeMXBean().getInputArguments());
        map.put("maxHeapBytes", Runtime.getRuntime().maxMemory());
        return map;
    }

    /** The latency at each percentile, for the distribution chart: finer towards the tail. */
    private List<Map<String, Object>> percentileCurve() {
        List<Map<String, Object>> points = new ArrayList<>();
        if (latencyMicros.getTotalCount() == 0) {
            return points;
        }
        for (HistogramIterationValue value : latencyMicros.percentiles(5)) {
            double percentile = value.getPercentileLevelIteratedTo();
            points.add(Map.of("percentile", percentile,
                    "ms", LatencyRecorder.millis(value.getValueIteratedTo())));
            if (percentile >= 100.0) {
                break;
            }
        }
        return points;
    }
}
