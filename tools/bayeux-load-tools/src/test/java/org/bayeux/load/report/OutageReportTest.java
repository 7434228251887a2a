package org.bayeux.load.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * The outage page from synthetic results: chosen by {@code "mode":"outage"}, the outage shaded among the phases, the
 * recovery figures in their own section, an incomplete run said so with its duplicates, a short last sample drawn as a
 * rate, and an old result without a timeline said so rather than drawn empty. {@code LoadOutageTest} checks the page
 * of a real run.
 */
class OutageReportTest {
    private static Map<String, Object> result(boolean complete, boolean withTimeline) {
        List<Map<String, Object>> timeline = new ArrayList<>();
        // Samples end at 1..7 s and 7.5 s (the drain's end): 100 published in each second, 50 in the last half.
        for (double t : new double[] {1, 2, 3, 4, 5, 6, 7, 7.5}) {
            Map<String, Object> sample = new LinkedHashMap<>();
            sample.put("t", t);
            sample.put("sent", t == 7.5 ? 50 : 100);
            sample.put("received", t >= 3 && t <= 5 ? 0 : 1000);
            sample.put("recovered", t == 6 ? 4000 : 0);
            sample.put("clients", t >= 3 && t <= 5 ? 0 : 20);
            sample.put("errors", 0);
            timeline.add(sample);
        }
        Map<String, Object> recovery = new LinkedHashMap<>();
        recovery.put("subscribersReconnected", 20);
        recovery.put("subscribersNotReconnected", 0);
        recovery.put("missed", 4000);
        recovery.put("missedPerSubscriberMin", 190);
        recovery.put("missedPerSubscriberMean", 200.0);
        recovery.put("missedPerSubscriberMax", 210);
        recovery.put("recovered", complete ? 4000 : 3990);
        recovery.put("recoveredPercent", complete ? 100.0 : 99.75);
        recovery.put("recoveryMillisP50", 25.5);
        recovery.put("recoveryMillisP99", 119.1);
        recovery.put("recoveryMillisMax", 130.0);
        recovery.put("recoveredFlagTrue", 20);
        recovery.put("recoveredFlagFalse", 0);
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("mode", "outage");
        result.put("label", "outage <one>");
        result.put("run", Map.of("date", "2026-11-27T10:00:00Z", "commit", "abc123def456"));
        result.put("phases", Map.of("connectedAt", 1.0, "cutAt", 2.0, "restoredAt", 6.0, "publishEndAt", 7.0,
                "drainEndAt", 7.5));
        result.put("configuration", Map.of("outageMillis", 4000));
        result.put("messages", Map.of("published", 750, "outOfOrder", complete ? 0 : 3, "duplicated",
                complete ? 0 : 1, "orderCheckedBy", "ext.position offsets per channel"));
        result.put("recovery", recovery);
        result.put("firstDuplicates", complete ? List.of() : List.of(Map.of("subscriber", 7, "seq", 42)));
        result.put("errors", 0);
        result.put("complete", complete);
        if (withTimeline) {
            result.put("timeline", timeline);
        }
        return result;
    }

    @Test
    void anOutageRunGetsItsOwnPage() {
        String html = HtmlReport.render(result(true, true));

        assertThat(html).contains("<title>Bayeux outage report: outage &lt;one&gt;</title>")
                .contains("Run 2026-11-27T10:00:00Z, commit abc123def456")
                .contains("<p class=\"verdict pass\">COMPLETE")
                .contains("<h2>Recovery</h2>").contains("<tr><th>recovered (%)</th><td>100.0</td></tr>")
                .contains("<tr><th>recovered / missed</th><td>4000 / 4000</td></tr>")
                .contains("<tr><th>missed per subscriber min / mean / max</th><td>190 / 200.0 / 210</td></tr>")
                .contains("<tr><th>recovery time p50 (ms)</th><td>25.5</td></tr>")
                .contains("<tr><th>recovery time p99 (ms)</th><td>119.1</td></tr>")
                .contains("<h2>In order, once</h2>").contains("<tr><th>outOfOrder</th><td>0</td></tr>")
                .doesNotContain("First duplicates").doesNotContain("Latency distribution");
        for (String phase : List.of("ramp-up", "warm-up", "outage", "restored", "drain")) {
            assertThat(html).contains("<rect class=\"phase " + phase + "\"");
        }
        for (String chart : List.of("Publish rate", "Deliveries", "Missed messages arriving",
                "Subscribers connected", "Errors")) {
            assertThat(html).contains("<h3>" + chart + "</h3>");
        }
    }

    @Test
    void aShortLastSampleIsStillARateAndTheBandsAreTheResultsPhases() {
        assertThat(OutageReport.bands(Map.of("connectedAt", 1.0, "cutAt", 2.0, "restoredAt", 6.0)))
                .extracting(band -> band.name() + " " + band.from() + "-" + band.to())
                .containsExactly("ramp-up 0.0-1.0", "warm-up 1.0-2.0", "outage 2.0-6.0");
        // 50 messages in the last 0.5 s: 100/s like the others; the clients connected are a level, drawn as such.
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> timeline = (List<Map<String, Object>>) result(true, true).get("timeline");
        assertThat(OutageReport.points(timeline, "sent")).extracting(point -> point[1])
                .containsOnly(100.0).hasSize(8);
        assertThat(OutageReport.points(timeline, "clients")).extracting(point -> point[0] + " " + point[1])
                .startsWith("1.0 20.0", "2.0 20.0", "3.0 0.0").endsWith("7.5 20.0");
    }

    @Test
    void anIncompleteRunAndAnOldResultSaySo() {
        String html = HtmlReport.render(result(false, false));

        assertThat(html).contains("<p class=\"verdict fail\">INCOMPLETE")
                .contains("<tr><th>recovered (%)</th><td>99.75</td></tr>")
                .contains("<tr><th>duplicated</th><td>1</td></tr>").contains("<h3>First duplicates</h3>")
                .contains("Not available: this result does not record the run second by second.")
                .doesNotContain("<h3>Publish rate</h3>");
    }
}
