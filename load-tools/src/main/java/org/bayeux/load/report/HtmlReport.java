package org.bayeux.load.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A self-contained HTML page (inline SVG, no script, no external file) from a run's {@code result.json} content: the
 * summary, the latency distribution by percentile, and the rates and latency over time.
 */
public final class HtmlReport {
    private static final int WIDTH = 760;
    private static final int HEIGHT = 300;
    private static final int MARGIN = 50;

    private HtmlReport() {
    }

    /**
     * @param result the run's result, as written to result.json
     * @return the page
     */
    @SuppressWarnings("unchecked")
    public static String render(Map<String, Object> result) {
        Map<String, Object> latency = (Map<String, Object>) result.getOrDefault("latency", Map.of());
        Map<String, Object> messages = (Map<String, Object>) result.getOrDefault("messages", Map.of());
        List<Map<String, Object>> percentiles = (List<Map<String, Object>>) result.getOrDefault("percentiles",
                List.of());
        List<Map<String, Object>> timeline = (List<Map<String, Object>>) result.getOrDefault("timeline", List.of());
        StringBuilder html = new StringBuilder(16_384);
        html.append("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Bayeux load report: ")
                .append(escape(String.valueOf(result.get("label"))))
                .append("</title>\n<style>body{font:14px/1.4 system-ui,sans-serif;max-width:820px;margin:2em auto;"
                        + "padding:0 1em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px;"
                        + "text-align:right}th{text-align:left}svg{background:#fafafa;border:1px solid #ddd}"
                        + "pre{background:#f4f4f4;padding:8px;overflow:auto}</style></head><body>\n");
        html.append("<h1>Bayeux load report</h1>\n<p>").append(escape(String.valueOf(result.get("label"))))
                .append("</p>\n");
        html.append("<h2>Summary</h2>\n<table>");
        row(html, "p50 (ms)", latency.get("p50"));
        row(html, "p90 (ms)", latency.get("p90"));
        row(html, "p99 (ms)", latency.get("p99"));
        row(html, "p99.9 (ms)", latency.get("p99.9"));
        row(html, "max (ms)", latency.get("max"));
        row(html, "measured deliveries", latency.get("measuredDeliveries"));
        for (String key : List.of("published", "expected", "delivered", "lost", "duplicated", "errors")) {
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
        html.append("</table>\n");
        html.append("<h2>Latency distribution</h2>\n").append(percentileChart(percentiles));
        html.append("<h2>Rates over time</h2>\n").append(timeChart(timeline, List.of("sent", "received"),
                "messages/s"));
        html.append("<h2>Latency over time</h2>\n").append(timeChart(timeline, List.of("p50", "p99"), "ms"));
        html.append("<h2>Configuration, machine, JVM, client and server</h2>\n<pre>");
        for (String key : List.of("configuration", "machine", "jvm", "client", "serverBefore", "serverAfter")) {
            html.append(escape(key)).append(": ").append(escape(String.valueOf(result.get(key)))).append('\n');
        }
        html.append("</pre>\n</body></html>\n");
        return html.toString();
    }

    /** Latency against percentile, on a scale that opens up the tail: x = log10(1 / (1 - p)). */
    private static String percentileChart(List<Map<String, Object>> points) {
        if (points.isEmpty()) {
            return "<p>No latency was measured.</p>\n";
        }
        double maxX = 5; // up to 99.999%
        double maxY = 0;
        List<double[]> xy = new ArrayList<>();
        for (Map<String, Object> point : points) {
            double percentile = ((Number) point.get("percentile")).doubleValue();
            double x = Math.min(maxX, Math.log10(1 / Math.max(1e-5, 1 - percentile / 100)));
            double y = ((Number) point.get("ms")).doubleValue();
            maxY = Math.max(maxY, y);
            xy.add(new double[] {x, y});
        }
        StringBuilder svg = frame(niceCeiling(maxY), "ms");
        double scaleY = niceCeiling(maxY);
        String[] labels = {"0%", "90%", "99%", "99.9%", "99.99%", "99.999%"};
        for (int i = 0; i < labels.length; i++) {
            double x = MARGIN + (WIDTH - 2 * MARGIN) * i / maxX;
            svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" "
                    + "text-anchor=\"middle\">%s</text>", x, HEIGHT - MARGIN + 16, labels[i]));
        }
        svg.append(polyline(xy, maxX, scaleY, "#1f77b4"));
        return svg.append("</svg>\n").toString();
    }

    private static String timeChart(List<Map<String, Object>> timeline, List<String> series, String unit) {
        if (timeline.isEmpty()) {
            return "<p>No timeline.</p>\n";
        }
        double maxX = 0;
        double maxY = 0;
        for (Map<String, Object> second : timeline) {
            maxX = Math.max(maxX, ((Number) second.get("t")).doubleValue());
            for (String name : series) {
                maxY = Math.max(maxY, ((Number) second.get(name)).doubleValue());
            }
        }
        double scaleY = niceCeiling(maxY);
        StringBuilder svg = frame(scaleY, unit);
        String[] colours = {"#1f77b4", "#d62728"};
        for (int s = 0; s < series.size(); s++) {
            List<double[]> xy = new ArrayList<>();
            for (Map<String, Object> second : timeline) {
                xy.add(new double[] {((Number) second.get("t")).doubleValue(),
                    ((Number) second.get(series.get(s))).doubleValue()});
            }
            svg.append(polyline(xy, Math.max(1, maxX), scaleY, colours[s % colours.length]));
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"12\" fill=\"%s\">%s</text>",
                    WIDTH - MARGIN - 120, MARGIN - 20 + 14 * s, colours[s % colours.length], series.get(s)));
        }
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">"
                + "time (s), 0 to %.0f</text>", WIDTH / 2, HEIGHT - MARGIN + 16, maxX));
        return svg.append("</svg>\n").toString();
    }

    private static StringBuilder frame(double maxY, String unit) {
        StringBuilder svg = new StringBuilder(String.format(Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">",
                WIDTH, HEIGHT, WIDTH, HEIGHT));
        svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>"
                        + "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>",
                MARGIN, HEIGHT - MARGIN, WIDTH - MARGIN, HEIGHT - MARGIN, MARGIN, MARGIN, MARGIN, HEIGHT - MARGIN));
        for (int i = 0; i <= 4; i++) {
            double y = HEIGHT - MARGIN - (HEIGHT - 2 * MARGIN) * i / 4.0;
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
                    + "stroke=\"#e3e3e3\"/><text x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%s</text>",
                    MARGIN, y, WIDTH - MARGIN, y, MARGIN - 4, y + 4, format(maxY * i / 4)));
        }
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"11\">%s</text>", 4, MARGIN - 10,
                escape(unit)));
        return svg;
    }

    private static String polyline(List<double[]> xy, double maxX, double maxY, String colour) {
        StringBuilder points = new StringBuilder();
        for (double[] p : xy) {
            double x = MARGIN + (WIDTH - 2 * MARGIN) * p[0] / maxX;
            double y = HEIGHT - MARGIN - (HEIGHT - 2 * MARGIN) * (maxY == 0 ? 0 : p[1] / maxY);
            points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
        }
        return "<polyline fill=\"none\" stroke=\"" + colour + "\" stroke-width=\"1.5\" points=\""
                + points.toString().trim() + "\"/>";
    }

    /** @return 1, 2 or 5 times a power of ten, at least {@code value} */
    static double niceCeiling(double value) {
        if (value <= 0) {
            return 1;
        }
        double power = Math.pow(10, Math.floor(Math.log10(value)));
        for (double step : new double[] {1, 2, 5, 10}) {
            if (step * power >= value) {
                return step * power;
            }
        }
        return 10 * power;
    }

    private static String format(double value) {
        return value == Math.rint(value) && Math.abs(value) < 1e15 ? String.format(Locale.ROOT, "%,.0f", value)
                : String.format(Locale.ROOT, "%.2f", value);
    }

    private static void row(StringBuilder html, String name, Object value) {
        html.append("<tr><th>").append(escape(name)).append("</th><td>").append(escape(String.valueOf(value)))
                .append("</td></tr>");
    }

    static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
