package org.bayeux.oort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.bayeux.server.cluster.ClusterMember;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Messages between real nodes on loopback on {@code /service/oort/<service>}. */
class PeerMessagingTest {
    private final OortCluster cluster = new OortCluster(oort -> oort.maxMessageBytes(4096));

    @AfterEach
    void close() throws Exception {
        cluster.close();
    }

    record Received(ClusterMember from, Map<String, Object> data) {
    }

    @Test
    void aMessageReachesOnePeerOrAllAndItsHandlerIsToldTheSender() throws Exception {
        cluster.start(3);
        OortTestNode a = cluster.get(0);
        List<List<Received>> received = List.of(new CopyOnWriteArrayList<>(), new CopyOnWriteArrayList<>(),
                new CopyOnWriteArrayList<>());
        for (int i = 0; i < 3; i++) {
            List<Received> into = received.get(i);
            cluster.get(i).oort.messaging().register("test/echo", (from, data) -> into.add(new Received(from, data)));
        }
        PeerMessaging messaging = a.oort.messaging();
        ClusterMember b = messaging.memberAt(cluster.get(1).url);
        assertThat(b.id()).isEqualTo(cluster.get(1).oort.id());

        assertThat(messaging.send(b, "test/echo", Map.of("n", 1L))).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> received.get(1).size() == 1);
        assertThat(received.get(1).get(0).from()).isEqualTo(messaging.self());
        assertThat(received.get(1).get(0).data()).isEqualTo(Map.of("n", 1L));

        assertThat(messaging.broadcast("test/echo", Map.of("n", 2L))).isEqualTo(2);
        await().atMost(Duration.ofSeconds(10)).until(() -> received.get(1).size() == 2 && received.get(2).size() == 1);
        assertThat(received.get(2).get(0).data()).isEqualTo(Map.of("n", 2L));
        assertThat(received.get(0)).as("never to itself").isEmpty();
    }

    @Test
    void aMessageOverTheLimitOrOnAReservedNameIsRefusedWithAClearError() throws Exception {
        cluster.start(2);
        PeerMessaging messaging = cluster.get(0).oort.messaging();
        assertThatThrownBy(() -> messaging.broadcast("test/big", Map.of("text", "x".repeat(5000))))
                .isInstanceOf(OortMessageTooLargeException.class)
                .hasMessageContaining("oort.maxMessageBytes=4096");
        assertThatThrownBy(() -> messaging.register("forward", (from, data) -> { }))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("forward");
        assertThatThrownBy(() -> messaging.register("a//b", (from, data) -> { }))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anOrdinaryClientCannotSendOnAServiceChannel() throws Exception {
        cluster.start(2);
        OortTestNode b = cluster.get(1);
        List<Received> received = new CopyOnWriteArrayList<>();
        b.oort.messaging().register("test/echo", (from, data) -> received.add(new Received(from, data)));
        var reply = new java.util.concurrent.CompletableFuture<org.bayeux.api.Message>();
        b.connected("intruder").getChannel(PeerMessaging.PREFIX + "test/echo").publish(Map.of("n", 1L),
                (c, m) -> reply.complete(m));
        assertThat(reply.get(10, java.util.concurrent.TimeUnit.SECONDS).isSuccessful()).isFalse();
        assertThat(received).isEmpty();
    }
}
