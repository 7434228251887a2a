package org.bayeux.load.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.bayeux.load.report.SvgChart.Band;

/**
 * The HTML page of an outage run ({@code bin/bayeux load --outage}), from its {@code result.json} content: whether
 * everything missed was recovered, once and in order; the recovery figures (recovered share, recovery time from the
 * reconnection to the last missed message, reconnection delay after the outage, {@code recovered} flags); the message
 * counts; and over time, with the outage shaded among the run's phases, the publish rate, the unique deliveries, the
 * missed messages arriving, the subscribers connected and the errors. Self-contained like {@link HtmlReport}.
 */
final class OutageReport {
    /** The phases, in order, with the result's boundary keys and their band colours. */
    private static final String[][] PHASES = {{"ramp-up", null, "connectedAt", "#c6dbef"},
        {"warm-up", "connectedAt", "cutAt", "#fdd0a2"}, {"outage", "cutAt", "restoredAt", "#fc9272"},
        {"restored", "restoredAt", "publishEndAt", "#c7e9c0"}, {"drain", "publishEndAt", "drainEndAt",
            "#dadaeb"}};

    private OutageReport() {
    }

    @SuppressWarnings("unchecked")
    static String render(Map<String, Object> result) {
        Map<String, Object> messages = HtmlReport.map(result.get("messages"));
        Map<String, Object> recovery = HtmlReport.map(result.get("recovery"));
        List<Map<String, Object>> timeline = (List<Map<String, Object>>) result.getOrDefault("timeline", List.of());
        String label = String.valueOf(result.get("label"));
        StringBuilder html = new StringBuilder(32_768);
        html.append("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Bayeux outage report: ")
                .append(HtmlReport.escape(label)).append("</title>\n").append(HtmlReport.STYLE)
                .append("</head><body>\n");
        html.append("<h1>Bayeux load report: recovery after an outage</h1>\n<p>").append(HtmlReport.escape(label))
                .append("</p>\n").append(HtmlReport.runLine(result));
        boolean complete = Boolean.TRUE.equals(result.get("complete"));
        html.append("<p class=\"verdict ").append(complete ? "pass\">COMPLETE: every subscriber reconnected and got "
                + "every message once, in order, every missed one recovered" : "fail\">INCOMPLETE: a subscriber did not "
                + "reconnect, or a message was lost, duplicated, out of order, refused or not recovered").append(
                        "</p>\n");

        html.append("<h2>Recovery</h2>\n<p class=\"note\">Missed: the messages of a subscriber's rooms published "
                + "before its first sign of life after the outage and not received by then. Recovery time: from that "
                + "reconnection to the last missed message's arrival, for the subscribers that missed any.</p>\n<table>");
        row(html, "recovered (%)", recovery.get("recoveredPercent"));
        row(html, "recovered / missed", recovery.get("recovered") + " / " + recovery.get("missed"));
        row(html, "subscribers reconnected", recovery.get("subscribersReconnected"));
        row(html, "subscribers not reconnected", recovery.get("subscribersNotReconnected"));
        row(html, "subscribers fully recovered", recovery.get("subscribersFullyRecovered"));
        row(html, "missed per subscriber min / mean / max", recovery.get("missedPerSubscriberMin") + " / "
                + recovery.get("missedPerSubscriberMean") + " / " + recovery.get("missedPerSubscriberMax"));
        row(html, "recovery time p50 (ms)", recovery.get("recoveryMillisP50"));
        row(html, "recovery time p99 (ms)", recovery.get("recoveryMillisP99"));
        row(html, "recovery time max (ms)", recovery.get("recoveryMillisMax"));
        row(html, "subscribers timed", recovery.get("recoveryMeasuredSubscribers"));
        row(html, "reconnection after the outage p50 (ms)", recovery.get("reconnectAfterRestoreMillisP50"));
        row(html, "reconnection after the outage p99 (ms)", recovery.get("reconnectAfterRestoreMillisP99"));
        row(html, "recovered flags true / false", recovery.get("recoveredFlagTrue") + " / "
                + recovery.get("recoveredFlagFalse"));
        row(html, "subscribers without a flag", recovery.get("subscribersWithoutFlag"));
        row(html, "connections reset by the proxies", recovery.get("proxyResets"));
        html.append("</table>\n");

        html.append("<h2>In order, once</h2>\n<table>");
        for (String key : List.of("published", "refused", "expected", "delivered", "lost", "duplicated",
                "outOfOrder")) {
            row(html, key, messages.get(key));
        }
        row(html, "order checked by", messages.get("orderCheckedBy"));
        row(html, "errors", result.get("errors"));
        row(html, "first error", result.get("firstError") == null ? "none" : result.get("firstError"));
        html.append("</table>\n");
        if (result.get("firstDuplicates") instanceof List<?> duplicates && !duplicates.isEmpty()) {
            html.append("<h3>First duplicates</h3>\n");
            for (Object duplicate : duplicates) {
                html.append(HtmlReport.keyValues(HtmlReport.map(duplicate)));
            }
        }

        List<Band> bands = bands(HtmlReport.map(result.get("phases")));
        html.append("<h2>Over time</h2>\n<p class=\"note\">Shaded: the run's phases (")
                .append(bands.isEmpty() ? "not recorded in this result"
                        : String.join(", ", bands.stream().map(Band::name).toList()))
                .append("); during the outage every subscriber's connection is reset and new ones refused, while "
                        + "the publishers, connected directly, go on; \"restored\" is the publishing after it. Each "
                        + "chart has its own axis; each point is the sample (about a second) that ends there.</p>\n");
        if (timeline.isEmpty()) {
            html.append("<p class=\"note\">Not available: this result does not record the run second by second."
                    + "</p>\n");
        } else {
            html.append("<h3>Publish rate</h3>\n").append(chart(timeline, "sent", "published/s", "messages/s", 0,
                    bands));
            html.append("<h3>Deliveries</h3>\n<p class=\"note\">Unique deliveries to the subscribers (each message "
                    + "once per subscriber of its room); none arrive during the outage.</p>\n")
                    .append(chart(timeline, "received", "delivered/s", "deliveries/s", 1, bands));
            html.append("<h3>Missed messages arriving</h3>\n<p class=\"note\">The messages published while a "
                    + "subscriber was away, as they reach it after its reconnection (recovery).</p>\n")
                    .append(chart(timeline, "recovered", "recovered/s", "messages/s", 2, bands));
            html.append("<h3>Subscribers connected</h3>\n").append(chart(timeline, "clients", "connected",
                    "subscribers", 3, bands));
            html.append("<h3>Errors</h3>\n").append(chart(timeline, "errors", "errors/s", "errors/s", 1, bands));
        }
        html.append("<h2>Configuration, machine and JVM</h2>\n");
        for (String key : List.of("configuration", "machine", "jvm")) {
            html.append("<h3>").append(HtmlReport.escape(key)).append("</h3>\n")
                    .append(HtmlReport.keyValues(HtmlReport.map(result.get(key))));
        }
        return html.append("</body></html>\n").toString();
    }

