package org.bayeux.load.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.bayeux.load.report.SvgChart.Band;
import org.bayeux.load.report.SvgChart.Series;

/**
 * A self-contained HTML page (inline SVG, no script, no external file) from a run's {@code result.json} content: when
 * and from which commit it ran, the targets passed or failed, the summary, the latency distribution, and over time
 * (with the run's phases shaded) the publish rate, the delivery rate, the latency, the clients connected and the
 * errors, each on its own axis; then the server's statistics and the configuration.
 */
public final class HtmlReport {
    static final String STYLE = "<style>body{font:14px/1.4 system-ui,sans-serif;max-width:820px;margin:2em auto;"
            + "padding:0 1em}table{border-collapse:collapse;max-width:100%}td,th{border:1px solid #ccc;"
            + "padding:3px 8px;text-align:right;vertical-align:top}th{text-align:left}"
            + "td.text{text-align:left;white-space:pre-wrap;overflow-wrap:anywhere;word-break:break-word}"
            + "svg{background:#fafafa;border:1px solid #ddd;max-width:100%;height:auto}.pass{color:#080}"
            + ".fail{color:#c00;font-weight:bold}.note{color:#555}</style>";
    /** The phases, in order, with the result's boundary keys and their band colours. */
    private static final String[][] PHASES = {{"ramp-up", null, "connectedAt", "#c6dbef"},
        {"warm-up", "publishAt", "measureAt", "#fdd0a2"}, {"measured", "measureAt", "measureEndAt", "#c7e9c0"},
        {"drain", "measureEndAt", "drainEndAt", "#dadaeb"}};

    private HtmlReport() {
    }

    /**
     * @param result the run's result, as written to result.json (an outage run's, {@code "mode":"outage"}, gets the
     *               outage page: {@link OutageReport})
     * @return the page
     */
    @SuppressWarnings("unchecked")
    public static String render(Map<String, Object> result) {
        if ("outage".equals(result.get("mode"))) {
            return OutageReport.render(result);
        }
        Map<String, Object> latency = map(result.get("latency"));
        Map<String, Object> messages = map(result.get("messages"));
        List<Map<String, Object>> timeline = (List<Map<String, Object>>) result.getOrDefault("timeline", List.of());
        String label = String.valueOf(result.get("label"));
        StringBuilder html = new StringBuilder(32_768);
        html.append("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Bayeux load report: ")
                .append(escape(label)).append("</title>\n").append(STYLE).append("</head><body>\n");
        html.append("<h1>Bayeux load report</h1>\n<p>").append(escape(label)).append("</p>\n");
        html.append(runLine(result));
        html.append(targets(result));
        html.append("<h2>Summary</h2>\n<table>");
        row(html, "p50 (ms)", latency.get("p50"));
        row(html, "p90 (ms)", latency.get("p90"));
        row(html, "p99 (ms)", latency.get("p99"));
        row(html, "p99.9 (ms)", latency.get("p99.9"));
        row(html, "max (ms)", latency.get("max"));
        row(html, "measured deliveries", latency.get("measuredDeliveries"));
        for (String key : List.of("published", "refused", "expected", "delivered", "lost", "duplicated", "errors")) {
            row(html, key, messages.get(key));
        }
        for (String split : List.of("latencySameNode", "latencyCrossNode")) {
            // Several nodes: what crossing the cluster adds is the difference of these two.
            if (result.get(split) instanceof Map<?, ?> part) {
                String name = split.equals("latencySameNode") ? "same-node" : "cross-node";
                row(html, name + " p50 (ms)", part.get("p50"));
                row(html, name + " p99 (ms)", part.get("p99"));
                row(html, name + " deliveries", part.get("measuredDeliveries"));
            }
        }
        if (result.containsKey("serverHeapBytesPerClient")) {
            row(html, "server heap per idle client (bytes)", result.get("serverHeapBytesPerClient"));
        }
        if (result.containsKey("serverLoadCpuSeconds")) {
            row(html, "server CPU from the first publish (s)", result.get("serverLoadCpuSeconds"));
        }
        html.append("</table>\n");
        html.append("<h2>Latency distribution</h2>\n").append(SvgChart.percentiles(List.of(
                percentileSeries("latency", SvgChart.COLOURS[0], false,
                        (List<Map<String, Object>>) result.getOrDefault("percentiles", List.of())))));
        List<Band> bands = bands(map(result.get("phases")));
        html.append("<h2>Over time</h2>\n<p class=\"note\">Shaded: the run's phases (").append(phaseNames(bands))
                .append("). Each chart has its own axis. A gap in a line is a second without data (no delivery was "
                        + "measured in it: connecting, warm-up), not a zero.</p>\n");
        html.append("<h3>Publish rate</h3>\n").append(SvgChart.time("time since start (s)", "messages/s",
                List.of(timeSeries(timeline, "sent", "published/s", SvgChart.COLOURS[0])), bands));
        html.append("<h3>Delivery rate</h3>\n<p class=\"note\">Each message is delivered to every subscriber of its "
                + "room: this rate is the publish rate times the subscribers per room.</p>\n")
                .append(SvgChart.time("time since start (s)", "deliveries/s",
                        List.of(timeSeries(timeline, "received", "delivered/s", SvgChart.COLOURS[1])), bands));
        html.append("<h3>Latency</h3>\n").append(SvgChart.time("time since start (s)", "ms", List.of(
                timeSeries(timeline, "p50", "p50", SvgChart.COLOURS[0]),
                timeSeries(timeline, "p99", "p99", SvgChart.COLOURS[1])), bands));
        html.append("<h3>Clients connected</h3>\n");
        html.append(has(timeline, "clients") ? SvgChart.time("time since start (s)", "clients",
                List.of(timeSeries(timeline, "clients", "connected", SvgChart.COLOURS[2])), bands)
                : "<p class=\"note\">Not available: this result does not record the clients per second.</p>\n");
        html.append("<h3>Errors</h3>\n");
        html.append(has(timeline, "errors") ? SvgChart.time("time since start (s)", "errors/s",
                List.of(timeSeries(timeline, "errors", "errors/s", SvgChart.COLOURS[1])), bands)
                : "<p class=\"note\">Not available: this result does not record the errors per second.</p>\n");
        html.append(errorKinds(messages));
        html.append(server(result, bands));
        html.append("<h2>Configuration, machine, JVM and client</h2>\n");
        for (String key : List.of("configuration", "machine", "jvm", "client")) {
            html.append("<h3>").append(escape(key)).append("</h3>\n").append(keyValues(map(result.get(key))));
        }
        html.append("</body></html>\n");
        return html.toString();
    }

