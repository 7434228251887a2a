package org.bayeux.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.bayeux.server.test.EngineHarness;
import org.bayeux.server.test.TestClient;
import org.bayeux.server.test.TestResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The input limits of the engine: each hit answered with its error and counted, the session and others unharmed. */
class LimitsTest {
    private static final int ONE_MIB = 1024 * 1024;

    private EngineHarness engine;

    @AfterEach
    void stop() {
        if (engine != null) {
            engine.close();
        }
    }

    private TestClient connected() {
        TestClient client = engine.newClient();
        client.handshake();
        client.firstConnect();
        return client;
    }

    private long hits(Limit limit) {
        return engine.server().getLimitCounters().get(limit);
    }

    /** A name of about 1 MiB made of 2-character segments: quadratic wildcard work would need hundreds of GB. */
    private static String hugeName(char first) {
        StringBuilder name = new StringBuilder(ONE_MIB);
        name.append('/').append(first);
        while (name.length() < ONE_MIB) {
            name.append("/a");
        }
        return name.toString();
    }

    private static Map<String, Object> onlyMessage(TestResponse response) {
        assertThat(response.messages()).hasSize(1);
        return response.messages().get(0);
    }

    /** Heap in use after full collections: the least of three, so that garbage still being freed does not count. */
    private static long retainedHeap() {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long least = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            System.gc();
            least = Math.min(least, memory.getHeapMemoryUsage().getUsed());
        }
        return least;
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aOneMebibyteChannelNameIsRefusedInPublishAndSubscribeAndLeavesNothingOnTheHeap() {
        engine = EngineHarness.start();
        TestClient attacker = connected();
        TestClient other = connected();
        other.subscribe("/chat/room");
        // Once before measuring, so that classes loaded and caches filled on the first refusal do not count.
        attacker.publish(hugeName('w'), "1");
        attacker.subscribe(hugeName('w'));
        long before = retainedHeap();

        int rounds = 8;
        for (int i = 0; i < rounds; i++) {
            char first = (char) ('b' + i);
            assertThat(onlyMessage(attacker.publish(hugeName(first), "1")))
                    .containsEntry("successful", false).containsEntry("error", "405::channel_length_limit");
            assertThat(attacker.subscribe(hugeName(first)))
                    .containsEntry("successful", false).containsEntry("error", "405::channel_length_limit");
            assertThat(attacker.call("[{\"channel\":\"/meta/subscribe\",\"subscription\":[\"/ok\",\"" + hugeName(first)
                    + "\"],\"clientId\":\"" + attacker.clientId() + "\"}]").single("/meta/subscribe"))
                    .containsEntry("error", "405::channel_length_limit");
            assertThat(attacker.unsubscribe(hugeName(first))).containsEntry("error", "405::channel_length_limit");
        }
        long grown = retainedHeap() - before;

        // One kept name alone would be 1 MiB, and its segments far more.
        assertThat(grown).as("retained heap growth in bytes").isLessThan(2L * ONE_MIB);
        assertThat(engine.server().getChannels()).extracting(channel -> channel.getId().length())
                .allMatch(length -> length < 100);
        assertThat(hits(Limit.CHANNEL_NAME_LENGTH)).isEqualTo(2 + 4L * rounds);
        assertThat(attacker.publish("/chat/room", "\"still here\"").single("/chat/room"))
                .containsEntry("successful", true);
        assertThat(other.call("[" + other.connectMessage("") + "]").deliveries()).hasSize(1);
    }

    @Test
    void tooManySegmentsAreRefusedBeforeAnyOtherWork() {
        engine = EngineHarness.start(config -> config.maxChannelSegments(4));
        TestClient client = connected();
        assertThat(client.publish("/a/b/c/d", "1").single("/a/b/c/d")).containsEntry("successful", true);
        assertThat(client.publish("/a/b/c/d/e", "1").single("/a/b/c/d/e"))
                .containsEntry("error", "405::channel_segments_limit");
        assertThat(client.subscribe("/a/b/c/d/**")).containsEntry("error", "405::channel_segments_limit");
        assertThat(client.subscribe("/a/b/c/**")).containsEntry("successful", true);
        assertThat(hits(Limit.CHANNEL_SEGMENTS)).isEqualTo(2);
    }

    @Test
    void subscriptionsPerSessionAreCapped() {
        engine = EngineHarness.start(config -> config.maxSubscriptionsPerSession(3));
        TestClient client = connected();
        TestClient other = connected();
        for (String channel : List.of("/s/1", "/s/2", "/s/3")) {
            assertThat(client.subscribe(channel)).containsEntry("successful", true);
        }

        assertThat(client.subscribe("/s/4")).containsEntry("successful", false)
                .containsEntry("error", "403::subscription_limit");
        assertThat(client.subscribe("/s/1")).as("again, not a new one").containsEntry("successful", true);
        assertThat(client.subscribe("[\"/t/1\",\"/t/2\",\"/t/3\",\"/t/4\"]"))
                .containsEntry("error", "403::subscription_limit");
        assertThat(engine.server().getChannel("/s/4")).as("not created").isNull();
        assertThat(hits(Limit.SUBSCRIPTIONS_PER_SESSION)).isEqualTo(2);

        for (String channel : List.of("/s/1", "/s/4", "/t/4")) {
            assertThat(other.subscribe(channel)).as("another session's own count").containsEntry("successful", true);
        }
        assertThat(client.unsubscribe("/s/3")).containsEntry("successful", true);
        assertThat(client.subscribe("/s/4")).containsEntry("successful", true);
        connected().publish("/s/4", "\"hello\"");
        assertThat(client.call("[" + client.connectMessage("") + "]").deliveries()).hasSize(1);
    }

