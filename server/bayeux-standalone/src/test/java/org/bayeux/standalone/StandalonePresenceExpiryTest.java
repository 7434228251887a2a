package org.bayeux.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.bayeux.api.Message;
import org.bayeux.backplane.redis.PresenceEvent;
import org.bayeux.backplane.redis.RedisBackplane;
import org.bayeux.backplane.redis.RedisProcess;
import org.bayeux.client.BayeuxClient;
import org.bayeux.client.BayeuxClientConfig;
import org.bayeux.client.transport.ClientTransport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Presence after a node dies: node A, a standalone server process with {@code --backplane}, has two subscribed
 * clients and is {@code kill -9}ed (no unsubscribe, no cleanup); node B, in this JVM, hears both leave within
 * {@code presenceTtl} plus a bound, and its {@code presence(channel)} lists only its own subscriber.
 */
class StandalonePresenceExpiryTest {
    private static final Logger LOG = LoggerFactory.getLogger(StandalonePresenceExpiryTest.class);
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofSeconds(2);
    /**
     * How long after the kill the leaves may come: the entries expire at most {@link #TTL} after A's last refresh,
     * B sweeps every third of it; the rest is slack for a loaded machine.
     */
    private static final Duration LEAVE_WITHIN = TTL.plusSeconds(10);
    private static final String CHANNEL = "/chat/room";
    private static final Pattern LISTENING = Pattern.compile("Bayeux endpoint (http://\\S+/bayeux)");

    @TempDir
    Path temp;

    @Test
    void theSessionsOfAKilledNodeLeaveWithinThePresenceTtl() throws Exception {
        List<BayeuxClient> clients = new ArrayList<>();
        Process nodeA = null;
        try (RedisProcess redis = RedisProcess.start();
                StandaloneServer nodeB = new StandaloneServer(StandaloneOptions.parse("--backplane",
                        redis.uri(), "--set", "presenceTtl=" + TTL.toMillis() + "ms", "--set", "timeout=5s")
                        .port(0).host("127.0.0.1"))) {
            RedisBackplane b = nodeB.getBackplane();
            List<PresenceEvent> seenOnB = new CopyOnWriteArrayList<>();
            b.addPresenceListener(seenOnB::add);
            await("B reads from Redis").atMost(WAIT).until(b::isConnected);

            Path out = temp.resolve("node-a.out");
            nodeA = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"), StandaloneServer.class.getName(), "--port", "0",
                    "--host", "127.0.0.1", "--backplane", redis.uri(), "--set",
                    "presenceTtl=" + TTL.toMillis() + "ms", "--set", "timeout=5s")
                    .redirectErrorStream(true).redirectOutput(out.toFile()).start();
            String urlA = awaitUrl(nodeA, out);

            BayeuxClient bob = client(nodeB.getBaseUrl() + "/bayeux", clients);
            subscribe(bob);
            List<String> onA = new ArrayList<>();
            for (String transport : List.of(ClientTransport.WEBSOCKET, ClientTransport.LONG_POLLING)) {
                BayeuxClient client = new BayeuxClient(BayeuxClientConfig.builder(urlA).transports(transport)
                        .backoff(Duration.ofMillis(100), Duration.ofSeconds(1)).build());
                clients.add(client);
                assertThat(client.handshake(WAIT)).isEqualTo(BayeuxClient.State.CONNECTED);
                subscribe(client);
                onA.add(client.getId());
            }
            await("three joins seen on B").atMost(WAIT).until(() -> seenOnB.stream().filter(PresenceEvent::joined)
                    .map(PresenceEvent::sessionId).toList().containsAll(List.of(bob.getId(), onA.get(0), onA.get(1))));
            String nodeIdA = seenOnB.stream().filter(event -> event.sessionId().equals(onA.get(0))).findFirst()
                    .orElseThrow().nodeId();
            assertThat(nodeIdA).isNotEqualTo(b.nodeId());
            assertThat(presence(b)).isEqualTo(Map.of(bob.getId(), b.nodeId(), onA.get(0), nodeIdA, onA.get(1),
                    nodeIdA));

            long killed = System.nanoTime();
            nodeA.destroyForcibly();
            assertThat(nodeA.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)).as("node A ended").isTrue();
            List<PresenceEvent> expected = onA.stream().map(id -> new PresenceEvent(CHANNEL, id, nodeIdA, false))
                    .toList();
            await("A's sessions leave").atMost(LEAVE_WITHIN).pollInterval(Duration.ofMillis(20))
                    .until(() -> seenOnB.containsAll(expected));
            LOG.info("both leaves heard {} ms after kill -9 (presenceTtl {} ms)",
                    (System.nanoTime() - killed) / 1_000_000, TTL.toMillis());
            assertThat(presence(b)).as("only B's own subscriber is left").isEqualTo(Map.of(bob.getId(), b.nodeId()));
            assertThat(seenOnB.stream().filter(event -> !event.joined()).toList()).as("each leave once")
                    .containsExactlyInAnyOrderElementsOf(expected);
            assertThat(bob.isConnected()).isTrue();
        } finally {
            if (nodeA != null) {
                nodeA.destroyForcibly();
                nodeA.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS);
            }
            for (BayeuxClient client : clients) {
                client.close();
            }
        }
    }

    /** The URL node A prints once it listens (port 0: chosen by the system). */
    private static String awaitUrl(Process process, Path out) {
        String[] url = new String[1];
        await("node A listens").atMost(WAIT).pollInterval(Duration.ofMillis(50)).until(() -> {
            assertThat(process.isAlive()).as("node A runs: " + Files.readString(out)).isTrue();
            Matcher matcher = LISTENING.matcher(Files.readString(out));
            if (matcher.find()) {
                url[0] = matcher.group(1);
                return true;
            }
            return false;
        });
        return url[0];
    }

    private static BayeuxClient client(String url, List<BayeuxClient> clients) throws Exception {
        BayeuxClient client = new BayeuxClient(BayeuxClientConfig.builder(url).transports(ClientTransport.WEBSOCKET)
                .build());
        clients.add(client);
        assertThat(client.handshake(WAIT)).isEqualTo(BayeuxClient.State.CONNECTED);
        return client;
    }

    private static void subscribe(BayeuxClient client) throws Exception {
        Message reply = client.getChannel(CHANNEL).subscribeAsync((c, m) -> { })
                .get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(reply.isSuccessful()).isTrue();
    }

    private static Map<String, String> presence(RedisBackplane backplane) throws Exception {
        return backplane.presence(CHANNEL).toCompletableFuture().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }
}
