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
        Histogram sameNodeMicros, Histogram crossNodeMicros, RunRecord run) {

    /**
     * When the run started, where its phases began and ended (seconds since the start), the clients connected and the
     * errors so far at each second of the timeline, and the errors by kind.
     */
    record RunRecord(java.time.Instant startedAt, Map<String, Double> phases, List<long[]> connectedAndErrors,
            Map<String, Long> errorKinds, List<Map<String, Object>> serverSamples) {
    }

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
        map.put("run", runInfo());
        map.put("phases", run.phases());
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
        counts.put("errorsByKind", run.errorKinds());
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
        long errorsBefore = 0;
        for (int i = 0; i < timeline.size(); i++) {
            LatencyRecorder.Interval interval = timeline.get(i);
            Map<String, Object> second = new LinkedHashMap<>();
            second.put("t", Math.round(interval.atSeconds() * 10) / 10.0);
            second.put("sent", interval.sent());
            second.put("received", interval.received());
            // No measured delivery (connecting, warm-up): null, "no data", never 0 ms.
            boolean measured = interval.measured() > 0;
            second.put("measured", interval.measured());
            second.put("p50", measured ? interval.p50Millis() : null);
            second.put("p99", measured ? interval.p99Millis() : null);
            second.put("max", measured ? interval.maxMillis() : null);
            if (i < run.connectedAndErrors().size()) {
                long[] counts2 = run.connectedAndErrors().get(i);
                second.put("clients", counts2[0]);
                second.put("errors", counts2[1] - errorsBefore);
                errorsBefore = counts2[1];
            }
            seconds.add(second);
        }
        map.put("timeline", seconds);
        // The server's CPU and heap each second while publishing, when it answers the statistics service.
        map.put("serverTimeline", run.serverSamples());
        if (!options.targets.isEmpty()) {
            map.put("targets", Targets.evaluate(options.targets, map));
        }
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

    private Map<String, Object> runInfo() {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("date", run.startedAt().toString());
        map.put("commit", commit());
        return map;
    }

    /** @return the commit of the working directory's git checkout, or "unknown" (no git, not a checkout) */
    static String commit() {
        try {
            Process git = new ProcessBuilder("git", "rev-parse", "--short=12", "HEAD").redirectErrorStream(true)
                    .start();
            String line;
            try (java.io.BufferedReader reader = new java.io.BufferedReader(new java.io.InputStreamReader(
                    git.getInputStream(), java.nio.charset.StandardCharsets.UTF_8))) {
                line = reader.readLine();
            }
            if (!git.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
                git.destroyForcibly();
                return "unknown";
            }
            return git.exitValue() == 0 && line != null && line.matches("[0-9a-f]{7,40}") ? line : "unknown";
        } catch (java.io.IOException failure) {
            return "unknown";
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }

    static Map<String, Object> machine() {
        Map<String, Object> map = new LinkedHashMap<>();
        try {
            map.put("host", java.net.InetAddress.getLocalHost().getHostName());
        } catch (java.io.IOException unknown) {
            map.put("host", "unknown");
        }
        map.put("cores", Runtime.getRuntime().availableProcessors());
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            map.put("memoryBytes", os.getTotalMemorySize());
        }
        map.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch"));
        return map;
    }

    static Map<String, Object> jvm() {
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
