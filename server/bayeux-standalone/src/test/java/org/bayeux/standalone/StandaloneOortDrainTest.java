package org.bayeux.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.bayeux.client.BayeuxClient;
import org.bayeux.client.transport.ClientTransport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node of an Oort cluster stopped gracefully ({@link StandaloneServer#stop()}, which SIGTERM runs) leaves the mesh
 * when the drain begins. Its peer's link into it is a session like a client's: handed off by the drain, its end would
 * make the draining node declare the peer left, and the peer take a new incarnation. The peer must instead see the
 * node leave at once (long before its peer timeout) and keep its own incarnation; the drain must not wait for the
 * peer; and the peer's own clients must not notice: it stays ready and goes on delivering.
 */
class StandaloneOortDrainTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final String SECRET = "a-shared-secret-of-more-than-32-bytes-for-the-test";
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    Path dir;

    @Test
    void aDrainingNodeLeavesItsPeerAtOnceAndThePeerGoesOn() throws Exception {
        Path secretFile = dir.resolve("secret.txt");
        Files.writeString(secretFile, SECRET, StandardCharsets.UTF_8);
        // A secret file the server user's alone, as the standalone server requires.
        java.nio.file.Files.setPosixFilePermissions(secretFile, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        String secret = secretFile.toString();
        // A peer timeout far above the test's waits: the peer must learn of the leave from the stop itself.
        StandaloneServer a = new StandaloneServer(StandaloneOptions.parse("--oort-url", "http://127.0.0.1:0/bayeux",
                "--oort-secret-file", secret, "--oort-channels", "/chat/**", "--set", "oort.heartbeatInterval=500ms",
                "--set", "oort.peerTimeout=120s", "--set", "drainTimeout=60s", "--set", "drainRetryInterval=1s")
                .port(0).host("127.0.0.1"));
        BayeuxClient onA = null;
        BayeuxClient onB = null;
        try (StandaloneServer b = new StandaloneServer(StandaloneOptions.parse("--oort-url",
                "http://127.0.0.1:0/bayeux", "--oort-secret-file", secret, "--oort-channels", "/chat/**",
                "--oort-seeds", a.getOort().config().url(), "--set", "oort.heartbeatInterval=500ms",
                "--set", "oort.peerTimeout=120s").port(0).host("127.0.0.1"))) {
            try {
                await("both nodes joined").atMost(WAIT)
                        .until(() -> a.getOort().members().size() == 1 && b.getOort().members().size() == 1);
                onA = ChatRoomClients.connect(a, ClientTransport.WEBSOCKET);
                onB = ChatRoomClients.connect(b, ClientTransport.WEBSOCKET);
                BlockingQueue<Object> receivedOnA = ChatRoomClients.subscribe(onA);
                BlockingQueue<Object> receivedOnB = ChatRoomClients.subscribe(onB);
                ChatRoomClients.publish(onB, "before");
                assertThat(receivedOnA.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("before");
                assertThat(receivedOnB.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("before");
                long leavesBefore = b.getOort().stats().leaves();
                String incarnationOfB = b.getOort().id();

                long stopStart = System.nanoTime();
                CompletableFuture<Void> stopped = CompletableFuture.runAsync(a::stop);
                await("A draining").atMost(WAIT).pollInterval(Duration.ofMillis(1)).until(a::isDraining);

                // B's clients do not notice: B is ready and delivers its own publishes, during and after the drain.
                assertThat(ready(b)).isEqualTo(200);
                ChatRoomClients.publish(onB, "during");
                assertThat(receivedOnB.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("during");

                stopped.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                long stopMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopStart);
                assertThat(stopMillis).as("the drain did not wait for the peer's link up to drainTimeout (60 s)")
                        .isLessThan(WAIT.toMillis());

                await("B saw A leave, long before its peer timeout").atMost(WAIT)
                        .until(() -> b.getOort().members().isEmpty());
                assertThat(b.getOort().stats().leaves()).isEqualTo(leavesBefore + 1);
                assertThat(b.getOort().id()).as("A did not declare B left: B keeps its incarnation")
                        .isEqualTo(incarnationOfB);
                assertThat(ready(b)).as("a peer leaving does not make B unready").isEqualTo(200);
                ChatRoomClients.publish(onB, "after");
                assertThat(receivedOnB.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("after");
                assertThat(receivedOnB).as("exactly once").isEmpty();
            } finally {
                if (onA != null) {
                    onA.close();
                }
                if (onB != null) {
                    onB.close();
                }
                a.close();
            }
        }
    }

    private int ready(StandaloneServer server) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.getPort() + "/health/ready"))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }
}
