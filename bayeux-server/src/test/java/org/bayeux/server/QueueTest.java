package org.bayeux.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.server.config.BayeuxServerConfig.MaxQueuePolicy;
import org.bayeux.server.test.EngineHarness;
import org.bayeux.server.test.TestClient;
import org.bayeux.server.test.TestResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Lazy delivery, queue listeners, the queue limit and batching. */
class QueueTest {
    private EngineHarness engine = EngineHarness.start(config -> config.timeout(Duration.ofSeconds(3))
            .maxLazyTimeout(Duration.ofSeconds(2)));

    @AfterEach
    void stop() {
        engine.close();
    }

    private TestClient connected(EngineHarness on) {
        TestClient client = on.newClient();
        client.handshake();
        client.firstConnect();
        return client;
    }

    private static List<Object> dataOf(TestResponse response) {
        List<Object> data = new ArrayList<>();
        response.deliveries().forEach(m -> data.add(m.get("data")));
        return data;
    }

    @Test
    void lazyMessageWaitsForTheChannelLazyTimeout() throws Exception {
        TestClient a = connected(engine);
        TestClient b = connected(engine);
        engine.server().createChannelIfAbsent("/lazy", channel -> channel.setLazyTimeout(Duration.ofMillis(400)));
        a.subscribe("/lazy");
        CompletableFuture<TestResponse> held = a.connect();
        long start = System.nanoTime();
        b.publish("/lazy", "1");
        assertThat(held).isNotDone();
        TestResponse response = held.get(2, TimeUnit.SECONDS);
        long waitedMs = (System.nanoTime() - start) / 1_000_000;
        assertThat(dataOf(response)).containsExactly(1L);
        assertThat(waitedMs).isBetween(350L, 1500L);
    }

    @Test
    void lazyMessageLeavesWithTheNextNonLazyOne() throws Exception {
        TestClient a = connected(engine);
        TestClient b = connected(engine);
        engine.server().createChannelIfAbsent("/lazy", channel -> channel.setLazy(true));
        a.subscribe("/lazy");
        a.subscribe("/eager");
        CompletableFuture<TestResponse> held = a.connect();
        b.publish("/lazy", "1");
        assertThat(held).isNotDone();
        b.publish("/eager", "2");
        assertThat(dataOf(held.get(1, TimeUnit.SECONDS))).containsExactly(1L, 2L);
    }

    @Test
    void queuedEagerMessageIsNotHeldBackByAPendingLazyOne() throws Exception {
        TestClient a = connected(engine);
        TestClient b = connected(engine);
        engine.server().createChannelIfAbsent("/lazy", channel -> channel.setLazyTimeout(Duration.ofSeconds(2)));
        a.subscribe("/lazy");
        a.subscribe("/eager");
        b.publish("/lazy", "1");
        b.publish("/eager", "2");
        // No connect was held while they were queued; the next connect must not wait for the lazy timeout.
        assertThat(dataOf(a.connect().get(500, TimeUnit.MILLISECONDS))).containsExactly(1L, 2L);
    }

    @Test
    void connectWaitsWhileOnlyLazyMessagesAreQueued() throws Exception {
        TestClient a = connected(engine);
        TestClient b = connected(engine);
        engine.server().createChannelIfAbsent("/lazy", channel -> channel.setLazyTimeout(Duration.ofMillis(300)));
        a.subscribe("/lazy");
        b.publish("/lazy", "1");
        CompletableFuture<TestResponse> held = a.connect();
        assertThat(held).isNotDone();
        assertThat(dataOf(held.get(2, TimeUnit.SECONDS))).containsExactly(1L);
    }

    @Test
    void responsesAreCappedInSizeAndTheRestFollowsAtOnce() throws Exception {
        TestClient a = connected(engine);
        TestClient b = connected(engine);
        a.subscribe("/big");
        a.maxResponseBytes(2500);
        String kilobyte = "\"" + "x".repeat(1000) + "\"";
        for (int i = 0; i < 5; i++) {
            b.publish("/big", kilobyte);
        }
        int received = 0;
        for (int round = 0; round < 5 && received < 5; round++) {
            TestResponse response = a.connect().get(500, TimeUnit.MILLISECONDS);
            assertThat(response.deliveries()).hasSizeBetween(1, 2);
            assertThat(response.text().length()).isLessThan(2500 + 400);
            received += response.deliveries().size();
        }
        assertThat(received).isEqualTo(5);
    }

    @Test
    void oneMessageLargerThanTheCapStillLeaves() throws Exception {
        TestClient a = connected(engine);
        TestClient b = connected(engine);
        a.subscribe("/big");
        a.maxResponseBytes(100);
        b.publish("/big", "\"" + "y".repeat(1000) + "\"");
        assertThat(a.connect().get(500, TimeUnit.MILLISECONDS).deliveries()).hasSize(1);
    }