    private static String chart(List<Map<String, Object>> timeline, String key, String name, String unit,
            int colour, List<Band> bands) {
        return SvgChart.time("time since start (s)", unit,
                List.of(new SvgChart.Series(name, SvgChart.COLOURS[colour], points(timeline, key), false)), bands);
    }

    /**
     * One column of the timeline as points. A count (sent, received, recovered, errors) is divided by its sample's
     * length, so that the last sample, cut short by the end of the run, is a rate like the others; a level (clients)
     * is drawn as it is.
     */
    static List<double[]> points(List<Map<String, Object>> timeline, String key) {
        boolean count = !"clients".equals(key);
        List<double[]> points = new ArrayList<>();
        double previous = 0;
        for (Map<String, Object> sample : timeline) {
            double t = ((Number) sample.get("t")).doubleValue();
            double value = sample.get(key) instanceof Number number ? number.doubleValue() : Double.NaN;
            points.add(new double[] {t, !count ? value : t > previous ? value / (t - previous) : Double.NaN});
            previous = t;
        }
        return points;
    }

    static List<Band> bands(Map<String, Object> phases) {
        return HtmlReport.bands(PHASES, phases);
    }

    private static void row(StringBuilder html, String name, Object value) {
        html.append("<tr><th>").append(HtmlReport.escape(name)).append("</th><td>")
                .append(HtmlReport.escape(String.valueOf(value))).append("</td></tr>");
    }
}
