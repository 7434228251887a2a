package org.bayeux.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.bayeux.server.BayeuxServerImpl;
import org.bayeux.server.test.EngineHarness;
import org.bayeux.server.test.TestClient;
import org.bayeux.server.test.TestResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Without the {@code ack} extension a session's {@link SessionState#positions()} are those of the messages handed to
 * its carrier, not of those merely queued; the store is told once per batch, not once per message.
 */
class SessionPositionsTest {
    private EngineHarness harness;

    @AfterEach
    void stop() {
        if (harness != null) {
            harness.close();
        }
    }

    private static byte[] message(String channel, long offset) {
        return ("{\"channel\":\"" + channel + "\",\"data\":{\"n\":" + offset + "},\"ext\":{\"position\":{\"offset\":"
                + offset + ",\"epoch\":\"e1\"}}}").getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void positionsAreThoseHandedToTheCarrierAndTheStoreIsToldOncePerBatch() throws Exception {
        LoopbackCluster cluster = new LoopbackCluster(new ArrayList<>(), true);
        AtomicInteger changed = new AtomicInteger();
        harness = EngineHarness.start(builder -> builder.timeout(Duration.ofSeconds(5)), server -> {
            InMemorySessionStore live = new InMemorySessionStore(id -> (SessionState) server.getSession(id));
            server.setCluster(cluster);
            server.setSessionStore(new SessionStore() {
                @Override
                public void created(SessionState session) {
                }

                @Override
                public void changed(SessionState session) {
                    changed.incrementAndGet();
                }

                @Override
                public SessionState find(String sessionId) {
                    return live.find(sessionId);
                }

                @Override
                public void removed(String sessionId) {
                }
            });
        });
        BayeuxServerImpl server = harness.server();
        TestClient client = harness.newClient();
        client.handshake();
        client.firstConnect();
        assertThat(client.subscribe("/chat/a").get("successful")).isEqualTo(Boolean.TRUE);
        assertThat(client.subscribe("/news/*").get("successful")).isEqualTo(Boolean.TRUE);
        SessionState state = server.getSessionStore().find(client.clientId());
        int afterSubscribes = changed.get();

        // No connect waits: the messages are queued, not handed to a carrier.
        for (long offset = 1; offset <= 3; offset++) {
            cluster.node().deliver(message("/chat/a", offset));
        }
        cluster.node().deliver(message("/news/x", 7));
        assertThat(state.positions()).as("queued only").isEmpty();
        assertThat(changed.get()).isEqualTo(afterSubscribes);

        CompletableFuture<TestResponse> connect = client.connect();
        TestResponse taken = connect.get(10, TimeUnit.SECONDS);
        assertThat(taken.deliveries()).hasSize(4);
        assertThat(state.positions()).as("plain subscriptions only").isEqualTo(
                Map.of("/chat/a", new ChannelPosition("e1", 3)));
        assertThat(changed.get()).as("told once for the batch of four").isEqualTo(afterSubscribes + 1);
    }
}