    @Test
    void channelLazyTimeoutIsCappedByMaxLazyTimeout() {
        engine.server().createChannelIfAbsent("/lazy", channel -> channel.setLazyTimeout(Duration.ofMinutes(5)));
        assertThat(engine.server().getChannel("/lazy").getLazyTimeout()).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void deQueueListenerMayRewriteTheQueue() throws Exception {
        TestClient a = connected(engine);
        TestClient b = connected(engine);
        a.subscribe("/q");
        ServerSession session = engine.server().getSession(a.clientId());
        // Keep only the latest value, as a "last value wins" listener would.
        session.addDeQueueListener((owner, queue) -> {
            ServerMessage last = null;
            for (ServerMessage message : queue) {
                last = message;
            }
            queue.clear();
            if (last != null) {
                queue.add(last);
            }
        });
        session.batch(() -> {
            b.publish("/q", "1");
            b.publish("/q", "2");
            b.publish("/q", "3");
        });
        assertThat(dataOf(a.call("[" + a.connectMessage(",\"advice\":{\"timeout\":0}") + "]"))).containsExactly(3L);
    }

    @Test
    void queueListenerMayRefuseAMessage() {
        TestClient a = connected(engine);
        TestClient b = connected(engine);
        a.subscribe("/q");
        engine.server().getSession(a.clientId())
                .addQueueListener((session, sender, message) -> !Long.valueOf(2).equals(message.getData()));
        for (int i = 1; i <= 3; i++) {
            b.publish("/q", String.valueOf(i));
        }
        assertThat(dataOf(a.call("[" + a.connectMessage(",\"advice\":{\"timeout\":0}") + "]"))).containsExactly(1L, 3L);
    }

    @Test
    void maxQueueListenerDecidesAtTheLimit() {
        engine.close();
        engine = EngineHarness.start(config -> config.maxQueue(3));
        TestClient a = connected(engine);
        TestClient b = connected(engine);
        a.subscribe("/q");
        List<Object> refused = new ArrayList<>();
        engine.server().getSession(a.clientId()).addMaxQueueListener((session, queue, sender, message) -> {
            refused.add(message.getData());
            return false;
        });
        for (int i = 1; i <= 5; i++) {
            b.publish("/q", String.valueOf(i));
        }
        assertThat(refused).containsExactly(4L, 5L);
        assertThat(dataOf(a.call("[" + a.connectMessage(",\"advice\":{\"timeout\":0}") + "]"))).containsExactly(1L, 2L, 3L);
    }

    @Test
    void dropOldestPolicyKeepsTheNewest() {
        engine.close();
        engine = EngineHarness.start(config -> config.maxQueue(3).maxQueuePolicy(MaxQueuePolicy.DROP_OLDEST));
        TestClient a = connected(engine);
        TestClient b = connected(engine);
        a.subscribe("/q");
        for (int i = 1; i <= 5; i++) {
            b.publish("/q", String.valueOf(i));
        }
        assertThat(dataOf(a.call("[" + a.connectMessage(",\"advice\":{\"timeout\":0}") + "]"))).containsExactly(3L, 4L, 5L);
    }

    @Test
    void disconnectPolicyEndsTheSlowSession() {
        engine.close();
        engine = EngineHarness.start(config -> config.maxQueue(2).maxQueuePolicy(MaxQueuePolicy.DISCONNECT));
        TestClient a = connected(engine);
        TestClient b = connected(engine);
        a.subscribe("/q");
        for (int i = 1; i <= 3; i++) {
            b.publish("/q", String.valueOf(i));
        }
        assertThat(engine.server().getSession(a.clientId())).isNull();
        Map<String, Object> reply = a.call("[" + a.connectMessage("") + "]").single("/meta/connect");
        assertThat(reply).containsEntry("error", "402::session_unknown");
    }

    @Test
    void batchHoldsDeliveriesUntilItEnds() throws Exception {
        TestClient a = connected(engine);
        a.subscribe("/q");
        ServerSession session = engine.server().getSession(a.clientId());
        CompletableFuture<TestResponse> held = a.connect();
        session.startBatch();
        engine.server().getChannel("/q").publish(null, "1", org.bayeux.api.Promise.noop());
        engine.server().getChannel("/q").publish(null, "2", org.bayeux.api.Promise.noop());
        assertThat(held).isNotDone();
        session.endBatch();
        assertThat(dataOf(held.get(1, TimeUnit.SECONDS))).containsExactly("1", "2");
    }
}
