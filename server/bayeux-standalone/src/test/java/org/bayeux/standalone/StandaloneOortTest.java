package org.bayeux.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import org.bayeux.client.BayeuxClient;
import org.bayeux.client.transport.ClientTransport;
import org.bayeux.oort.OortConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code bin/bayeux server --oort-url … --oort-seeds … --oort-secret-file …}: the flags, their --set keys, the refusals. */
class StandaloneOortTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final String SECRET = "a-shared-secret-of-more-than-32-bytes-for-the-test";

    @TempDir
    Path dir;

    private Path secretFile(String secret) throws Exception {
        Path file = Files.createTempFile(dir, "secret", ".txt");
        Files.writeString(file, secret, StandardCharsets.UTF_8);
        return file;
    }

    @Test
    void flagsAndSetKeysGiveTheSameConfiguration() throws Exception {
        Path secret = secretFile(SECRET + "\n");
        StandaloneOptions flags = StandaloneOptions.parse("--oort-url", "http://10.0.0.1:8080/bayeux",
                "--oort-seeds", "http://10.0.0.2:8080/bayeux,http://10.0.0.3:8080/bayeux",
                "--oort-secret-file", secret.toString(), "--oort-channels", "/chat/**,/news/*",
                "--set", "oort.allowPlainLinks=true", "--set", "oort.heartbeatInterval=500ms", "--set", "oort.peerTimeout=3s",
                "--set", "oort.maxMessageBytes=4096", "--set", "oort.maxQueue=50", "--set", "oort.maxQueueBytes=100000");
        StandaloneOptions sets = StandaloneOptions.parse("--set", "oort.url=http://10.0.0.1:8080/bayeux",
                "--set", "oort.seeds=http://10.0.0.2:8080/bayeux,http://10.0.0.3:8080/bayeux",
                "--set", "oort.secretFile=" + secret, "--set", "oort.channels=/chat/**,/news/*",
                "--set", "oort.allowPlainLinks=true", "--set", "oort.heartbeatInterval=500ms", "--set", "oort.peerTimeout=3s",
                "--set", "oort.maxMessageBytes=4096", "--set", "oort.maxQueue=50", "--set", "oort.maxQueueBytes=100000");
        for (StandaloneOptions options : List.of(flags, sets)) {
            OortConfig config = options.oortSettings.toConfig();
            assertThat(config.url()).isEqualTo("http://10.0.0.1:8080/bayeux");
            assertThat(config.seeds()).containsExactly("http://10.0.0.2:8080/bayeux", "http://10.0.0.3:8080/bayeux");
            assertThat(config.channels()).containsExactly("/chat/**", "/news/*");
            assertThat(config.heartbeatInterval()).isEqualTo(Duration.ofMillis(500));
            assertThat(config.peerTimeout()).isEqualTo(Duration.ofSeconds(3));
            assertThat(config.maxMessageBytes()).isEqualTo(4096);
            assertThat(config.maxQueue()).isEqualTo(50);
            assertThat(config.maxQueueBytes()).isEqualTo(100_000);
            assertThat(config.allowPlainLinks()).isTrue();
        }
        assertThat(StandaloneOptions.parse("--set", "oort.url=http://a:1/bayeux",
                "--oort-url", "https://b:2/bayeux", "--oort-secret-file", secret.toString()).oortSettings.url())
                .as("the flag wins over --set").isEqualTo("https://b:2/bayeux");
        assertThat(StandaloneOptions.parse().oortSettings).as("no Oort by default").isNull();
    }

    @Test
    void aMissingOrShortSecretStopsTheStartNamingTheKeyNeverTheSecret() throws Exception {
        assertThatThrownBy(() -> StandaloneOptions.parse("--oort-url", "http://127.0.0.1:8080/bayeux"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("oort.secretFile is missing");
        Path shortSecret = secretFile("too-short-but-secret\n");
        assertThatThrownBy(() -> StandaloneOptions.parse("--oort-url", "http://127.0.0.1:8080/bayeux",
                "--oort-secret-file", shortSecret.toString()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("oort.secretFile=" + shortSecret + " holds 20 bytes")
                .hasMessageContaining("at least 32 bytes").hasMessageNotContaining("too-short-but-secret");
        assertThatThrownBy(() -> StandaloneOptions.parse("--oort-url", "http://127.0.0.1:8080/bayeux",
                "--oort-secret-file", dir.resolve("absent").toString()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("oort.secretFile=" + dir.resolve("absent"))
                .hasMessageContaining("a readable file");
        assertThatThrownBy(() -> StandaloneOptions.parse("--set", "oort.secret=" + SECRET))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--set oort.secret: give the secret in a file")
                .hasMessageNotContaining(SECRET);
    }

    @Test
    void badValuesAndCombinationsAreRefusedNamingTheKey() throws Exception {
        String secret = secretFile(SECRET).toString();
        assertThatThrownBy(() -> StandaloneOptions.parse("--oort-url", "ftp://x/y", "--oort-secret-file", secret))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("oort.url=ftp://x/y");
        assertThatThrownBy(() -> StandaloneOptions.parse("--oort-url", "http://a:1/bayeux",
                "--oort-secret-file", secret, "--oort-seeds", "nowhere"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("oort.seeds=nowhere");
        assertThatThrownBy(() -> StandaloneOptions.parse("--oort-url", "http://a:1/bayeux",
                "--oort-secret-file", secret, "--oort-channels", "/meta/**"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("oort.channels=/meta/**");
        assertThatThrownBy(() -> StandaloneOptions.parse("--oort-url", "http://a:1/bayeux",
                "--oort-secret-file", secret, "--set", "oort.heartbeatInterval=often"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("oort.heartbeatInterval=often");
        assertThatThrownBy(() -> StandaloneOptions.parse("--oort-url", "http://a:1/bayeux",
                "--oort-secret-file", secret, "--set", "oort.heartbeatInterval=2s", "--set", "oort.peerTimeout=3s"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("oort.peerTimeout=PT3S")
                .hasMessageContaining("at least twice oort.heartbeatInterval");
        assertThatThrownBy(() -> StandaloneOptions.parse("--oort-url", "http://a:1/bayeux",
                "--oort-secret-file", secret, "--set", "oort.maxQueue=0"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("oort.maxQueue=0");
        assertThatThrownBy(() -> StandaloneOptions.parse("--set", "oort.seeds=http://a:1/bayeux"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--set oort.seeds: an Oort option, needs --oort-url");
        assertThatThrownBy(() -> StandaloneOptions.parse("--oort-url", "http://10.0.0.1:8080/bayeux",
                "--oort-secret-file", secret))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("oort.url=http://10.0.0.1:8080/bayeux")
                .hasMessageContaining("oort.allowPlainLinks=true");
        assertThatThrownBy(() -> StandaloneOptions.parse("--backplane", "redis://127.0.0.1:7001",
                "--oort-url", "https://a:1/bayeux", "--oort-secret-file", secret))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--backplane and --oort-url: give one or the other");
    }

    @Test
    void theServerProcessRefusesToStartWithAShortSecretNamingTheKey() throws Exception {
        Path shortSecret = secretFile("short-secret-value\n");
        Path errors = dir.resolve("stderr.txt");
        Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), StandaloneServer.class.getName(), "--port", "0",
                "--host", "127.0.0.1", "--oort-url", "http://127.0.0.1:0/bayeux", "--oort-secret-file",
                shortSecret.toString())
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(errors.toFile()).start();
        try {
            assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("the process ends by itself").isTrue();
            assertThat(process.exitValue()).isEqualTo(2);
            assertThat(Files.readString(errors)).contains("oort.secretFile=" + shortSecret + " holds 18 bytes")
                    .doesNotContain("short-secret-value");
        } finally {
            process.destroyForcibly();
        }
    }

    @Test
    void portZeroInTheUrlIsThePortBound() {
        assertThat(StandaloneServer.advertisedUrl("http://127.0.0.1:0/bayeux", 4321)).isEqualTo("http://127.0.0.1:4321/bayeux");
        assertThat(StandaloneServer.advertisedUrl("http://127.0.0.1:8080/bayeux", 4321)).isEqualTo("http://127.0.0.1:8080/bayeux");
    }

    @Test
    void twoServersStartedWithTheFlagsJoinAndForward() throws Exception {
        String secret = secretFile(SECRET).toString();
        try (StandaloneServer a = new StandaloneServer(StandaloneOptions.parse("--oort-url",
                "http://127.0.0.1:0/bayeux", "--oort-secret-file", secret, "--oort-channels", "/chat/**",
                "--set", "oort.heartbeatInterval=500ms").port(0).host("127.0.0.1"));
                StandaloneServer b = new StandaloneServer(StandaloneOptions.parse("--oort-url",
                        "http://127.0.0.1:0/bayeux", "--oort-secret-file", secret, "--oort-channels", "/chat/**",
                        "--oort-seeds", a.getOort().config().url()).port(0).host("127.0.0.1"))) {
            assertThat(a.getOort().config().url()).isEqualTo("http://127.0.0.1:" + a.getPort() + "/bayeux");
            await("both nodes joined").atMost(WAIT)
                    .until(() -> a.getOort().members().size() == 1 && b.getOort().members().size() == 1);
            BayeuxClient onA = ChatRoomClients.connect(a, ClientTransport.WEBSOCKET);
            BayeuxClient onB = ChatRoomClients.connect(b, ClientTransport.LONG_POLLING);
            try {
                BlockingQueue<Object> receivedOnA = ChatRoomClients.subscribe(onA);
                BlockingQueue<Object> receivedOnB = ChatRoomClients.subscribe(onB);
                assertThat(onA.getChannel("/chat/room").publishAsync("from A")
                        .get(WAIT.toMillis(), TimeUnit.MILLISECONDS).isSuccessful()).isTrue();
                assertThat(receivedOnB.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("from A");
                assertThat(receivedOnA.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("from A");
                assertThat(onB.getChannel("/chat/room").publishAsync("from B")
                        .get(WAIT.toMillis(), TimeUnit.MILLISECONDS).isSuccessful()).isTrue();
                assertThat(receivedOnA.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("from B");
                assertThat(receivedOnB.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("from B");
                assertThat(receivedOnA).as("exactly once").isEmpty();
                assertThat(receivedOnB).as("exactly once").isEmpty();
            } finally {
                onA.close();
                onB.close();
            }
        }
    }
}