    /** The run's date, commit and machine, on one line under the title. */
    static String runLine(Map<String, Object> result) {
        Map<String, Object> run = map(result.get("run"));
        Map<String, Object> machine = map(result.get("machine"));
        return "<p class=\"run\">Run " + escape(String.valueOf(run.getOrDefault("date", "(date not recorded)")))
                + ", commit " + escape(String.valueOf(run.getOrDefault("commit", "unknown"))) + ", on "
                + escape(String.valueOf(machine.getOrDefault("host", "unknown host"))) + " ("
                + escape(String.valueOf(machine.getOrDefault("cores", "?"))) + " cores, "
                + escape(String.valueOf(machine.getOrDefault("os", "?"))) + ")</p>\n";
    }

    @SuppressWarnings("unchecked")
    private static String targets(Map<String, Object> result) {
        if (!(result.get("targets") instanceof List<?> targets) || targets.isEmpty()) {
            return "<p class=\"note\">No targets given (--target p99=50ms, lost=0, ...).</p>\n";
        }
        StringBuilder html = new StringBuilder("<h2>Targets</h2>\n<table><tr><th>target</th><th>limit</th>"
                + "<th>actual</th><th>result</th></tr>");
        for (Object item : targets) {
            Map<String, Object> target = (Map<String, Object>) item;
            boolean pass = Boolean.TRUE.equals(target.get("pass"));
            String unit = "ms".equals(target.get("unit")) ? " ms" : "";
            html.append("<tr><th>").append(escape(String.valueOf(target.get("name")))).append("</th><td>&le; ")
                    .append(escape(SvgChart.format(((Number) target.get("limit")).doubleValue()))).append(unit)
                    .append("</td><td>").append(escape(String.valueOf(target.get("actual")))).append(unit)
                    .append("</td><td class=\"").append(pass ? "pass\">PASS" : "fail\">FAIL").append("</td></tr>");
        }
        return html.append("</table>\n").toString();
    }

    private static String errorKinds(Map<String, Object> messages) {
        Map<String, Object> kinds = map(messages.get("errorsByKind"));
        if (kinds.isEmpty()) {
            return "<p>Errors by kind: " + (messages.containsKey("errorsByKind") ? "none" : "not recorded")
                    + ".</p>\n";
        }
        StringBuilder html = new StringBuilder("<table><tr><th>error kind (numbers as #)</th><th>count</th></tr>");
        kinds.forEach((kind, count) -> html.append("<tr><td class=\"text\">").append(escape(kind))
                .append("</td><td>").append(escape(String.valueOf(count))).append("</td></tr>"));
        return html.append("</table>\n").toString();
    }