    @Test
    void channelsInTheServerAreCappedForClientsButNotForTheApplication() {
        // No sweep during the test: the count of channels must only change by what the test does.
        engine = EngineHarness.start(config -> config.maxChannels(10).sweepPeriod(java.time.Duration.ofHours(1)));
        TestClient client = connected();
        TestClient other = connected();
        assertThat(other.subscribe("/existing")).containsEntry("successful", true);
        int created = engine.server().getChannels().size();
        for (int i = 0; created < 10 && i < 20; i++) {
            assertThat(client.publish("/c/" + i, "1").single("/c/" + i)).containsEntry("successful", true);
            created = engine.server().getChannels().size();
        }
        assertThat(created).isEqualTo(10);

        assertThat(client.publish("/c/new", "1").single("/c/new")).containsEntry("error", "403::channel_limit");
        assertThat(other.subscribe("/c/other")).containsEntry("error", "403::channel_limit");
        assertThat(engine.server().getChannels()).hasSize(10);
        assertThat(hits(Limit.CHANNELS)).isEqualTo(2);

        assertThat(client.publish("/existing", "\"hi\"").single("/existing")).containsEntry("successful", true);
        assertThat(other.call("[" + other.connectMessage("") + "]").deliveries()).hasSize(1);
        assertThat(engine.server().createChannelIfAbsent("/by/the/application")).isNotNull();
    }

    @Test
    void channelCreationsPerSessionAndSecondAreCapped() {
        int perSecond = 3;
        engine = EngineHarness.start(config -> config.maxChannelCreationsPerSecond(perSecond));
        TestClient client = connected();
        TestClient other = connected();
        long start = System.nanoTime();
        int accepted = 0;
        int refused = 0;
        for (int i = 0; i < 20; i++) {
            Map<String, Object> reply = client.publish("/r/" + i, "1").single("/r/" + i);
            if (Boolean.TRUE.equals(reply.get("successful"))) {
                accepted++;
            } else {
                assertThat(reply).containsEntry("error", "403::channel_rate_limit");
                refused++;
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;

        assertThat(refused).isPositive();
        assertThat(accepted).isBetween(perSecond, perSecond + (int) Math.ceil(seconds * perSecond));
        assertThat(hits(Limit.CHANNEL_CREATION_RATE)).isEqualTo(refused);
        assertThat(client.publish("/r/0", "1").single("/r/0")).as("existing channel").containsEntry("successful", true);
        assertThat(other.publish("/r/other", "1").single("/r/other")).as("another session's budget")
                .containsEntry("successful", true);
    }

    @Test
    void aBatchOverTheLimitIsNotProcessedAndItsFirstMessageIsAnswered() {
        engine = EngineHarness.start(config -> config.maxMessagesPerBatch(10));
        TestClient client = connected();
        TestClient subscriber = connected();
        subscriber.subscribe("/b");
        StringBuilder batch = new StringBuilder("[");
        for (int i = 0; i < 60_000; i++) {
            batch.append(i == 0 ? "" : ",").append("{\"id\":\"p").append(i).append("\",\"channel\":\"/b\",\"data\":")
                    .append(i).append(",\"clientId\":\"").append(client.clientId()).append("\"}");
        }
        TestResponse response = client.call(batch.append(']').toString());

        assertThat(onlyMessage(response)).containsEntry("id", "p0").containsEntry("channel", "/b")
                .containsEntry("successful", false).containsEntry("error", "413::batch_limit");
        assertThat(hits(Limit.MESSAGES_PER_BATCH)).isEqualTo(1);
        assertThat(subscriber.call("[" + subscriber.connectMessage(",\"advice\":{\"timeout\":0}") + "]").deliveries())
                .as("nothing of the batch was published").isEmpty();

        StringBuilder allowed = new StringBuilder("[");
        for (int i = 0; i < 10; i++) {
            allowed.append(i == 0 ? "" : ",").append("{\"channel\":\"/b\",\"data\":").append(i)
                    .append(",\"clientId\":\"").append(client.clientId()).append("\"}");
        }
        assertThat(client.call(allowed.append(']').toString()).on("/b")).hasSize(10)
                .allMatch(reply -> Boolean.TRUE.equals(reply.get("successful")));
        assertThat(subscriber.call("[" + subscriber.connectMessage("") + "]").deliveries()).hasSize(10);
    }
}
