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
import org.bayeux.load.server.LoadServer;
import org.bayeux.standalone.StandaloneOptions;
import org.bayeux.standalone.StandaloneServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/bayeux load --url URL1,URL2}: the clients alternate between two Oort nodes (standalone servers started
 * with the --oort-* flags, in this JVM), every delivery arrives once, and latency is reported for same-node and
 * cross-node deliveries apart.
 */
class LoadClusterTest {
    @TempDir
    Path dir;

    @Test
    void clientsAreSpreadOverTheNodesAndLatencyIsSplitBySameAndCrossNode() throws Exception {
        Path secret = dir.resolve("secret");
        Files.writeString(secret, "a-secret-for-the-load-tool-test-of-more-than-32-bytes");
        // A secret file the server user's alone, as the standalone server requires.
        java.nio.file.Files.setPosixFilePermissions(secret, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        try (StandaloneServer a = node(secret, null); StandaloneServer b = node(secret, a.getOort().config().url())) {
            new LoadServer(a.getEngine());
            new LoadServer(b.getEngine());
            await("both nodes joined").atMost(Duration.ofSeconds(20))
                    .until(() -> a.getOort().members().size() == 1 && b.getOort().members().size() == 1);
            for (String client : List.of("ours", "raw")) {
                runAndCheck(a, b, client, dir.resolve("out-" + client));
            }
        }
    }

    private static void runAndCheck(StandaloneServer a, StandaloneServer b, String client, Path output)
            throws Exception {
        // 8 clients in the one room, 2 publishers (clients 0 and 1: one on each node), so that each message
        // reaches 4 clients on its publisher's node and 4 on the other.
        String[] args = {"--url", a.getOort().config().url() + "," + b.getOort().config().url(),
            "--clients", "8", "--rooms", "1", "--rooms-per-client", "1", "--publishers", "2", "--rate", "100",
            "--size", "64", "--ramp-up", "300ms", "--warm-up", "500ms", "--duration", "1s", "--drain", "10s",
            "--quiet", "--output", output.toString(), "--client", client, "--transport", "mix"};
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = LoadMain.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));

        assertThat(exit).as("%s client; stderr: %s", client, err).isEqualTo(LoadMain.COMPLETE);
        @SuppressWarnings("unchecked")
        Map<String, Object> result = new ObjectMapper().readValue(output.resolve("result.json").toFile(), Map.class);
        @SuppressWarnings("unchecked")
        Map<String, Object> messages = (Map<String, Object>) result.get("messages");
        long published = ((Number) messages.get("published")).longValue();
        assertThat(published).as("100/s for 1.5 s").isEqualTo(150);
        assertThat(messages).containsEntry("expected", (int) published * 8).containsEntry("delivered",
                (int) published * 8).containsEntry("lost", 0).containsEntry("duplicated", 0);
        long measured = ((Number) ((Map<?, ?>) result.get("latency")).get("measuredDeliveries")).longValue();
        long same = ((Number) ((Map<?, ?>) result.get("latencySameNode")).get("measuredDeliveries")).longValue();
        long cross = ((Number) ((Map<?, ?>) result.get("latencyCrossNode")).get("measuredDeliveries")).longValue();
        assertThat(measured).isEqualTo(100L * 8);
        assertThat(same).as("half of each message's receivers are on its publisher's node").isEqualTo(400);
        assertThat(cross).isEqualTo(400);
        assertThat((List<?>) ((Map<?, ?>) result.get("configuration")).get("urls")).hasSize(2);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("same-node (400 deliveries)")
                .contains("cross-node (400 deliveries)").contains("cross-node p99 minus same-node p99");
        assertThat(Files.readString(output.resolve("report.html"))).contains("cross-node p99 (ms)");
    }

    private static StandaloneServer node(Path secret, String seed) throws Exception {
        List<String> args = new java.util.ArrayList<>(List.of("--oort-url", "http://127.0.0.1:0/bayeux",
                "--oort-secret-file", secret.toString(), "--oort-channels", "/load/**"));
        if (seed != null) {
            args.addAll(List.of("--oort-seeds", seed));
        }
        return new StandaloneServer(StandaloneOptions.parse(args.toArray(String[]::new)).port(0)
                .host("127.0.0.1"));
    }
}