    /**
     * The server's CPU and heap each second while publishing, or why not (said rather than drawn as zeros), and its
     * two samples, before and after.
     */
    @SuppressWarnings("unchecked")
    private static String server(Map<String, Object> result, List<Band> bands) {
        StringBuilder html = new StringBuilder("<h2>Server</h2>\n");
        List<Map<String, Object>> samples = (List<Map<String, Object>>) result.getOrDefault("serverTimeline",
                List.of());
        if (samples.size() < 2) {
            html.append("<p class=\"note\">The server's CPU and heap over time: not available (").append(
                    result.containsKey("serverTimeline") ? "the server did not answer /service/load/stats while the "
                            + "load ran: only the load servers have it, and the sampling needs two clients or more"
                            : "not recorded in this result").append(").</p>\n");
        } else {
            List<double[]> cpu = new ArrayList<>();
            List<double[]> heap = new ArrayList<>();
            for (int i = 0; i < samples.size(); i++) {
                double t = ((Number) samples.get(i).get("t")).doubleValue();
                heap.add(new double[] {t, ((Number) samples.get(i).get("heapUsedBytes")).doubleValue() / 1e6});
                if (i > 0) {
                    double t0 = ((Number) samples.get(i - 1).get("t")).doubleValue();
                    double used = ((Number) samples.get(i).get("cpuSeconds")).doubleValue()
                            - ((Number) samples.get(i - 1).get("cpuSeconds")).doubleValue();
                    cpu.add(new double[] {t, t > t0 ? 100 * used / (t - t0) : Double.NaN});
                }
            }
            html.append("<h3>Server CPU</h3>\n<p class=\"note\">Sampled each second while publishing; 100 % is one "
                    + "core.</p>\n").append(SvgChart.time("time since start (s)", "% of a core",
                            List.of(new Series("server CPU", SvgChart.COLOURS[3], cpu, false)), bands));
            html.append("<h3>Server heap used</h3>\n").append(SvgChart.time("time since start (s)", "MB",
                    List.of(new Series("heap used", SvgChart.COLOURS[4], heap, false)), bands));
        }
        for (String key : List.of("serverBefore", "serverAfter")) {
            Map<String, Object> stats = map(result.get(key));
            html.append("<h3>").append(key).append("</h3>\n");
            html.append(stats.isEmpty() ? "<p class=\"note\">Not reported: the server did not answer "
                    + "/service/load/stats (only the load servers do).</p>\n" : keyValues(stats));
        }
        return html.toString();
    }

    static String keyValues(Map<String, Object> values) {
        if (values.isEmpty()) {
            return "<p class=\"note\">Not recorded.</p>\n";
        }
        StringBuilder html = new StringBuilder("<table class=\"config\">");
        values.forEach((key, value) -> html.append("<tr><th>").append(escape(key)).append("</th><td class=\"text\">")
                .append(escape(String.valueOf(value))).append("</td></tr>"));
        return html.append("</table>\n").toString();
    }

    static List<Band> bands(Map<String, Object> phases) {
        return bands(PHASES, phases);
    }

    /**
     * @param table the phases, in order: name, the result's key where it starts (null: at 0), where it ends, colour
     * @param phases the result's phase boundaries, in seconds
     * @return a band per phase whose boundaries the result has
     */
    static List<Band> bands(String[][] table, Map<String, Object> phases) {
        List<Band> bands = new ArrayList<>();
        for (String[] phase : table) {
            Object from = phase[1] == null ? Double.valueOf(0) : phases.get(phase[1]);
            Object to = phases.get(phase[2]);
            if (from instanceof Number start && to instanceof Number end) {
                bands.add(new Band(phase[0], start.doubleValue(), end.doubleValue(), phase[3]));
            }
        }
        return bands;
    }

    private static String phaseNames(List<Band> bands) {
        if (bands.isEmpty()) {
            return "not recorded in this result";
        }
        return String.join(", ", bands.stream().map(Band::name).toList());
    }

    /** A column of the timeline; a missing or null value is NaN, a gap. */
    static Series timeSeries(List<Map<String, Object>> timeline, String key, String name, String colour) {
        return timeSeries(timeline, key, name, colour, false);
    }

    static Series timeSeries(List<Map<String, Object>> timeline, String key, String name, String colour,
            boolean dashed) {
        List<double[]> points = new ArrayList<>();
        for (Map<String, Object> second : timeline) {
            Object value = second.get(key);
            points.add(new double[] {((Number) second.get("t")).doubleValue(),
                value instanceof Number number ? number.doubleValue() : Double.NaN});
        }
        return new Series(name, colour, points, dashed);
    }

    static Series percentileSeries(String name, String colour, boolean dashed, List<Map<String, Object>> curve) {
        List<double[]> points = new ArrayList<>();
        for (Map<String, Object> point : curve) {
            double percentile = ((Number) point.get("percentile")).doubleValue();
            double x = Math.min(5, Math.log10(1 / Math.max(1e-5, 1 - percentile / 100)));
            points.add(new double[] {x, ((Number) point.get("ms")).doubleValue()});
        }
        return new Series(name, colour, points, dashed);
    }

    private static boolean has(List<Map<String, Object>> timeline, String key) {
        return !timeline.isEmpty() && timeline.get(0).containsKey(key);
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object value) {
        return value instanceof Map<?, ?> map ? (Map<String, Object>) map : Map.of();
    }

    private static void row(StringBuilder html, String name, Object value) {
        html.append("<tr><th>").append(escape(name)).append("</th><td>").append(escape(String.valueOf(value)))
                .append("</td></tr>");
    }

    static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    static String format(double value) {
        return String.format(Locale.ROOT, "%.2f", value);
    }
}
