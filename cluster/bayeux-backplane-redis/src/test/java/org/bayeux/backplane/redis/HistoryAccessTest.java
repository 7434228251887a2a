package org.bayeux.backplane.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.bayeux.api.server.HistoryAccess;
import org.bayeux.api.server.HistoryAuthorizer;
import org.bayeux.backplane.redis.BackplaneFixture.Node;
import org.bayeux.server.config.BayeuxServerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Who may read a channel's history (issue 31, "history is readable by anyone who may subscribe" and "Redis keys grow
 * from client-chosen names"): a real node on a real redis-server, hand-written clients.
 */
class HistoryAccessTest {
    private static final String CHANNEL = "/chat/room";
    @RegisterExtension
    final BackplaneFixture fixture = new BackplaneFixture();

    /** @return the data of every message queued for the session from now on, in order */
    private static List<Object> recording(Node node, String session) {
        List<Object> queued = new CopyOnWriteArrayList<>();
        node.engine().getSession(session).addQueueListener((to, sender, message) -> {
            queued.add(message.getData());
            return true;
        });
        return queued;
    }

    /**
     * Recovered messages may be queued after the subscribe's reply went out: publishes a live marker, which comes
     * after them, and waits for it in each recording.
     *
     * @return how many messages each recording had before the marker
     */
    @SafeVarargs
    private static List<Integer> beforeALiveMarker(RawBayeux publisher, List<Object>... recordings) throws Exception {
        assertThat(publisher.publish(CHANNEL, "marker", null).get("successful")).isEqualTo(true);
        List<Integer> counts = new ArrayList<>();
        for (List<Object> queued : recordings) {
            await("the marker queued").atMost(BackplaneFixture.WAIT).until(() -> queued.contains("marker"));
            counts.add(queued.indexOf("marker"));
        }
        return counts;
    }

    /**
     * The finding: a session that subscribes with {@code offset: 0} is given every message the history holds,
     * published before it existed. By default it now recovers nothing older than its own first subscription.
     */
    @Test
    void aNewSessionCannotReadWhatWasPublishedBeforeIt() throws Exception {
        Node node = fixture.node(BayeuxServerConfig.builder().build(),
                BudgetFixtures.backplane(fixture.config().historyRules("/chat/**=100/10m")));
        RawBayeux publisher = new RawBayeux(node.url());
        publisher.handshake();
        for (int i = 0; i < 5; i++) {
            assertThat(publisher.publish(CHANNEL, "secret-" + i, null).get("successful")).isEqualTo(true);
        }
        try (RedisStats redis = fixture.closing(new RedisStats(fixture.redis().uri()))) {
            String epoch = redis.commands().hget(redis.keys("*:meta:*" + CHANNEL).get(0), "e");
            RawBayeux newcomer = new RawBayeux(node.url());
            List<Object> queued = recording(node, newcomer.handshake());
            Map<String, Object> reply = newcomer.subscribe(CHANNEL, "{\"offset\":0,\"epoch\":\"" + epoch + "\"}");

            assertThat(reply.get("successful")).isEqualTo(true);
            assertThat(RawBayeux.recoveryOf(reply)).containsEntry("recovered", false).containsEntry("offset", 5L);
            assertThat(beforeALiveMarker(publisher, queued)).as("messages queued for the newcomer").containsExactly(0);
        }
    }

    /**
     * The finding: each position-only subscribe ({@code ext.recovery: {}}) to a channel never published left a key
     * in Redis for 7 days. Now it creates nothing.
     */
    @Test
    void positionOnlySubscribesToUnpublishedChannelsCreateNoKey() throws Exception {
        Node node = fixture.node(BayeuxServerConfig.builder().build(),
                BudgetFixtures.backplane(fixture.config().historyRules("/chat/**=100/10m")));
        try (RedisStats redis = fixture.closing(new RedisStats(fixture.redis().uri()))) {
            RawBayeux client = new RawBayeux(node.url());
            client.handshake();
            for (int i = 0; i < 30; i++) {
                Map<String, Object> reply = client.subscribe("/chat/never-" + i, "{}");
                assertThat(reply.get("successful")).isEqualTo(true);
                assertThat(RawBayeux.recoveryOf(reply)).containsEntry("offset", 0L);
            }
            assertThat(redis.keys("*:meta:*")).as("channel positions in Redis").isEmpty();
            assertThat(redis.keys("*:history:*")).as("histories in Redis").isEmpty();
        }
    }

