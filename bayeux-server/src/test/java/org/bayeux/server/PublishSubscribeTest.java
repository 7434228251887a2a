package org.bayeux.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import org.bayeux.server.test.EngineHarness;
import org.bayeux.server.test.TestClient;
import org.bayeux.server.test.TestResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PublishSubscribeTest {
    private static final long TIMEOUT_MS = 2000;

    private final EngineHarness engine = EngineHarness.start(config -> config.timeout(Duration.ofMillis(TIMEOUT_MS)));

    @AfterEach
    void stop() {
        engine.close();
    }

    private TestClient connected() {
        TestClient client = engine.newClient();
        client.handshake();
        client.firstConnect();
        return client;
    }

    @Test
    void c09HeldConnectIsReleasedByADelivery() throws Exception {
        TestClient a = connected();
        TestClient b = connected();
        assertThat(a.subscribe("/chat/a")).containsEntry("successful", true).containsEntry("subscription", "/chat/a");
        CompletableFuture<TestResponse> held = a.connect();
        long start = System.nanoTime();
        b.publish("/chat/a", "{\"text\":\"hi\"}");
        TestResponse response = held.get(200, TimeUnit.MILLISECONDS);
        assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(200);
        assertThat(response.messages()).extracting(m -> m.get("channel")).containsExactly("/chat/a", "/meta/connect");
        Map<String, Object> delivery = response.messages().get(0);
        assertThat(delivery).containsEntry("data", Map.of("text", "hi")).doesNotContainKeys("clientId", "id", "successful");
    }

    @Test
    void subscriptionsPastTheSmallSetsBoundAreAllKeptAndEachUnsubscribeCounts() {
        TestClient a = connected();
        ServerSessionImpl session = (ServerSessionImpl) engine.server().getSession(a.clientId());
        int count = SubscriptionSets.FEW + 4;
        for (int i = 0; i < count; i++) {
            assertThat(a.subscribe("/many/" + i)).containsEntry("successful", true);
            assertThat(session.getSubscriptions()).hasSize(i + 1);
        }
        a.subscribe("/many/0");
        assertThat(session.getSubscriptions()).hasSize(count);
        for (int i = 0; i < count; i += 2) {
            assertThat(a.unsubscribe("/many/" + i)).containsEntry("successful", true);
        }
        assertThat(session.getSubscriptions()).extracting(channel -> channel.getId())
                .containsExactlyInAnyOrder(IntStream.range(0, count).filter(i -> i % 2 == 1)
                        .mapToObj(i -> "/many/" + i).toArray(String[]::new));
        for (int i = 0; i < count; i++) {
            TestResponse response = a.publish("/many/" + i, "{\"n\":" + i + "}");
            assertThat(response.deliveries()).as("delivery on /many/%d", i).hasSize(i % 2);
        }
    }

    @Test
    void aFewSubscriptionsComeAndGoInTheSmallSet() {
        TestClient a = connected();
        ServerSessionImpl session = (ServerSessionImpl) engine.server().getSession(a.clientId());
        a.subscribe("/few/a");
        a.subscribe("/few/b");
        a.unsubscribe("/few/a");
        assertThat(session.getSubscriptions()).extracting(channel -> channel.getId()).containsExactly("/few/b");
        assertThat(a.publish("/few/a", "1").deliveries()).isEmpty();
        assertThat(a.publish("/few/b", "2").deliveries()).hasSize(1);
    }

    @Test
    void c10PublishReplyEchoesIdAndHasNoData() {
        TestClient a = connected();
        Map<String, Object> reply = a.call("[{\"id\":\"77\",\"channel\":\"/chat/a\",\"data\":1,\"clientId\":\""
                + a.clientId() + "\"}]").single("/chat/a");
        assertThat(reply).containsEntry("id", "77").containsEntry("successful", true).doesNotContainKey("data");
    }

    @Test
    void c11PublishWithoutIdStillGetsAReply() {
        TestClient a = connected();
        TestResponse response = a.call("[{\"channel\":\"/chat/a\",\"data\":1,\"clientId\":\"" + a.clientId() + "\"}]");
        assertThat(response.messages()).hasSize(1);
        assertThat(response.messages().get(0)).containsEntry("successful", true).doesNotContainKey("id");
    }

    @Test
    void publisherSubscribedGetsItsOwnCopyBeforeTheReply() {
        TestClient a = connected();
        a.subscribe("/chat/a");
        TestResponse response = a.publish("/chat/a", "{\"text\":\"hi\"}");
        assertThat(response.messages()).hasSize(2);
        assertThat(response.messages().get(0)).containsEntry("data", Map.of("text", "hi")).doesNotContainKey("successful");
        assertThat(response.messages().get(1)).containsEntry("successful", true).doesNotContainKey("data");
    }

    @Test
    void broadcastToPublisherCanBeTurnedOff() {
        try (EngineHarness quiet = EngineHarness.start(config -> config.broadcastToPublisher(false))) {
            TestClient a = quiet.newClient();
            a.handshake();
            a.firstConnect();
            a.subscribe("/chat/a");
            assertThat(a.publish("/chat/a", "1").deliveries()).isEmpty();
        }
        TestClient b = connected();
        b.subscribe("/chat/b");
        engine.server().getChannel("/chat/b").setBroadcastToPublisher(false);
        assertThat(b.publish("/chat/b", "1").deliveries()).isEmpty();
        TestClient c = connected();
        c.subscribe("/chat/c");
        engine.server().getSession(c.clientId()).setBroadcastToPublisher(false);
        assertThat(c.publish("/chat/c", "1").deliveries()).isEmpty();
    }

    @Test
    void publishWithoutDataIsRelayedWithNullData() {
        TestClient a = connected();
        a.subscribe("/chat/a");
        TestResponse response = a.call("[{\"channel\":\"/chat/a\",\"clientId\":\"" + a.clientId() + "\"}]");
        assertThat(response.deliveries()).hasSize(1);
        assertThat(response.deliveries().get(0)).containsKey("data").containsEntry("data", null);
    }

    @Test
    void c12SingleWildcardDoesNotMatchDeeperChannels() {
        TestClient a = connected();
        TestClient b = connected();
        a.subscribe("/chat/*");
        b.publish("/chat/a/b", "1");
        b.publish("/chat/x", "2");
        assertThat(a.call("[" + a.connectMessage(",\"advice\":{\"timeout\":0}") + "]").deliveries())
                .extracting(m -> m.get("channel")).containsExactly("/chat/x");
    }

    @Test
    void c13DeepWildcardMatchesEveryDeeperChannelButNotItsRoot() {
        TestClient a = connected();
        TestClient b = connected();
        a.subscribe("/chat/**");
        b.publish("/chat/a/b", "1");
        b.publish("/chat", "2");
        b.publish("/chat/c", "3");
        assertThat(a.call("[" + a.connectMessage(",\"advice\":{\"timeout\":0}") + "]").deliveries())
                .extracting(m -> m.get("channel")).containsExactly("/chat/a/b", "/chat/c");
    }

    @Test
    void c14OverlappingSubscriptionsDeliverOnce() {
        TestClient a = connected();
        TestClient b = connected();
        a.subscribe("/chat/a");
        a.subscribe("/chat/*");
        a.subscribe("/chat/**");
        a.subscribe("/**");
        b.publish("/chat/a", "1");
        assertThat(a.call("[" + a.connectMessage(",\"advice\":{\"timeout\":0}") + "]").deliveries()).hasSize(1);
    }

    @Test
    void c15ArraySubscriptionGetsOneReplyEchoingTheArray() {
        TestClient a = connected();
        TestClient b = connected();
        Map<String, Object> reply = a.subscribe("[\"/a\",\"/b\"]");
        assertThat(reply).containsEntry("successful", true).containsEntry("subscription", List.of("/a", "/b"));
        b.publish("/a", "1");
        b.publish("/b", "2");
        assertThat(a.call("[" + a.connectMessage(",\"advice\":{\"timeout\":0}") + "]").deliveries())
                .extracting(m -> m.get("channel")).containsExactly("/a", "/b");
    }

    @Test
    void arraySubscriptionStopsAtTheFirstFailureKeepingEarlierEntries() {
        TestClient a = connected();
        Map<String, Object> reply = a.subscribe("[\"/a\",\"/meta/connect\",\"/b\"]");
        assertThat(reply).containsEntry("successful", false).containsEntry("error", "403:/meta/connect:subscribe_denied");
        assertThat(engine.server().getChannel("/a").getSubscribers()).hasSize(1);
        assertThat(engine.server().getChannel("/b")).isNull();
    }

    @Test
    void c16MetaSubscriptionIsDenied() {
        Map<String, Object> reply = connected().subscribe("/meta/connect");
        assertThat(reply).containsEntry("successful", false);
        assertThat((String) reply.get("error")).startsWith("403:");
    }

    @Test
    void c17ServiceSubscriptionSucceedsButReceivesNothing() {
        TestClient a = connected();
        TestClient b = connected();
        assertThat(a.subscribe("/service/echo")).containsEntry("successful", true);
        b.publish("/service/echo", "1");
        assertThat(a.call("[" + a.connectMessage(",\"advice\":{\"timeout\":0}") + "]").deliveries()).isEmpty();
    }

    @Test
    void c19InvalidPublishesAreRefused() {
        TestClient a = connected();
        assertThat(a.publish("/meta/foo", "1").single("/meta/foo")).containsEntry("error", "403:/meta/foo:publish_denied");
        assertThat(a.publish("/chat/*", "1").single("/chat/*")).containsEntry("error", "405:/chat/*:channel_invalid");
        assertThat(a.publish("chat", "1").single("chat")).containsEntry("error", "405:chat:channel_invalid");
        assertThat(a.publish("/a//b", "1").single("/a//b")).containsEntry("error", "405:/a//b:channel_invalid");
    }

    @Test
    void c20SubscribeWithoutSubscriptionIsRefused() {
        TestClient a = connected();
        Map<String, Object> reply = a.call("[{\"channel\":\"/meta/subscribe\",\"clientId\":\"" + a.clientId() + "\"}]")
                .single("/meta/subscribe");
        assertThat(reply).containsEntry("successful", false).containsEntry("error", "403::subscription_missing");
        Map<String, Object> invalid = a.call("[{\"channel\":\"/meta/subscribe\",\"subscription\":[\"/a\",7],\"clientId\":\""
                + a.clientId() + "\"}]").single("/meta/subscribe");
        assertThat(invalid).containsEntry("error", "403::subscription_invalid");
        assertThat(a.subscribe("/a/**/b")).containsEntry("error", "403::subscription_invalid");
    }

    @Test
    void c21UnsubscribeStopsDeliveriesAndIsIdempotent() {
        TestClient a = connected();
        TestClient b = connected();
        a.subscribe("/chat/a");
        assertThat(a.unsubscribe("/chat/a")).containsEntry("successful", true).containsEntry("subscription", "/chat/a");
        b.publish("/chat/a", "1");
        assertThat(a.call("[" + a.connectMessage(",\"advice\":{\"timeout\":0}") + "]").deliveries()).isEmpty();
        assertThat(a.unsubscribe("/never/subscribed")).containsEntry("successful", true);
    }

    @Test
    void c23UnknownClientGetsSessionUnknownWithoutAdvice() {
        TestClient ghost = engine.newClient();
        ghost.clientId("ghost");
        assertThat(ghost.publish("/chat/a", "1").single("/chat/a")).containsEntry("error", "402::session_unknown")
                .doesNotContainKey("advice");
        assertThat(ghost.subscribe("/chat/a")).containsEntry("error", "402::session_unknown").doesNotContainKey("advice");
    }

    @Test
    void c25ChannelLessMessageFailsAloneInItsBatch() {
        TestClient a = connected();
        TestResponse response = a.call("[{\"id\":\"1\",\"data\":1,\"clientId\":\"" + a.clientId() + "\"},"
                + "{\"id\":\"2\",\"channel\":\"/chat/a\",\"data\":1,\"clientId\":\"" + a.clientId() + "\"}]");
        assertThat(response.messages()).hasSize(2);
        assertThat(response.messages().get(0)).containsEntry("id", "1").containsEntry("error", "400::channel_missing");
        assertThat(response.messages().get(1)).containsEntry("id", "2").containsEntry("successful", true);
    }

    @Test
    void nonStringChannelIsTreatedAsMissing() {
        TestClient a = connected();
        TestResponse response = a.call("[{\"id\":\"1\",\"channel\":42,\"clientId\":\"" + a.clientId() + "\"}]");
        assertThat(response.messages().get(0)).containsEntry("error", "400::channel_missing");
    }

    @Test
    void c44TimestampAndUnknownFieldsAreRelayedUnchanged() {
        TestClient a = connected();
        TestClient b = connected();
        a.subscribe("/chat/a");
        b.call("[{\"channel\":\"/chat/a\",\"data\":1,\"timestamp\":\"Tue, 05 Mar 2024 10:00:00 GMT\",\"x-custom\":[1,2],"
                + "\"ext\":{\"k\":\"v\"},\"clientId\":\"" + b.clientId() + "\"}]");
        Map<String, Object> delivery = a.call("[" + a.connectMessage(",\"advice\":{\"timeout\":0}") + "]").deliveries().get(0);
        assertThat(delivery).containsEntry("timestamp", "Tue, 05 Mar 2024 10:00:00 GMT")
                .containsEntry("x-custom", List.of(1L, 2L)).containsEntry("ext", Map.of("k", "v"));
    }

    @Test
    void idAndNumericIdAreEchoedUnchanged() {
        TestClient a = connected();
        Map<String, Object> reply = a.call("[{\"id\":12,\"channel\":\"/chat/a\",\"data\":1,\"clientId\":\""
                + a.clientId() + "\"}]").single("/chat/a");
        assertThat(reply).containsEntry("id", 12L);
    }

    @Test
    void unusedChannelsAreSweptButPersistentOnesStay() {
        try (EngineHarness sweeping = EngineHarness.start(config -> config.sweepPeriod(Duration.ofMillis(20)))) {
            TestClient a = sweeping.newClient();
            a.handshake();
            a.subscribe("/temp");
            sweeping.server().createChannelIfAbsent("/kept", channel -> channel.setPersistent(true));
            a.unsubscribe("/temp");
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5))
                    .until(() -> sweeping.server().getChannel("/temp") == null);
            assertThat(sweeping.server().getChannel("/kept")).isNotNull();
        }
    }
}
