package org.bayeux.backplane.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.bayeux.backplane.redis.BackplaneFixture.Node;
import org.bayeux.server.config.BayeuxServerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What one subscribe can make Redis and the node read (issue 31, "recovery reads are unbounded"): a real node
 * (Jetty on 127.0.0.1, port 0) on a real redis-server, a hand-written client sending the subscribes an attacker would.
 * Measured in bytes Redis sent and scripts it ran, and in what the session was given to send, never in time.
 */
class RecoveryBudgetTest {
    private static final String CHANNEL = "/big/room";
    private static final int MAX_QUEUE_BYTES = 64 * 1024;
    @RegisterExtension
    final BackplaneFixture fixture = new BackplaneFixture();

    private Node node() throws Exception {
        return fixture.node(BayeuxServerConfig.builder().maxQueueBytes(MAX_QUEUE_BYTES).build(),
                BudgetFixtures.readingAll(fixture.config().historyRules("/big/**=1000/10m")));
    }

    private static String payload(int bytes) {
        return "x".repeat(bytes);
    }

    /**
     * The finding: a small subscribe with {@code ext.recovery.offset} far back had Redis build one reply of every
     * message in the history (54 MB at the time), and the node queue all of them. Now Redis sends no more than the
     * session may queue (its {@code maxQueueBytes}), in pages, and the recovery gives up: nothing is queued.
     */
    @Test
    void aRecoveryFromFarBackReadsNoMoreThanTheSessionMayQueue() throws Exception {
        Node node = node();
        RawBayeux publisher = new RawBayeux(node.url());
        publisher.handshake();
        for (int i = 0; i < 100; i++) {
            assertThat(publisher.publish(CHANNEL, payload(10_000), null).get("successful")).isEqualTo(true);
        }
        try (RedisStats redis = fixture.closing(new RedisStats(fixture.redis().uri()))) {
            String epoch = redis.commands().hget(redis.keys("*:meta:*" + CHANNEL).get(0), "e");
            RawBayeux attacker = new RawBayeux(node.url());
            String session = attacker.handshake();
            long before = redis.netOutputBytes();
            Map<String, Object> reply = attacker.subscribe(CHANNEL,
                    "{\"offset\":0,\"epoch\":\"" + epoch + "\"}");
            long sent = redis.netOutputBytes() - before;

            assertThat(reply.get("successful")).isEqualTo(true);
            assertThat(sent).as("bytes Redis sent for one subscribe (history holds 1 MB)")
                    .isLessThan(2L * MAX_QUEUE_BYTES);
            assertThat(RawBayeux.recoveryOf(reply)).containsEntry("recovered", false);
            assertThat(node.engine().getSession(session).getQueueBytes()).as("queued for the session").isLessThanOrEqualTo(MAX_QUEUE_BYTES);
        }
    }

    /**
     * The finding: each subscribe to a channel the session already holds ran a history read (1,429 bytes out per byte
     * in). Now a subscribe whose position is the one the session was last given reads nothing.
     */
    @Test
    void subscribingAgainToAHeldChannelWithoutAGapReadsNothing() throws Exception {
        Node node = node();
        RawBayeux publisher = new RawBayeux(node.url());
        publisher.handshake();
        for (int i = 0; i < 5; i++) {
            assertThat(publisher.publish(CHANNEL, payload(1_000), null).get("successful")).isEqualTo(true);
        }
        try (RedisStats redis = fixture.closing(new RedisStats(fixture.redis().uri()))) {
            RawBayeux subscriber = new RawBayeux(node.url());
            subscriber.handshake();
            Map<String, Object> first = subscriber.subscribe(CHANNEL, "{}");
            Map<String, Object> position = RawBayeux.recoveryOf(first);
            assertThat(position).containsEntry("offset", 5L);
            long scripts = redis.scriptsRun();
            long bytes = redis.netOutputBytes();
            for (int i = 0; i < 20; i++) {
                Map<String, Object> again = subscriber.subscribe(CHANNEL,
                        "{\"offset\":5,\"epoch\":\"" + position.get("epoch") + "\"}");
                assertThat(RawBayeux.recoveryOf(again)).containsEntry("recovered", true).containsEntry("offset", 5L);
            }
            for (int i = 0; i < 5; i++) {
                assertThat(RawBayeux.recoveryOf(subscriber.subscribe(CHANNEL, "{}"))).as("the position only")
                        .containsEntry("offset", 5L);
            }
            assertThat(redis.scriptsRun() - scripts).as("history reads for 25 subscribes without a gap").isZero();
            assertThat(redis.netOutputBytes() - bytes).as("bytes Redis sent").isLessThan(4_096);
        }
    }

