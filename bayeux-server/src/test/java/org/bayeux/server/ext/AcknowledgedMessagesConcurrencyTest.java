package org.bayeux.server.ext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.bayeux.server.ext.AckWire.ACK_HANDSHAKE_EXT;
import static org.bayeux.server.ext.AckWire.ackOf;
import static org.bayeux.server.ext.AckWire.await;
import static org.bayeux.server.ext.AckWire.connect;
import static org.bayeux.server.ext.AckWire.connectReplyOf;
import static org.bayeux.server.ext.AckWire.firstConnect;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.bayeux.server.test.EngineHarness;
import org.bayeux.server.test.TestClient;
import org.bayeux.server.test.TestResponse;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Publishers on several threads while an ack client connects in a loop and "loses" one reply in four (on
 * WebSocket, sometimes with its socket). The client must end up with every message, each publisher's in order;
 * the replies it does process must hold each message exactly once; and a lost reply's messages must come again,
 * first, in the next reply.
 */
class AcknowledgedMessagesConcurrencyTest {
    private static final String CHANNEL = "/load";
    private static final int PUBLISHERS = 3;
    private static final int MESSAGES_EACH = 200;
    private static final Duration TEST_DEADLINE = Duration.ofSeconds(60);

    @ParameterizedTest(name = "webSocket={0}")
    @ValueSource(booleans = {false, true})
    void everyMessageArrivesInOrderAndOnlyLostRepliesAreRepeated(boolean webSocket) throws Exception {
        ExecutorService publishers = Executors.newFixedThreadPool(PUBLISHERS);
        try (EngineHarness harness = EngineHarness.start(builder -> builder.timeout(Duration.ofMillis(500)))) {
            harness.server().addExtension(new AcknowledgedMessagesExtension());
            TestClient client = webSocket ? harness.newSocketClient() : harness.newClient();
            client.handshake(ACK_HANDSHAKE_EXT);
            long ack = ackOf(await(client.send(firstConnect(client, 0))));
            assertThat(client.subscribe(CHANNEL).get("successful")).isEqualTo(Boolean.TRUE);

            List<Future<?>> publishing = new ArrayList<>();
            for (int p = 0; p < PUBLISHERS; p++) {
                int publisherIndex = p;
                publishing.add(publishers.submit(() -> publishAll(harness, publisherIndex)));
            }

            Random random = new Random(20240305L + (webSocket ? 1 : 0));
            int[] nextExpected = new int[PUBLISHERS];
            Set<String> everSeen = new HashSet<>();
            List<String> lostKeys = List.of();
            int processed = 0;
            int lostReplies = 0;
            long deadline = System.nanoTime() + TEST_DEADLINE.toNanos();
            while (processed < PUBLISHERS * MESSAGES_EACH) {
                assertThat(System.nanoTime() - deadline).as("still missing messages after %s", TEST_DEADLINE)
                        .isNegative();
                TestResponse response = await(client.send(connect(client, ack)));
                connectReplyOf(response);
                List<String> keys = keysOf(response);
                everSeen.addAll(keys);
                assertThat(keys.subList(0, Math.min(keys.size(), lostKeys.size())))
                        .as("a lost reply's messages come first in the next one").isEqualTo(lostKeys);
                if (random.nextInt(4) == 0) {
                    // Lost: the client acts as if it never arrived, and keeps acknowledging the previous batch.
                    lostReplies++;
                    lostKeys = keys;
                    if (webSocket && random.nextBoolean()) {
                        client.dropSocket();
                        client = client.reopenSocket();
                    }
                    continue;
                }
                lostKeys = List.of();
                for (Map<String, Object> delivery : response.deliveries()) {
                    @SuppressWarnings("unchecked")
                    Map<String, Object> data = (Map<String, Object>) delivery.get("data");
                    int publisher = ((Number) data.get("p")).intValue();
                    int sequence = ((Number) data.get("n")).intValue();
                    // Exactly once and in order: no processed reply repeats what an earlier one delivered.
                    assertThat(sequence).as("message of publisher %d", publisher).isEqualTo(nextExpected[publisher]);
                    nextExpected[publisher]++;
                    processed++;
                }
                ack = ackOf(response);
            }
            for (Future<?> publisher : publishing) {
                publisher.get(TestClient.WAIT.toMillis(), TimeUnit.MILLISECONDS);
            }
            assertThat(everSeen).hasSize(PUBLISHERS * MESSAGES_EACH);
            assertThat(lostReplies).as("replies lost on purpose").isPositive();
        } finally {
            publishers.shutdownNow();
            assertThat(publishers.awaitTermination(TestClient.WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        }
    }

    private static void publishAll(EngineHarness harness, int publisherIndex) {
        TestClient publisher = harness.newClient();
        publisher.handshake();
        publisher.firstConnect();
        for (int n = 0; n < MESSAGES_EACH; n++) {
            TestResponse response = publisher.publish(CHANNEL, "{\"p\":" + publisherIndex + ",\"n\":" + n + "}");
            assertThat(response.single(CHANNEL).get("successful")).isEqualTo(Boolean.TRUE);
        }
    }

    private static List<String> keysOf(TestResponse response) {
        List<String> keys = new ArrayList<>();
        for (Map<String, Object> delivery : response.deliveries()) {
            @SuppressWarnings("unchecked")
            Map<String, Object> data = (Map<String, Object>) delivery.get("data");
            keys.add(data.get("p") + ":" + data.get("n"));
        }
        return keys;
    }
}
