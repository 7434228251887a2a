package org.bayeux.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.bayeux.server.test.EngineHarness;
import org.bayeux.server.test.TestClient;
import org.bayeux.server.test.TestResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Many publishers and many long-polling subscribers at once: every message reaches every subscriber exactly once,
 * each publisher's order is kept, and nothing deadlocks.
 */
class ConcurrencyTest {
    private static final int PUBLISHERS = 8;
    private static final int MESSAGES_PER_PUBLISHER = 250;
    private static final int SUBSCRIBERS = 12;

    private final EngineHarness engine = EngineHarness.start(config -> config.timeout(Duration.ofMillis(200))
            .maxQueue(PUBLISHERS * MESSAGES_PER_PUBLISHER + 10));
    private final ExecutorService threads = Executors.newFixedThreadPool(PUBLISHERS + SUBSCRIBERS);

    @AfterEach
    void stop() throws InterruptedException {
        threads.shutdownNow();
        assertThat(threads.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        engine.close();
    }

    @Test
    void everyMessageReachesEverySubscriberOnceAndInPublisherOrder() throws Exception {
        int expected = PUBLISHERS * MESSAGES_PER_PUBLISHER;
        List<TestClient> subscribers = new ArrayList<>();
        for (int i = 0; i < SUBSCRIBERS; i++) {
            TestClient subscriber = engine.newClient();
            subscriber.handshake();
            subscriber.firstConnect();
            // Half subscribe through a wildcard and an exact name: still once each.
            subscriber.subscribe(i % 2 == 0 ? "/load/**" : "[\"/load/*\",\"/load/room\"]");
            subscribers.add(subscriber);
        }
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Map<Long, List<Long>>>> received = new ArrayList<>();
        for (TestClient subscriber : subscribers) {
            received.add(threads.submit(() -> poll(subscriber, expected)));
        }
        List<Future<?>> published = new ArrayList<>();
        for (int p = 0; p < PUBLISHERS; p++) {
            int publisherIndex = p;
            published.add(threads.submit(() -> {
                TestClient publisher = engine.newClient();
                publisher.handshake();
                start.await();
                for (int n = 0; n < MESSAGES_PER_PUBLISHER; n++) {
                    TestResponse reply = publisher.publish("/load/room", "{\"p\":" + publisherIndex + ",\"n\":" + n + "}");
                    assertThat(reply.single("/load/room")).containsEntry("successful", true);
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> future : published) {
            future.get(60, TimeUnit.SECONDS);
        }
        for (Future<Map<Long, List<Long>>> future : received) {
            Map<Long, List<Long>> byPublisher = future.get(60, TimeUnit.SECONDS);
            assertThat(byPublisher).hasSize(PUBLISHERS);
            for (List<Long> sequence : byPublisher.values()) {
                assertThat(sequence).hasSize(MESSAGES_PER_PUBLISHER).isSorted().doesNotHaveDuplicates();
            }
        }
    }

    /** Long-polls until {@code expected} deliveries arrived, bounded by a deadline. */
    private static Map<Long, List<Long>> poll(TestClient subscriber, int expected) {
        Map<Long, List<Long>> byPublisher = new HashMap<>();
        int count = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (count < expected && System.nanoTime() < deadline) {
            TestResponse response = subscriber.call("[" + subscriber.connectMessage("") + "]");
            assertThat(response.single("/meta/connect")).containsEntry("successful", true);
            for (Map<String, Object> delivery : response.deliveries()) {
                @SuppressWarnings("unchecked")
                Map<String, Object> data = (Map<String, Object>) delivery.get("data");
                byPublisher.computeIfAbsent((Long) data.get("p"), key -> new ArrayList<>()).add((Long) data.get("n"));
                count++;
            }
        }
        return byPublisher;
    }
}
