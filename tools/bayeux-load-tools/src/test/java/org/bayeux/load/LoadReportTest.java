package org.bayeux.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.bayeux.load.server.LoadServer;
import org.bayeux.standalone.StandaloneOptions;
import org.bayeux.standalone.StandaloneServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A tiny real run against the in-process load server records what the report draws: the run's date and commit, the
 * phase boundaries, null (not 0 ms) latency for the seconds before the measurement, the clients per second, the
 * targets passed and failed; the progress line shows the time left; bad targets are refused.
 */
class LoadReportTest {
    @TempDir
    Path output;
    private StandaloneServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void aRunRecordsPhasesGapsDateCommitClientsAndTargets() throws Exception {
        server = new StandaloneServer(StandaloneOptions.parse("--port", "0", "--host", "127.0.0.1"));
        new LoadServer(server.getEngine());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = LoadMain.run(new String[] {"--url", "http://127.0.0.1:" + server.getPort() + "/bayeux",
            "--clients", "10", "--rooms", "2", "--rooms-per-client", "1", "--publishers", "2", "--rate", "100",
            "--ramp-up", "200ms", "--warm-up", "1500ms", "--duration", "2s", "--drain", "5s",
            "--target", "p99=1h", "--target", "lost=0", "--target", "max=0.001ms",
            "--output", output.toString()}, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));

        assertThat(exit).as("exit code; stderr: %s", err).isEqualTo(LoadMain.COMPLETE);
        Map<String, Object> result = new ObjectMapper().readValue(output.resolve("result.json").toFile(), Map.class);
        Map<String, Object> run = (Map<String, Object>) result.get("run");
        assertThat((String) run.get("date")).matches("\\d{4}-\\d\\d-\\d\\dT.*Z");
        assertThat((String) run.get("commit")).matches("[0-9a-f]{7,40}|unknown");
        assertThat((Map<String, Object>) result.get("phases")).containsOnlyKeys("connectedAt", "publishAt",
                "measureAt", "measureEndAt", "drainEndAt");
        List<Map<String, Object>> timeline = (List<Map<String, Object>>) result.get("timeline");
        // The first second is connecting or warm-up (1.5 s of it): nothing measured, so no latency rather than 0.
        assertThat(timeline.get(0)).containsEntry("measured", 0).containsEntry("p99", null)
                .containsEntry("p50", null).containsKey("clients").containsEntry("errors", 0);
        assertThat(timeline).anySatisfy(second -> assertThat(second.get("p99")).isInstanceOf(Number.class));
        assertThat(timeline.get(timeline.size() - 1)).containsEntry("clients", 10);
        // The load server answers the statistics service: its CPU and heap each second while publishing.
        List<Map<String, Object>> samples = (List<Map<String, Object>>) result.get("serverTimeline");
        assertThat(samples).isNotEmpty().allSatisfy(sample -> assertThat(sample).containsKeys("t", "cpuSeconds",
                "heapUsedBytes"));
        List<Map<String, Object>> targets = (List<Map<String, Object>>) result.get("targets");
        assertThat(targets).extracting(target -> target.get("name") + " " + target.get("pass"))
                .containsExactly("p99 true", "lost true", "max false");
        assertThat((Map<String, Object>) ((Map<String, Object>) result.get("messages")).get("errorsByKind"))
                .isEmpty();
        String html = Files.readString(output.resolve("report.html"));
        assertThat(html).contains("<rect class=\"phase warm-up\"").contains("<rect class=\"phase measured\"")
                .contains("PASS").contains("FAIL").contains("commit " + run.get("commit"))
                .contains("<h3>serverBefore</h3>\n<table");
        assertThat(err.toString(StandardCharsets.UTF_8)).containsPattern("left \\d+:\\d\\d");
    }

    @Test
    void badTargetsAreRefusedNamingTheValue() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = LoadMain.run(new String[] {"--target", "p98=5ms", "--target", "p99=fast", "--target", "lost=-1"},
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));

        assertThat(exit).isEqualTo(LoadMain.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("'p98=5ms'").contains("'p99=fast'")
                .contains("'lost=-1'");
    }
}
