package org.bayeux.load.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * The report and the comparison page from synthetic results: phase bands, ticks, gaps (not zeros) for the seconds
 * without measurements, the run's date and commit, targets, wrapped configuration, and both servers on the
 * comparison page.
 */
class HtmlReportTest {
    /** Seconds 1 and 2 are connecting and warm-up (no measured delivery), 3 to 6 measured, 7 the drain. */
    private static Map<String, Object> result(String label, double p99) {
        List<Map<String, Object>> timeline = new ArrayList<>();
        for (int t = 1; t <= 7; t++) {
            Map<String, Object> second = new LinkedHashMap<>();
            second.put("t", (double) t);
            second.put("sent", t >= 2 && t <= 6 ? 1000 : 0);
            second.put("received", t >= 2 && t <= 7 ? 100_000 : 0);
            boolean measured = t >= 3 && t <= 6;
            second.put("p50", measured ? p99 / 2 : null);
            second.put("p99", measured ? p99 : null);
            second.put("clients", t == 1 ? 50 : 100);
            second.put("errors", t == 4 ? 2 : 0);
            timeline.add(second);
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("label", label);
        result.put("run", Map.of("date", "2026-11-27T10:00:00Z", "commit", "abc123def456"));
        result.put("phases", Map.of("connectedAt", 1.0, "publishAt", 1.2, "measureAt", 2.2, "measureEndAt", 6.2,
                "drainEndAt", 6.9));
        result.put("machine", Map.of("host", "box", "cores", 2, "os", "Linux"));
        result.put("configuration", Map.of("urls", List.of("http://127.0.0.1:1/bayeux".repeat(20))));
        result.put("latency", Map.of("p50", p99 / 2, "p99", p99, "max", p99 * 2, "measuredDeliveries", 400_000));
        result.put("messages", Map.of("published", 5000, "lost", 0, "errors", 2,
                "errorsByKind", Map.of("client #: connect failed", 2)));
        result.put("percentiles", List.of(Map.of("percentile", 50.0, "ms", p99 / 2),
                Map.of("percentile", 99.0, "ms", p99), Map.of("percentile", 100.0, "ms", p99 * 2)));
        result.put("timeline", timeline);
        result.put("serverBefore", Map.of());
        result.put("serverAfter", Map.of("server", "bayeux", "heapUsedBytes", 1234));
        result.put("targets", List.of(
                Map.of("name", "p99", "unit", "ms", "limit", 50.0, "actual", p99, "pass", p99 <= 50),
                Map.of("name", "lost", "unit", "count", "limit", 0.0, "actual", 0, "pass", true)));
        return result;
    }

    @Test
    void theReportShowsPhasesTicksGapsDateCommitAndTargets() {
        String html = HtmlReport.render(result("run one", 80));

        for (String phase : List.of("ramp-up", "warm-up", "measured", "drain")) {
            assertThat(html).contains("<rect class=\"phase " + phase + "\"");
        }
        assertThat(html).contains("<g class=\"x-ticks\">").contains("<g class=\"y-ticks\">");
        assertThat(count(html, "<g class=\"x-ticks\">")).as("the distribution and five charts over time")
                .isEqualTo(6);
        // The publish and delivery rates (1,000/s and 100,000/s) have charts and axes of their own.
        assertThat(html).contains("<h3>Publish rate</h3>").contains("<h3>Delivery rate</h3>");
        assertThat(html).contains("Run 2026-11-27T10:00:00Z, commit abc123def456, on box (2 cores, Linux)");
        assertThat(html).contains("<td class=\"fail\">FAIL").contains("<td class=\"pass\">PASS");
        assertThat(html).contains("td.text{text-align:left;white-space:pre-wrap;overflow-wrap:anywhere");
        assertThat(html).contains("client #: connect failed");
        assertThat(html).contains("CPU and heap over time: not available");
        assertThat(html).contains("<h3>serverBefore</h3>\n<p class=\"note\">Not reported");
    }

    @Test
    void secondsWithoutMeasurementsAreAGapNotZero() {
        String html = HtmlReport.render(result("run one", 80));

        String p99 = group(html, "<g class=\"series\" data-name=\"p99\">(.*?)</g>");
        // One line through seconds 3 to 6 only: no point for seconds 1 and 2, and none at 0 ms (the x axis).
        assertThat(count(p99, "<polyline")).isEqualTo(1);
        String points = group(p99, "points=\"([^\"]*)\"");
        assertThat(points.split(" ")).hasSize(4);
        for (String point : points.split(" ")) {
            assertThat(Double.parseDouble(point.split(",")[1])).as("y of %s above the x axis", point)
                    .isLessThan(SvgChart.HEIGHT - 40.0);
        }
        // A gap in the middle splits the line in two.
        Map<String, Object> holed = result("holed", 80);
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> timeline = (List<Map<String, Object>>) holed.get("timeline");
        timeline.get(4).put("p99", null);
        String split = group(HtmlReport.render(holed), "<g class=\"series\" data-name=\"p99\">(.*?)</g>");
        assertThat(count(split, "<polyline")).isEqualTo(1);
        assertThat(count(split, "<circle")).as("the lone second 6").isEqualTo(1);
    }

    @Test
    void theServersCpuAndHeapOverTimeAreDrawnWhenSampled() {
        Map<String, Object> sampled = result("sampled", 10);
        sampled.put("serverTimeline", List.of(Map.of("t", 2.0, "cpuSeconds", 10.0, "heapUsedBytes", 50_000_000),
                Map.of("t", 3.0, "cpuSeconds", 10.5, "heapUsedBytes", 60_000_000),
                Map.of("t", 4.0, "cpuSeconds", 11.5, "heapUsedBytes", 55_000_000)));
        String html = HtmlReport.render(sampled);

        assertThat(html).contains("<h3>Server CPU</h3>").contains("<h3>Server heap used</h3>")
                .doesNotContain("CPU and heap over time: not available");
        assertThat(count(html, "<g class=\"x-ticks\">")).isEqualTo(8);
        // 0.5 s of CPU in one second, then 1 s: 50 % and 100 % of a core.
        String cpu = group(html, "<g class=\"series\" data-name=\"server CPU\">(.*?)</g>");
        assertThat(count(cpu, "<polyline")).isEqualTo(1);
        sampled.put("serverTimeline", List.of());
        assertThat(HtmlReport.render(sampled)).contains("CPU and heap over time: not available (the server did not "
                + "answer");
    }

    @Test
    void aResultWithoutTheNewSectionsSaysSo() {
        Map<String, Object> old = result("old", 10);
        old.remove("run");
        old.remove("phases");
        old.remove("targets");
        String html = HtmlReport.render(old);

        assertThat(html).contains("commit unknown").contains("not recorded in this result")
                .contains("No targets given").doesNotContain("<rect class=\"phase");
    }

    @Test
    void theComparisonPageOverlaysEveryRoundOfBothServers() {
        Map<String, List<Map<String, Object>>> results = new LinkedHashMap<>();
        results.put("bayeux", List.of(result("bayeux round 1", 10), result("bayeux round 2", 12)));
        results.put("cometd", List.of(result("cometd round 1", 20), result("cometd round 2", 22)));
        Map<String, Object> comparison = Map.of(
                "medians", Map.of("bayeux", Map.of("p99", 11.0), "cometd", Map.of("p99", 21.0)),
                "ratios", Map.of("cometd/bayeux p99", 1.91));

        String html = CompareReport.render(results, comparison);

        assertThat(html).contains("<h1>Bayeux load comparison</h1>").contains("Servers: bayeux, cometd; 2 rounds");
        for (String run : List.of("bayeux round 1", "bayeux round 2", "cometd round 1", "cometd round 2")) {
            assertThat(html).contains("data-name=\"" + run + "\"").contains("data-name=\"" + run + " p99\"");
        }
        assertThat(html).contains("href=\"round-2/cometd/report.html\"").contains("cometd/bayeux p99")
                .contains("commit abc123def456");
    }

    private static int count(String text, String part) {
        int count = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
            count++;
        }
        return count;
    }

    private static String group(String text, String regex) {
        Matcher matcher = Pattern.compile(regex, Pattern.DOTALL).matcher(text);
        assertThat(matcher.find()).as("%s in the page", regex).isTrue();
        return matcher.group(1);
    }
}