    /**
     * A session that claims a gap in a loop (each subscribe to its held channel with an older offset) starts at most
     * its burst of reads and then its rate; the others answer {@code recovered: false} without reading.
     */
    @Test
    void aSessionClaimingGapsInALoopReadsAtItsRateOnly() throws Exception {
        Node node = fixture.node(BayeuxServerConfig.builder().build(), BudgetFixtures.readingAll(
                fixture.config().historyRules("/big/**").recoveryLimits(8, 1, 5)));
        RawBayeux publisher = new RawBayeux(node.url());
        publisher.handshake();
        for (int i = 0; i < 5; i++) {
            assertThat(publisher.publish(CHANNEL, payload(100), null).get("successful")).isEqualTo(true);
        }
        try (RedisStats redis = fixture.closing(new RedisStats(fixture.redis().uri()))) {
            RawBayeux subscriber = new RawBayeux(node.url());
            subscriber.handshake();
            Object epoch = RawBayeux.recoveryOf(subscriber.subscribe(CHANNEL, "{}")).get("epoch");
            long scripts = redis.scriptsRun();
            int refused = 0;
            for (int i = 0; i < 100; i++) {
                Map<String, Object> again = subscriber.subscribe(CHANNEL,
                        "{\"offset\":3,\"epoch\":\"" + epoch + "\"}");
                assertThat(again.get("successful")).isEqualTo(true);
                if (Boolean.FALSE.equals(RawBayeux.recoveryOf(again).get("recovered"))) {
                    refused++;
                }
            }
            // A burst of 5 (one taken by the first subscribe) and 1 a second: far fewer than 100 however slow.
            assertThat(redis.scriptsRun() - scripts).as("history reads for 100 claimed gaps").isLessThan(50);
            assertThat(refused).as("claimed gaps refused without reading").isGreaterThan(50);
        }
    }

    /**
     * Many sessions recovering at once on one node run at most {@code recoveryConcurrency} recoveries on its Redis
     * connection at a time; the others wait their turn and all complete.
     */
    @Test
    void recoveriesOfManySessionsRunWithinTheConnectionsBudget() throws Exception {
        Node node = fixture.node(BayeuxServerConfig.builder().build(), BudgetFixtures.readingAll(
                fixture.config().historyRules("/big/**").recoveryLimits(2, 10, 100)));
        RawBayeux publisher = new RawBayeux(node.url());
        publisher.handshake();
        int sessions = 12;
        for (int s = 0; s < sessions; s++) {
            for (int i = 0; i < 3; i++) {
                assertThat(publisher.publish(CHANNEL + s, payload(100), null).get("successful")).isEqualTo(true);
            }
        }
        try (RedisStats redis = fixture.closing(new RedisStats(fixture.redis().uri()))) {
            java.util.List<java.util.concurrent.CompletableFuture<Map<String, Object>>> replies =
                    new java.util.ArrayList<>();
            for (int s = 0; s < sessions; s++) {
                String channel = CHANNEL + s;
                String epoch = redis.commands().hget(redis.keys("*:meta:*" + channel).get(0), "e");
                RawBayeux client = new RawBayeux(node.url());
                client.handshake();
                replies.add(java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                    try {
                        return client.subscribe(channel, "{\"offset\":1,\"epoch\":\"" + epoch + "\"}");
                    } catch (Exception failed) {
                        throw new IllegalStateException(failed);
                    }
                }));
            }
            for (var reply : replies) {
                assertThat(RawBayeux.recoveryOf(reply.get(30, java.util.concurrent.TimeUnit.SECONDS)))
                        .containsEntry("recovered", true);
            }
            RecoveryPermits permits = node.backplane().historyCalls().permits();
            assertThat(permits.started()).isEqualTo(sessions);
            assertThat(permits.mostRunning()).as("recoveries at once on the connection").isLessThanOrEqualTo(2);
        }
    }

    /**
     * A session that asks ten recoveries in one request has them read one after the other, never two at once; all
     * are answered.
     */
    @Test
    void aSessionRunsOneHistoryReadAtATime() throws Exception {
        Node node = fixture.node(BayeuxServerConfig.builder().build(), BudgetFixtures.readingAll(
                fixture.config().historyRules("/big/**")));
        RawBayeux publisher = new RawBayeux(node.url());
        publisher.handshake();
        int channels = 10;
        for (int c = 0; c < channels; c++) {
            for (int i = 0; i < 3; i++) {
                assertThat(publisher.publish(CHANNEL + c, payload(100), null).get("successful")).isEqualTo(true);
            }
        }
        try (RedisStats redis = fixture.closing(new RedisStats(fixture.redis().uri()))) {
            RawBayeux subscriber = new RawBayeux(node.url());
            String clientId = subscriber.handshake();
            StringBuilder batch = new StringBuilder();
            for (int c = 0; c < channels; c++) {
                String epoch = redis.commands().hget(redis.keys("*:meta:*" + CHANNEL + c).get(0), "e");
                batch.append(c == 0 ? "" : ",").append("{\"channel\":\"/meta/subscribe\",\"clientId\":\"")
                        .append(clientId).append("\",\"id\":\"s").append(c).append("\",\"subscription\":\"")
                        .append(CHANNEL).append(c).append("\",\"ext\":{\"recovery\":{\"offset\":1,\"epoch\":\"")
                        .append(epoch).append("\"}}}");
            }
            List<Map<String, Object>> replies = subscriber.send(batch.toString());
            long recovered = replies.stream().filter(reply -> "/meta/subscribe".equals(reply.get("channel")))
                    .filter(reply -> Boolean.TRUE.equals(RawBayeux.recoveryOf(reply).get("recovered"))).count();
            assertThat(recovered).isEqualTo(channels);
            assertThat(node.backplane().recoveryExtension().mostReadsInFlightPerSession()).isEqualTo(1);
        }
    }
}
