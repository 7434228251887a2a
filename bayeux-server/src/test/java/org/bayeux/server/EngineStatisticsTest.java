package org.bayeux.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.bayeux.server.test.EngineHarness;
import org.bayeux.server.test.TestClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The engine's running totals: what came in, what went out, handshakes, errors and fan-outs. */
class EngineStatisticsTest {
    private EngineHarness engine;

    @AfterEach
    void stop() {
        if (engine != null) {
            engine.close();
        }
    }

    @Test
    void countsBatchesMessagesHandshakesAndErrors() {
        engine = EngineHarness.start();
        EngineStatistics statistics = engine.server().statistics();
        List<String> newErrors = new CopyOnWriteArrayList<>();
        statistics.setNewErrorListener(newErrors::add);
        TestClient client = engine.newClient();
        client.handshake();
        client.firstConnect();
        client.subscribe("/a");
        client.publish("/a", "1");
        client.publish("/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q/r/s/t/u/v/w/x/y/z/1/2/3/4/5/6/7/8", "1");
        assertThat(statistics.handshakesAccepted()).isEqualTo(1);
        assertThat(statistics.handshakesRefused()).isZero();
        assertThat(statistics.batchesIn()).isEqualTo(5);
        assertThat(statistics.messagesIn()).isEqualTo(5);
        assertThat(statistics.bytesIn()).isPositive();
        assertThat(statistics.batchesOut()).isEqualTo(5);
        assertThat(statistics.messagesOut()).as("5 replies and the delivery").isEqualTo(6);
        assertThat(statistics.publishes()).isEqualTo(1);
        assertThat(statistics.deliveries()).isEqualTo(1);
        assertThat(statistics.errors()).containsEntry("405::channel_segments_limit", 1L);
        assertThat(newErrors).as("the engine's errors are keys from the start").isEmpty();
    }

    /** One publish to many subscribers: one fan-out counted with all its recipients, in one update. */
    @Test
    void aFanOutIsCountedOnce() {
        engine = EngineHarness.start();
        EngineStatistics statistics = engine.server().statistics();
        List<TestClient> subscribers = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            TestClient client = engine.newClient();
            client.handshake();
            client.firstConnect();
            client.subscribe("/many");
            subscribers.add(client);
        }
        TestClient publisher = engine.newClient();
        publisher.handshake();
        publisher.publish("/many", "1");
        assertThat(statistics.publishes()).isEqualTo(1);
        assertThat(statistics.deliveries()).isEqualTo(200);
    }

    /**
     * Latencies go to the recorder for about one batch in 16 that carries a published message: 400 such batches
     * leave none recorded with a probability of (15/16)^400, about 6e-12.
     */
    @Test
    void sampledLatenciesReachTheRecorder() {
        engine = EngineHarness.start();
        EngineStatistics statistics = engine.server().statistics();
        List<Long> latencies = new CopyOnWriteArrayList<>();
        statistics.setDeliveryLatencyRecorder(latencies::add);
        TestClient client = engine.newClient();
        client.handshake();
        client.firstConnect();
        client.subscribe("/self");
        for (int i = 0; i < 400; i++) {
            // The reply carries the delivery of the publish itself (the publisher is subscribed).
            assertThat(client.publish("/self", "1").messages()).hasSize(2);
        }
        assertThat(latencies).isNotEmpty().hasSizeLessThan(400).allSatisfy(nanos -> assertThat(nanos).isNotNegative());
    }

    @Test
    void errorsAreKeyedByCodeAndKnownTokenOnly() {
        engine = EngineHarness.start();
        EngineStatistics statistics = engine.server().statistics();
        List<String> newErrors = new CopyOnWriteArrayList<>();
        statistics.setNewErrorListener(newErrors::add);
        int engineKeys = statistics.errors().size();
        assertThat(statistics.errors()).containsEntry("402::session_unknown", 0L).containsEntry("503::draining", 0L)
                .containsEntry("413::batch_limit", 0L);
        for (int i = 0; i < EngineStatistics.MAX_ERROR_KEYS * 4; i++) {
            // What a client sent, in the arguments, and tokens no one registered.
            statistics.handshakeRefused("405:/client/chosen/" + i + ":channel_invalid");
            statistics.handshakeRefused("403:" + i + ":reason_" + i);
        }
        assertThat(statistics.errors()).hasSize(engineKeys + 1).containsEntry("405::channel_invalid",
                (long) EngineStatistics.MAX_ERROR_KEYS * 4).containsEntry("403::other",
                (long) EngineStatistics.MAX_ERROR_KEYS * 4);
        assertThat(newErrors).containsExactly("403::other");
        statistics.registerError(403, "reason_1");
        statistics.handshakeRefused("403:x:reason_1");
        assertThat(statistics.errors()).containsEntry("403::reason_1", 1L);
        assertThat(newErrors).containsExactly("403::other", "403::reason_1");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> statistics.registerError(403, "Not a token"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void keysAddedAsErrorsComeAreBounded() {
        engine = EngineHarness.start();
        EngineStatistics statistics = engine.server().statistics();
        int engineKeys = statistics.errors().size();
        for (int code = 100; code < 600; code++) {
            statistics.handshakeRefused(code + ":args:anything");
        }
        statistics.handshakeRefused("not an error string");
        assertThat(statistics.errors()).hasSize(engineKeys + EngineStatistics.MAX_ERROR_KEYS + 1)
                .containsEntry(EngineStatistics.OTHER_ERROR, 500L - EngineStatistics.MAX_ERROR_KEYS + 1);
        assertThat(statistics.errors(KnownErrors.key(402, "session_unknown"))).isZero();
    }
}