    /** History is off unless historyRules turns it on: a channel no rule names keeps none. */
    @Test
    void historyIsOffWhereNoRuleTurnsItOn() throws Exception {
        Node node = fixture.node(BayeuxServerConfig.builder().build(),
                BudgetFixtures.backplane(fixture.config().historyRules("/chat/**=100/10m")));
        RawBayeux publisher = new RawBayeux(node.url());
        publisher.handshake();
        assertThat(publisher.publish("/news/today", "hello", null).get("successful")).isEqualTo(true);
        try (RedisStats redis = fixture.closing(new RedisStats(fixture.redis().uri()))) {
            assertThat(redis.keys("*:history:*")).isEmpty();
            assertThat(redis.keys("*:meta:*")).isEmpty();
        }
    }

    /**
     * The application decides how far back a session may read: an authorizer that gives one user
     * {@link HistoryAccess#all()} lets that session recover what was published before it; another session, given
     * the default, does not.
     */
    @Test
    void anAuthorizerDecidesHowFarBackEachSessionReads() throws Exception {
        HistoryAuthorizer onlyAuditors = (session, channel, subscribe) ->
                "auditor".equals(session.getAttribute("role")) ? HistoryAccess.all() : HistoryAccess.sinceSubscribed();
        Node node = fixture.node(BayeuxServerConfig.builder().build(), new RedisBackplane(
                fixture.config().historyRules("/chat/**=100/10m").build(), onlyAuditors));
        RawBayeux publisher = new RawBayeux(node.url());
        publisher.handshake();
        for (int i = 0; i < 5; i++) {
            assertThat(publisher.publish(CHANNEL, "m" + i, null).get("successful")).isEqualTo(true);
        }
        try (RedisStats redis = fixture.closing(new RedisStats(fixture.redis().uri()))) {
            String epoch = redis.commands().hget(redis.keys("*:meta:*" + CHANNEL).get(0), "e");
            RawBayeux auditor = new RawBayeux(node.url());
            String auditorSession = auditor.handshake();
            node.engine().getSession(auditorSession).setAttribute("role", "auditor");
            List<Object> auditorQueue = recording(node, auditorSession);
            RawBayeux other = new RawBayeux(node.url());
            List<Object> otherQueue = recording(node, other.handshake());

            Map<String, Object> granted = auditor.subscribe(CHANNEL, "{\"offset\":2,\"epoch\":\"" + epoch + "\"}");
            Map<String, Object> refused = other.subscribe(CHANNEL, "{\"offset\":2,\"epoch\":\"" + epoch + "\"}");

            assertThat(RawBayeux.recoveryOf(granted)).containsEntry("recovered", true).containsEntry("offset", 5L);
            assertThat(RawBayeux.recoveryOf(refused)).containsEntry("recovered", false);
            assertThat(beforeALiveMarker(publisher, auditorQueue, otherQueue))
                    .as("m2, m3, m4 queued for the auditor, nothing for the other").containsExactly(3, 0);
        }
    }

    /**
     * The recovery path makes the live path's checks: an entry of another channel found in this channel's history
     * (only someone writing to Redis could put it there) is not delivered to the recovering session.
     */
    @Test
    void aRecoveryDeliversNothingOfAnotherChannel() throws Exception {
        Node node = fixture.node(BayeuxServerConfig.builder().build(),
                BudgetFixtures.readingAll(fixture.config().historyRules("/chat/**=100/10m")));
        RawBayeux publisher = new RawBayeux(node.url());
        publisher.handshake();
        for (int i = 0; i < 3; i++) {
            assertThat(publisher.publish(CHANNEL, "m" + i, null).get("successful")).isEqualTo(true);
        }
        try (RedisStats redis = fixture.closing(new RedisStats(fixture.redis().uri()))) {
            String meta = redis.keys("*:meta:*" + CHANNEL).get(0);
            String history = redis.keys("*:history:*" + CHANNEL).get(0);
            String epoch = redis.commands().hget(meta, "e");
            String stored = redis.commands().xrange(history, io.lettuce.core.Range.create("-", "+")).get(0)
                    .getBody().get("m");
            redis.commands().xadd(history, Map.of("m", stored.replace(CHANNEL, "/chat/other"), "o", "4"));
            redis.commands().hincrby(meta, "o", 1);

            RawBayeux subscriber = new RawBayeux(node.url());
            List<Object> queued = recording(node, subscriber.handshake());
            Map<String, Object> reply = subscriber.subscribe(CHANNEL, "{\"offset\":2,\"epoch\":\"" + epoch + "\"}");

            assertThat(RawBayeux.recoveryOf(reply)).containsEntry("offset", 4L);
            assertThat(beforeALiveMarker(publisher, queued)).as("m2 only").containsExactly(1);
            assertThat(queued.get(0)).isEqualTo("m2");
        }
    }
}
