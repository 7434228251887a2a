package org.bayeux.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The compare mode starts our load server and CometD's, each as a process of its own, runs the same small load on
 * each, alternately, and reports both and their ratios; every delivery counted on both.
 */
class CompareTest {
    @TempDir
    Path output;

    @Test
    @SuppressWarnings("unchecked")
    void runsBothServersAlternatelyAndReportsTheRatios() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = CompareMain.run(new String[] {"--rounds", "2", "--output", output.toString(),
            "--server-java-opts", "-Xmx256m", "--clients", "10", "--rooms", "2", "--rooms-per-client", "1",
            "--publishers", "2", "--rate", "100", "--ramp-up", "200ms", "--warm-up", "200ms", "--duration", "1s",
            "--quiet"}, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));

        assertThat(exit).as("exit code; stderr: %s", err).isEqualTo(LoadMain.COMPLETE);
        Map<String, Object> comparison = new ObjectMapper().readValue(output.resolve("comparison.json").toFile(),
                Map.class);
        Map<String, Map<String, Object>> medians = (Map<String, Map<String, Object>>) comparison.get("medians");
        assertThat(medians).containsOnlyKeys("bayeux", "cometd");
        assertThat(medians.get("bayeux")).containsEntry("lost", 0.0);
        assertThat(medians.get("cometd")).containsEntry("lost", 0.0);
        assertThat((Map<String, Object>) comparison.get("ratios")).containsKeys("cometd/bayeux p50",
                "cometd/bayeux p99");
        for (String server : new String[] {"bayeux", "cometd"}) {
            for (int round = 1; round <= 2; round++) {
                Map<String, Object> result = new ObjectMapper().readValue(
                        output.resolve("round-" + round).resolve(server).resolve("result.json").toFile(), Map.class);
                Map<String, Object> stats = (Map<String, Object>) result.get("serverAfter");
                assertThat(stats).as("%s round %d", server, round).containsEntry("server", server);
                assertThat((java.util.List<String>) stats.get("jvmArguments")).contains("-Xmx256m");
            }
        }
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("ratios");
        assertThat(Files.exists(output.resolve("round-1").resolve("cometd").resolve("report.html"))).isTrue();
        // One page overlays every round of both servers.
        assertThat(Files.readString(output.resolve("comparison.html"))).contains("Servers: bayeux, cometd; 2 rounds")
                .contains("data-name=\"bayeux round 2\"").contains("data-name=\"cometd round 2\"")
                .contains("href=\"round-1/cometd/report.html\"");
    }

    @Test
    @SuppressWarnings("unchecked")
    void withTheFloorEachServerIsAlsoComparedWithTheFloor() throws Exception {
        runOneRoundWithTheFloor();
        Map<String, Object> comparison = new ObjectMapper().readValue(output.resolve("comparison.json").toFile(),
                Map.class);
        Map<String, Map<String, Object>> medians = (Map<String, Map<String, Object>>) comparison.get("medians");
        assertThat(medians).containsOnlyKeys("floor", "bayeux", "cometd");
        medians.values().forEach(server -> assertThat(server).containsEntry("lost", 0.0)
                .containsKey("serverCpuSeconds"));
        assertThat((Map<String, Object>) comparison.get("ratios")).containsKeys("bayeux/floor p99",
                "cometd/floor p99", "bayeux/floor serverCpuSeconds", "cometd/bayeux p99");
        Map<String, Object> floor = new ObjectMapper().readValue(
                output.resolve("round-1").resolve("floor").resolve("result.json").toFile(), Map.class);
        assertThat((Map<String, Object>) floor.get("serverAfter")).containsEntry("server", "floor");
        assertThat((Map<String, Object>) floor.get("configuration")).containsEntry("client", "raw");
    }

    /** The floor and ours only; each run also reports the server's CPU from the first publish and its resident set. */
    @Test
    @SuppressWarnings("unchecked")
    void withoutCometDTheFloorAndOursAreCompared() throws Exception {
        runOneRoundWithTheFloor("--without-cometd");
        Map<String, Object> comparison = new ObjectMapper().readValue(output.resolve("comparison.json").toFile(),
                Map.class);
        Map<String, Map<String, Object>> medians = (Map<String, Map<String, Object>>) comparison.get("medians");
        assertThat(medians).containsOnlyKeys("floor", "bayeux");
        medians.values().forEach(server -> assertThat(server).containsKey("serverLoadCpuSeconds"));
        assertThat((Map<String, Object>) comparison.get("ratios")).containsKeys("bayeux/floor p99",
                "bayeux/floor serverLoadCpuSeconds").doesNotContainKey("cometd/bayeux p99");
        Map<String, Object> ours = new ObjectMapper().readValue(
                output.resolve("round-1").resolve("bayeux").resolve("result.json").toFile(), Map.class);
        assertThat((Map<String, Object>) ours.get("serverBefore")).containsKeys("processCpuSeconds", "rssBytes");
    }

    @Test
    void withoutCometDNeedsTheFloor() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = CompareMain.run(new String[] {"--without-cometd", "--clients", "10"},
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(exit).isEqualTo(LoadMain.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--without-cometd needs --floor");
    }

    /** The comparison's own options are picocli's; every other argument goes, in order, to the load runs. */
    @Test
    void ownOptionsAreParsedAndTheRestGoesToTheLoad() {
        CompareMain.CompareOptions options = new CompareMain.CompareOptions();
        options.parser().parseArgs("--clients", "10", "--rounds", "2", "--floor", "--rate", "100", "--rounds", "5",
                "--quiet", "--output", "out", "--client", "raw");
        assertThat(options.rounds).isEqualTo(5);
        assertThat(options.floor).isTrue();
        assertThat(options.withoutCometD).isFalse();
        assertThat(options.output).isEqualTo(Path.of("out"));
        assertThat(options.loadArgs).containsExactly("--clients", "10", "--rate", "100", "--quiet", "--client",
                "raw");
        CompareMain.CompareOptions defaults = new CompareMain.CompareOptions();
        defaults.parser().parseArgs();
        assertThat(defaults.rounds).isEqualTo(3);
        assertThat(defaults.output).isEqualTo(Path.of("target", "load-compare"));

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertThat(CompareMain.run(new String[] {"--help"}, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8))).isEqualTo(LoadMain.COMPLETE);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("--rounds N", "--floor", "--without-cometd",
                "--server-java-opts OPTS", "--output DIR");
        for (String[] bad : new String[][] {{"--rounds", "many"}, {"--rounds", "0"}, {"--url", "http://x"}}) {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            assertThat(CompareMain.run(bad, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8))).isEqualTo(LoadMain.USAGE);
            assertThat(err.toString(StandardCharsets.UTF_8)).contains(bad[0]);
        }
    }

    /** One small round of the raw client with the floor server, which must complete. */
    private void runOneRoundWithTheFloor(String... more) {
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("--rounds", "1", "--floor"));
        args.addAll(java.util.List.of(more));
        args.addAll(java.util.List.of("--output", output.toString(), "--server-java-opts", "-Xmx256m", "--client",
                "raw", "--transport", "websocket", "--clients", "10", "--rooms", "2", "--rooms-per-client", "1",
                "--publishers", "1", "--rate", "100", "--ramp-up", "200ms", "--warm-up", "200ms", "--duration", "1s",
                "--quiet"));
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = CompareMain.run(args.toArray(String[]::new),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(exit).as("exit code; stderr: %s", err).isEqualTo(LoadMain.COMPLETE);
    }
}
