package org.bayeux.load.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.bayeux.load.report.SvgChart.Series;

/**
 * The page of {@code bin/bayeux load compare}: the medians and ratios, then every round of every server overlaid (one
 * colour per server, one dash style per round) on the latency distribution, the latency over time and the delivery
 * rate, and a link to each run's own report.
 */
public final class CompareReport {
    private CompareReport() {
    }

    /**
     * @param results each server's results, round by round, as written to their result.json
     * @param comparison the comparison, as written to comparison.json (its medians and ratios)
     * @return the page
     */
    @SuppressWarnings("unchecked")
    public static String render(Map<String, List<Map<String, Object>>> results, Map<String, Object> comparison) {
        StringBuilder html = new StringBuilder(32_768);
        html.append("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Bayeux load comparison"
                + "</title>\n").append(HtmlReport.STYLE).append("</head><body>\n<h1>Bayeux load comparison</h1>\n");
        html.append("<p>Servers: ").append(HtmlReport.escape(String.join(", ", results.keySet()))).append("; ")
                .append(results.values().stream().mapToInt(List::size).max().orElse(0)).append(" rounds each.</p>\n");
        results.values().stream().filter(list -> !list.isEmpty()).findFirst()
                .ifPresent(first -> html.append(HtmlReport.runLine(first.get(0))));
        Map<String, Object> medians = HtmlReport.map(comparison.get("medians"));
        html.append("<h2>Medians over the rounds</h2>\n<table><tr><th>figure</th>");
        List<String> figures = new ArrayList<>();
        for (String server : medians.keySet()) {
            html.append("<th>").append(HtmlReport.escape(server)).append("</th>");
            HtmlReport.map(medians.get(server)).keySet().stream().filter(figure -> !figures.contains(figure))
                    .forEach(figures::add);
        }
        html.append("</tr>");
        for (String figure : figures) {
            html.append("<tr><th>").append(HtmlReport.escape(figure)).append("</th>");
            for (String server : medians.keySet()) {
                Object value = HtmlReport.map(medians.get(server)).get(figure);
                html.append("<td>").append(value instanceof Number number ? HtmlReport.format(number.doubleValue())
                        : "").append("</td>");
            }
            html.append("</tr>");
        }
        html.append("</table>\n<p class=\"note\">Latency in ms, CPU in seconds.</p>\n");
        html.append("<h2>Ratios</h2>\n<p class=\"note\">cometd/bayeux above 1: ours is lower (better); "
                + "&lt;server&gt;/floor: times the floor's.</p>\n")
                .append(HtmlReport.keyValues(HtmlReport.map(comparison.get("ratios"))));
        List<Series> distribution = new ArrayList<>();
        List<Series> latency = new ArrayList<>();
        List<Series> rate = new ArrayList<>();
        int s = 0;
        for (Map.Entry<String, List<Map<String, Object>>> server : results.entrySet()) {
            String colour = SvgChart.COLOURS[s++ % SvgChart.COLOURS.length];
            int round = 1;
            for (Map<String, Object> result : server.getValue()) {
                String name = server.getKey() + " round " + round;
                boolean dashed = round % 2 == 0;
                List<Map<String, Object>> timeline = (List<Map<String, Object>>) result.getOrDefault("timeline",
                        List.of());
                distribution.add(HtmlReport.percentileSeries(name, colour, dashed,
                        (List<Map<String, Object>>) result.getOrDefault("percentiles", List.of())));
                latency.add(HtmlReport.timeSeries(timeline, "p99", name + " p99", colour, dashed));
                rate.add(HtmlReport.timeSeries(timeline, "received", name, colour, dashed));
                round++;
            }
        }
        html.append("<h2>Latency distribution, every round</h2>\n").append(SvgChart.percentiles(distribution));
        html.append("<h2>p99 over time, every round</h2>\n<p class=\"note\">Gaps: seconds without a measured "
                + "delivery (connecting, warm-up).</p>\n")
                .append(SvgChart.time("time since the run's start (s)", "ms", latency, List.of()));
        html.append("<h2>Delivery rate, every round</h2>\n")
                .append(SvgChart.time("time since the run's start (s)", "deliveries/s", rate, List.of()));
        html.append("<h2>Each run's report</h2>\n<ul>");
        for (Map.Entry<String, List<Map<String, Object>>> server : results.entrySet()) {
            for (int round = 1; round <= server.getValue().size(); round++) {
                String path = "round-" + round + "/" + server.getKey() + "/report.html";
                html.append("<li><a href=\"").append(HtmlReport.escape(path)).append("\">")
                        .append(HtmlReport.escape(server.getKey() + " round " + round)).append("</a></li>");
            }
        }
        return html.append("</ul>\n</body></html>\n").toString();
    }
}
