package org.bayeux.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.server.LocalSession;
import org.bayeux.server.test.EngineHarness;
import org.bayeux.server.test.TestClient;
import org.bayeux.server.test.TestResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link BayeuxEngine#drain}: handshakes refused with retry advice, a held connect answered at once with handshake
 * advice, a queue larger than one response delivered over several connects before the last reply, local sessions
 * left alone, and the stage completing once no remote session is left.
 */
class DrainTest {
    private static final Map<String, Object> LAST_ADVICE = Map.of("reconnect", "handshake", "interval", 0L);

    private final EngineHarness engine = EngineHarness.start(config -> config.timeout(Duration.ofSeconds(30)));

    @AfterEach
    void stop() {
        engine.close();
    }

    private TestClient connected(String channel) {
        TestClient client = engine.newClient();
        client.handshake();
        client.firstConnect();
        assertThat(client.subscribe(channel)).containsEntry("successful", true);
        return client;
    }

    @Test
    void aHeldConnectIsAnsweredAtOnceWithHandshakeAdviceAndTheDrainCompletes() throws Exception {
        TestClient client = connected("/chat/a");
        LocalSession service = engine.server().newLocalSession("service");
        service.handshake();
        CompletableFuture<TestResponse> held = client.connect();
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(1))
                .until(() -> engine.server().isConnectHeld(engine.server().getSession(client.clientId())));

        CompletionStage<Void> drained = engine.server().drain(Duration.ofMillis(1500));
        Map<String, Object> reply = held.get(10, TimeUnit.SECONDS).single("/meta/connect");
        assertThat(reply).containsEntry("successful", false).containsEntry("error", "503::draining")
                .containsEntry("advice", LAST_ADVICE);
        assertThat(engine.server().getSession(client.clientId())).as("the session ended").isNull();
        drained.toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(service.getServerSession().getState().isEnded()).as("local sessions are left alone").isFalse();
        assertThat(engine.server().isDraining()).isTrue();
        assertThat(engine.server().remoteSessionCount()).isZero();
    }

    @Test
    void handshakesAreRefusedWithRetryAdvice() {
        engine.server().drain(Duration.ofMillis(1500));
        Map<String, Object> reply = engine.newClient().handshake();
        assertThat(reply).containsEntry("successful", false).containsEntry("error", "503::draining")
                .containsEntry("advice", Map.of("reconnect", "handshake", "interval", 1500L))
                .doesNotContainKey("clientId");
        assertThat(engine.server().remoteSessionCount()).isZero();
        LocalSession local = engine.server().newLocalSession("late");
        local.handshake();
        assertThat(local.getServerSession()).as("in-process sessions may still handshake").isNotNull();
    }

    @Test
    void aQueueLargerThanOneResponseIsDeliveredOverSeveralConnectsBeforeTheLastReply() throws Exception {
        TestClient client = connected("/chat/a");
        client.maxResponseBytes(200); // one message a response
        LocalSession publisher = engine.server().newLocalSession("publisher");
        publisher.handshake();
        for (int i = 0; i < 5; i++) {
            publisher.getChannel("/chat/a").publish("message " + i + " " + "x".repeat(100), null);
        }
        engine.server().drain(Duration.ofSeconds(1));

        List<Object> data = new ArrayList<>();
        Map<String, Object> last = null;
        for (int connects = 0; connects < 20 && last == null; connects++) {
            long start = System.nanoTime();
            TestResponse response = client.call("[" + client.connectMessage("") + "]");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("never held while draining")
                    .isLessThan(10_000);
            response.deliveries().forEach(message -> data.add(message.get("data")));
            Map<String, Object> reply = response.single("/meta/connect");
            if (Boolean.FALSE.equals(reply.get("successful"))) {
                last = reply;
            }
        }
        assertThat(last).isNotNull().containsEntry("error", "503::draining").containsEntry("advice", LAST_ADVICE);
        assertThat(data).hasSize(5);
        for (int i = 0; i < 5; i++) {
            assertThat((String) data.get(i)).startsWith("message " + i + " ");
        }
        assertThat(engine.server().getSession(client.clientId())).isNull();
    }
}
