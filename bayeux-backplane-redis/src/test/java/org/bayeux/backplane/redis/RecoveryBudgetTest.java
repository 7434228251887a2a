package org.bayeux.backplane.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
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
            assertThat(redis.scriptsRun() - scripts).as("history reads for 20 subscribes without a gap").isZero();
            assertThat(redis.netOutputBytes() - bytes).as("bytes Redis sent").isLessThan(4_096);
        }
    }
}
