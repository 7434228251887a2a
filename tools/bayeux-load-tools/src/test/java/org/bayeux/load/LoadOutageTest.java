package org.bayeux.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.bayeux.backplane.redis.RedisProcess;
import org.bayeux.standalone.StandaloneOptions;
import org.bayeux.standalone.StandaloneServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/bayeux load --outage}: 20 subscribers of ours on two backplane nodes (standalone servers in this JVM on
 * a redis-server of the test's own) are cut off for 4 s while two publishers go on; the server forgets their
 * sessions meanwhile (a held connect ends within {@code timeout=500ms}, the session {@code maxInterval=1s} later, swept
 * within {@code sweepPeriod=100ms}: at most 1.6 s into the outage), so each comes back with a new handshake and
 * resubscribes with its
 * position (their back-off capped at 1 s): every missed message recovered, once, in order, {@code recovered: true}
 * for each.
 */
class LoadOutageTest {
    @TempDir
    Path dir;

    @Test
    void subscribersCutOffForAnOutageRecoverEverythingTheyMissed() throws Exception {
        try (RedisProcess redis = RedisProcess.start(); StandaloneServer a = node(redis);
                StandaloneServer b = node(redis)) {
            await("both nodes read from Redis").atMost(Duration.ofSeconds(20))
                    .until(() -> a.getBackplane().isConnected() && b.getBackplane().isConnected());
            Path output = dir.resolve("out");
            String[] args = {"--outage", "4s", "--url", url(a) + "," + url(b), "--clients", "20",
                "--publishers", "2", "--rooms", "2", "--rooms-per-client", "1", "--rate", "50", "--size", "64",
                "--ramp-up", "500ms", "--warm-up", "1s", "--duration", "1s", "--drain", "30s", "--quiet",
                "--transport", "mix", "--max-backoff", "1s", "--output", output.toString()};
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int exit = LoadMain.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8));

            @SuppressWarnings("unchecked")
            Map<String, Object> result = new ObjectMapper().readValue(output.resolve("result.json").toFile(),
                    Map.class);
            assertThat(exit).as("stdout: %s%nstderr: %s%nduplicates: %s", out, err, result.get("firstDuplicates"))
                    .isEqualTo(LoadMain.COMPLETE);
            @SuppressWarnings("unchecked")
            Map<String, Object> messages = (Map<String, Object>) result.get("messages");
            @SuppressWarnings("unchecked")
            Map<String, Object> recovery = (Map<String, Object>) result.get("recovery");
            long published = ((Number) messages.get("published")).longValue();
            assertThat(published).as("50/s for 1 + 4 + 1 s").isEqualTo(300);
            // Each subscriber is in one of the two rooms, each room gets half of the messages.
            assertThat(((Number) messages.get("expected")).longValue()).isEqualTo(20 * 150);
            assertThat(messages.get("delivered")).isEqualTo(messages.get("expected"));
            assertThat(messages).containsEntry("lost", 0).containsEntry("duplicated", 0)
                    .containsEntry("outOfOrder", 0).containsEntry("refused", 0)
                    .containsEntry("orderCheckedBy", "ext.position offsets per channel");
            assertThat(recovery).containsEntry("subscribersReconnected", 20)
                    .containsEntry("subscribersFullyRecovered", 20).containsEntry("recoveredPercent", 100.0)
                    .containsEntry("recoveredFlagTrue", 20).containsEntry("recoveredFlagFalse", 0);
            // A room gets 25 messages a second: about 100 were published during the 4 s away; 3 s' worth is the floor
            // whatever the schedule's phase at the cut and the reconnection.
            assertThat(((Number) recovery.get("missedPerSubscriberMin")).longValue()).isGreaterThanOrEqualTo(75);
            assertThat(recovery.get("recovered")).isEqualTo(recovery.get("missed"));
            assertThat(((Number) recovery.get("recoveryMeasuredSubscribers")).longValue()).isEqualTo(20);
            assertThat(((Number) recovery.get("recoveryMillisP99")).doubleValue()).isGreaterThanOrEqualTo(0.0);
            assertThat(((Number) recovery.get("proxyResets")).longValue()).isGreaterThanOrEqualTo(20);
            assertThat(out.toString(StandardCharsets.UTF_8)).contains("(100.00%)")
                    .contains("recovery p50").contains("recovered flags true 20, false 0");

            // The report: the outage shaded among the phases, the recovery figures in their own section.
            @SuppressWarnings("unchecked")
            Map<String, Object> phases = (Map<String, Object>) result.get("phases");
            assertThat(phases).containsOnlyKeys("connectedAt", "cutAt", "restoredAt", "publishEndAt", "drainEndAt");
            assertThat(((Number) phases.get("restoredAt")).doubleValue() - ((Number) phases.get("cutAt")).doubleValue())
                    .as("the outage lasts 4 s").isBetween(3.9, 4.5);
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> timeline = (List<Map<String, Object>>) result.get("timeline");
            assertThat(timeline).allSatisfy(second -> assertThat(second).containsOnlyKeys("t", "sent", "received",
                    "recovered", "clients", "errors"));
            assertThat(timeline.stream().mapToLong(second -> ((Number) second.get("sent")).longValue()).sum())
                    .isEqualTo(published);
            assertThat(timeline.stream().mapToLong(second -> ((Number) second.get("recovered")).longValue()).sum())
                    .isEqualTo(((Number) recovery.get("recovered")).longValue());
            assertThat(timeline.get(timeline.size() - 1)).containsEntry("clients", 20);
            String html = Files.readString(output.resolve("report.html"));
            assertThat(html).contains("<h1>Bayeux load report: recovery after an outage</h1>")
                    .contains("COMPLETE: every subscriber reconnected")
                    .contains("commit " + ((Map<?, ?>) result.get("run")).get("commit"))
                    .contains("<h2>Recovery</h2>").contains("<tr><th>recovered (%)</th><td>100.0</td></tr>")
                    .contains("<tr><th>recovered / missed</th><td>" + recovery.get("recovered") + " / "
                            + recovery.get("missed") + "</td></tr>")
                    .contains("<tr><th>recovery time p50 (ms)</th><td>" + recovery.get("recoveryMillisP50"))
                    .contains("<tr><th>recovery time p99 (ms)</th><td>" + recovery.get("recoveryMillisP99"))
                    .contains("<tr><th>recovered flags true / false</th><td>20 / 0</td></tr>")
                    .contains("<h2>In order, once</h2>").contains("<tr><th>outOfOrder</th><td>0</td></tr>")
                    .contains("<tr><th>order checked by</th><td>ext.position offsets per channel</td></tr>")
                    .contains("<rect class=\"phase ramp-up\"").contains("<rect class=\"phase warm-up\"")
                    .contains("<rect class=\"phase outage\"").contains("<rect class=\"phase restored\"")
                    .contains("<h3>Missed messages arriving</h3>\n<p class=\"note\">")
                    .contains("<h3>Subscribers connected</h3>\n<svg").doesNotContain("No data.");
            assertThat(out.toString(StandardCharsets.UTF_8)).contains("Report: " + output.resolve("report.html"));
        }
    }

    @Test
    void outageOptionsAreChecked() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream errors = new PrintStream(err, true, StandardCharsets.UTF_8);
        PrintStream out = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        assertThat(LoadMain.run(new String[] {"--outage", "2s", "--client", "raw"}, out, errors))
                .isEqualTo(LoadMain.USAGE);
        assertThat(LoadMain.run(new String[] {"--outage", "0s"}, out, errors)).isEqualTo(LoadMain.USAGE);
        assertThat(LoadMain.run(new String[] {"--max-backoff", "2s"}, out, errors)).isEqualTo(LoadMain.USAGE);
        assertThat(LoadMain.run(new String[] {"--outage", "1s", "--max-backoff", "100ms"}, out, errors))
                .isEqualTo(LoadMain.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("--outage needs --client ours").contains("--outage must be positive")
                .contains("--max-backoff is for --outage runs").contains("--max-backoff must be at least 500ms");
    }

    private static StandaloneServer node(RedisProcess redis) throws Exception {
        // Every session must be gone when its client comes back, or it would not resubscribe, and a message written
        // into its cut connection would be lost unrecovered (clients do not detect offset gaps yet): the server's
        // default timeout (30 s) let a long-poll held at the cut keep its session alive through the outage (1 run in
        // 10 lost 4 messages so). Held connects now end within 500 ms, sessions expire 1 s later and are swept
        // within 100 ms: 1.6 s at most, well inside the 4 s outage.
        // History is opt-in (historyRules), and a session that comes back after its old one expired may recover
        // only what its look-back allows (historyLookBack): both turned on for the load's rooms.
        return new StandaloneServer(StandaloneOptions.parse("--backplane", redis.uri(),
                "--set", "timeout=500ms", "--set", "maxInterval=1s", "--set", "sweepPeriod=100ms",
                "--set", "historyRules=/load/room/*", "--set", "historyLookBack=5m")
                .port(0).host("127.0.0.1"));
    }

    private static String url(StandaloneServer server) {
        return "http://127.0.0.1:" + server.getPort() + "/bayeux";
    }
}
