package org.bayeux.backplane.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.bayeux.api.Message;
import org.bayeux.api.Promise;
import org.bayeux.api.server.HistoryAccess;
import org.bayeux.api.server.HistoryAuthorizer;
import org.bayeux.api.server.ServerExtension;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.backplane.redis.BackplaneFixture.Node;
import org.bayeux.server.cluster.ChannelPosition;
import org.bayeux.server.cluster.ResumeFrom;
import org.bayeux.server.config.BayeuxServerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The replay side of failover, on real servers (Jetty on 127.0.0.1, port 0) and one redis-server: a subscriber on node
 * A, messages published while it "moves", and node B resuming it through the subscribe an adopting engine makes
 * ({@code ext.recovery} = {@link ResumeFrom}). The engine's adoption is not here: a test extension on B stands for it,
 * turning a test-only field of the subscribe into a {@link ResumeFrom} before the recovery extension runs (no client
 * can do that: a {@link ResumeFrom} is a Java object, and JSON makes maps). Every count is exact: missed messages
 * once, in order, then live ones, none twice.
 */
class FailoverResumeTest {
    private static final String CHANNEL = "/news/plain";
    /** Where the test's subscribe carries the position B's stand-in for the engine resumes from. */
    private static final String RESUME_FIELD = "testResumeFrom";
    @RegisterExtension
    final BackplaneFixture fixture = new BackplaneFixture();

    private RedisBackplaneConfig.Builder withStore() {
        return fixture.config().sessionStore(true, Duration.ofMillis(50), Duration.ofSeconds(5));
    }

    private Node node(RedisBackplaneConfig.Builder config, BayeuxServerConfig serverConfig) throws Exception {
        return fixture.node(serverConfig, new RedisBackplane(config.build(), HistoryAuthorizer.always(HistoryAccess
                .none())), engine -> engine.addExtension(new StandInForAdoption()));
    }

    private Node node(RedisBackplaneConfig.Builder config) throws Exception {
        return node(config, BayeuxServerConfig.builder().build());
    }

    /** What the engine does for an adopted session: a subscribe whose ext.recovery is a {@link ResumeFrom}. */
    private static final class StandInForAdoption implements ServerExtension {
        @Override
        public void incoming(ServerSession session, ServerMessage.Mutable message, Promise<Boolean> promise) {
            Map<String, Object> ext = message.getExt();
            if (Message.META_SUBSCRIBE.equals(message.getChannel()) && ext != null
                    && ext.get(RESUME_FIELD) instanceof Map<?, ?> position) {
                ext.remove(RESUME_FIELD);
                ext.put(RecoveryExtension.RECOVERY_FIELD, new ResumeFrom(new ChannelPosition(
                        (String) position.get("epoch"), ((Number) position.get("offset")).longValue())));
            }
            promise.succeed(true);
        }
    }

    /** A raw long-polling client that fetches its queued messages with connects that do not wait. */
    private static final class Subscriber {
        final RawBayeux raw;
        final List<Map<String, Object>> received = new ArrayList<>();

        Subscriber(String url) throws Exception {
            raw = new RawBayeux(url);
            raw.handshake();
        }

        Map<String, Object> resume(String channel, ChannelPosition from) throws Exception {
            List<Map<String, Object>> replies = raw.send("{\"channel\":\"/meta/subscribe\",\"clientId\":\""
                    + raw.clientId() + "\",\"id\":\"r\",\"subscription\":\"" + channel + "\",\"ext\":{\""
                    + RESUME_FIELD + "\":{\"offset\":" + from.offset() + ",\"epoch\":\"" + from.epoch() + "\"}}}");
            Map<String, Object> reply = null;
            for (Map<String, Object> message : replies) {
                if (Message.META_SUBSCRIBE.equals(message.get("channel"))) {
                    reply = message;
                } else if (message.containsKey("data")) {
                    received.add(message);
                }
            }
            assertThat(reply).as("the subscribe's reply").isNotNull();
            return reply;
        }

        /** Connects (without waiting) until {@code count} messages came, or 200 connects. */
        List<Map<String, Object>> await(int count) throws Exception {
            for (int i = 0; i < 200 && received.size() < count; i++) {
                for (Map<String, Object> message : raw.send("{\"channel\":\"/meta/connect\",\"clientId\":\""
                        + raw.clientId() + "\",\"connectionType\":\"long-polling\",\"advice\":{\"timeout\":"
                        + (i == 0 ? 0 : 100) + "}}")) {
                    if (message.containsKey("data")) {
                        received.add(message);
                    }
                }
            }
            return received;
        }

        List<String> data(String channel) {
            List<String> data = new ArrayList<>();
            for (Map<String, Object> message : received) {
                if (channel.equals(message.get("channel"))) {
                    data.add(String.valueOf(message.get("data")));
                }
            }
            return data;
        }

        /** @return the position of the last message received on the channel */
        ChannelPosition last(String channel) {
            ChannelPosition last = null;
            for (Map<String, Object> message : received) {
                if (channel.equals(message.get("channel"))) {
                    @SuppressWarnings("unchecked")
                    Object[] position = Positions.of((Map<String, Object>) message.get("ext"));
                    assertThat(position).as("a failover-history channel's messages carry positions").isNotNull();
                    last = new ChannelPosition((String) position[1], (Long) position[0]);
                }
            }
            return last;
        }
    }

    private static void publish(RawBayeux publisher, String channel, int from, int to) throws Exception {
        for (int i = from; i <= to; i++) {
            assertThat(publisher.publish(channel, "m" + i, null).get("successful")).isEqualTo(true);
        }
    }

    private static List<String> range(int from, int to) {
        List<String> data = new ArrayList<>();
        for (int i = from; i <= to; i++) {
            data.add("m" + i);
        }
        return data;
    }

    @Test
    void anAdoptedSessionResumesExactlyWhatItMissedOnAChannelNoHistoryRuleNames() throws Exception {
        Node a = node(withStore());
        Node b = node(withStore());
        RawBayeux publisher = new RawBayeux(a.url());
        publisher.handshake();
        Subscriber onA = new Subscriber(a.url());
        Map<String, Object> subscribed = onA.raw.subscribe(CHANNEL, null);
        assertThat(subscribed.get("successful")).isEqualTo(true);
        assertThat(RawBayeux.recoveryOf(subscribed)).as("a client that asked nothing is told nothing").isNull();
        publish(publisher, CHANNEL, 1, 3);
        assertThat(onA.await(3)).hasSize(3);
        ChannelPosition had = onA.last(CHANNEL);
        assertThat(had.offset()).isEqualTo(3);

        // It "moves": published meanwhile, never delivered to it.
        publish(publisher, CHANNEL, 4, 8);

        Subscriber onB = new Subscriber(b.url());
        Map<String, Object> resumed = onB.resume(CHANNEL, had);
        assertThat(resumed.get("successful")).isEqualTo(true);
        assertThat(RawBayeux.recoveryOf(resumed)).containsEntry("recovered", true).containsEntry("offset", 8L);
        assertThat(onB.await(5)).hasSize(5);
        publish(publisher, CHANNEL, 9, 10);
        onB.await(7);
        assertThat(onB.data(CHANNEL)).as("missed once and in order, then live, none twice")
                .containsExactlyElementsOf(range(4, 10));
    }

    @Test
    void aResumeWhilePublishesGoOnGetsEveryMessageOnceAndInOrder() throws Exception {
        Node a = node(withStore());
        Node b = node(withStore());
        RawBayeux publisher = new RawBayeux(a.url());
        publisher.handshake();
        publish(publisher, CHANNEL, 1, 20);
        ChannelPosition had = positionInRedis(CHANNEL);
        int total = 300;
        CompletableFuture<Void> publishing = CompletableFuture.runAsync(() -> {
            try {
                publish(publisher, CHANNEL, 21, total);
            } catch (Exception failed) {
                throw new IllegalStateException(failed);
            }
        });
        // Resumed mid-stream: some of what it missed is in the history, the rest comes live (held, then floored).
        await("mid-stream").atMost(BackplaneFixture.WAIT).until(() -> positionInRedis(CHANNEL).offset() >= 60);
        Subscriber onB = new Subscriber(b.url());
        assertThat(RawBayeux.recoveryOf(onB.resume(CHANNEL, had))).containsEntry("recovered", true);
        publishing.get(BackplaneFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS);
        onB.await(total - 20);
        assertThat(onB.data(CHANNEL)).as("lost, duplicated and reordered: none").containsExactlyElementsOf(
                range(21, total));
    }

    @Test
    void aChannelNeverPublishedWhenSubscribedResumesFromItsFirstMessage() throws Exception {
        Node a = node(withStore());
        Node b = node(withStore());
        Subscriber onA = new Subscriber(a.url());
        assertThat(onA.raw.subscribe("/news/fresh", null).get("successful")).isEqualTo(true);
        RawBayeux publisher = new RawBayeux(b.url());
        publisher.handshake();
        publish(publisher, "/news/fresh", 1, 3);

        // The seam of a subscription to a channel without an epoch: NONE.
        Subscriber onB = new Subscriber(b.url());
        assertThat(RawBayeux.recoveryOf(onB.resume("/news/fresh", ChannelPosition.NONE)))
                .containsEntry("recovered", true);
        onB.await(3);
        assertThat(onB.data("/news/fresh")).containsExactlyElementsOf(range(1, 3));
    }

    @Test
    void aGapTheFailoverHistoryNoLongerCoversIsNotRecovered() throws Exception {
        Node a = node(withStore().failoverHistory(5, Duration.ofMinutes(1)));
        RawBayeux publisher = new RawBayeux(a.url());
        publisher.handshake();
        publish(publisher, CHANNEL, 1, 2);
        ChannelPosition epochOf = positionInRedis(CHANNEL);
        assertThat(epochOf.offset()).isEqualTo(2);
        publish(publisher, CHANNEL, 3, 12);

        Subscriber resumer = new Subscriber(a.url());
        Map<String, Object> reply = resumer.resume(CHANNEL, new ChannelPosition(epochOf.epoch(), 2));
        assertThat(reply.get("successful")).isEqualTo(true);
        assertThat(RawBayeux.recoveryOf(reply)).containsEntry("recovered", false);
        // Within the history: recovered.
        Subscriber within = new Subscriber(a.url());
        assertThat(RawBayeux.recoveryOf(within.resume(CHANNEL, new ChannelPosition(epochOf.epoch(), 8))))
                .containsEntry("recovered", true);
        within.await(4);
        assertThat(within.data(CHANNEL)).containsExactlyElementsOf(range(9, 12));
    }

    @Test
    void anotherEpochIsNotRecovered() throws Exception {
        Node a = node(withStore());
        RawBayeux publisher = new RawBayeux(a.url());
        publisher.handshake();
        publish(publisher, CHANNEL, 1, 3);
        Subscriber resumer = new Subscriber(a.url());
        assertThat(RawBayeux.recoveryOf(resumer.resume(CHANNEL, new ChannelPosition("anotherEpoch", 1))))
                .containsEntry("recovered", false);
        publish(publisher, CHANNEL, 4, 4);
        resumer.await(1);
        assertThat(resumer.data(CHANNEL)).as("live only, nothing of the lost epoch").containsExactly("m4");
    }

    @Test
    void resumesAreNotRefusedByTheSessionsRateButAreBoundedByItsQueue() throws Exception {
        Node a = node(withStore().recoveryLimits(8, 1, 1), BayeuxServerConfig.builder().maxQueue(3).build());
        RawBayeux publisher = new RawBayeux(a.url());
        publisher.handshake();
        List<ChannelPosition> starts = new ArrayList<>();
        for (int c = 0; c < 3; c++) {
            publish(publisher, CHANNEL + c, 1, 1);
            starts.add(positionInRedis(CHANNEL + c));
            publish(publisher, CHANNEL + c, 2, 2);
        }
        // A burst of one read, one a second: three resumes at once, each of one message (three fit the queue).
        Subscriber resumer = new Subscriber(a.url());
        for (int c = 0; c < 3; c++) {
            assertThat(RawBayeux.recoveryOf(resumer.resume(CHANNEL + c, starts.get(c))))
                    .as("resume %d, past a rate of one read", c).containsEntry("recovered", true);
        }
        resumer.await(3);
        for (int c = 0; c < 3; c++) {
            assertThat(resumer.data(CHANNEL + c)).containsExactly("m2");
        }
        // The queue empty, 3 at most: a gap of 4 does not fit.
        publish(publisher, "/news/big", 1, 1);
        ChannelPosition big = positionInRedis("/news/big");
        publish(publisher, "/news/big", 2, 5);
        assertThat(RawBayeux.recoveryOf(resumer.resume("/news/big", big))).containsEntry("recovered", false);
    }

    @Test
    void aClientsOwnRecoveryWithExtraFieldsGetsNoSpecialTreatment() throws Exception {
        Node a = node(withStore());
        RawBayeux publisher = new RawBayeux(a.url());
        publisher.handshake();
        publish(publisher, CHANNEL, 1, 3);
        Subscriber forger = new Subscriber(a.url());
        Map<String, Object> reply = forger.raw.subscribe(CHANNEL, "{\"offset\":0,\"epoch\":\"x\",\"position\":"
                + "{\"offset\":0,\"epoch\":\"x\"},\"resumeFrom\":true,"
                + "\"@class\":\"org.bayeux.server.cluster.ResumeFrom\"}");
        assertThat(reply.get("successful")).isEqualTo(true);
        assertThat(RawBayeux.recoveryOf(reply)).as("no historyRules rule names the channel: no recovery").isNull();
        publish(publisher, CHANNEL, 4, 4);
        forger.await(1);
        assertThat(forger.data(CHANNEL)).as("nothing from the failover history").containsExactly("m4");
    }

    @Test
    void aClientsRecoveryPastItsRateStillGetsItsSeam() throws Exception {
        Node a = node(withStore().historyRules("/chat/**").recoveryLimits(8, 1, 1));
        RawBayeux publisher = new RawBayeux(a.url());
        publisher.handshake();
        publish(publisher, "/chat/a", 1, 2);
        publish(publisher, "/chat/b", 1, 2);
        Subscriber client = new Subscriber(a.url());
        assertThat(RawBayeux.recoveryOf(client.raw.subscribe("/chat/a", "{\"offset\":1,\"epoch\":\"x\"}")))
                .containsEntry("recovered", false).containsEntry("offset", 2L);
        // Past its burst of one: not read, but positioned (the seam), so told where the channel stands.
        assertThat(RawBayeux.recoveryOf(client.raw.subscribe("/chat/b", "{\"offset\":1,\"epoch\":\"x\"}")))
                .containsEntry("recovered", false).containsEntry("offset", 2L);
        publish(publisher, "/chat/b", 3, 3);
        client.await(1);
        assertThat(client.data("/chat/b")).containsExactly("m3");
    }

    /** A subscription's seam as the backplane handed it to the store. */
    private record Seam(String sessionId, String channel, ChannelPosition position) {
    }

    @Test
    void everySubscribeWritesItsSeamBeforeItsReplyLeaves() throws Exception {
        List<Seam> seams = new CopyOnWriteArrayList<>();
        AtomicReference<CompletableFuture<Void>> gate = new AtomicReference<>(CompletableFuture.completedFuture(null));
        RedisBackplane backplane = new RedisBackplane(withStore().historyRules("/chat/**").build(),
                HistoryAuthorizer.always(HistoryAccess.none()), null, (sessionId, channel, position) -> {
                    seams.add(new Seam(sessionId, channel, position));
                    return gate.get();
                });
        Node a = fixture.node(BayeuxServerConfig.builder().build(), backplane);
        RawBayeux publisher = new RawBayeux(a.url());
        publisher.handshake();
        publish(publisher, CHANNEL, 1, 3);
        publish(publisher, "/chat/room", 1, 2);
        Subscriber client = new Subscriber(a.url());
        String id = client.raw.clientId();
        ChannelPosition news = positionInRedis(CHANNEL);

        assertThat(client.raw.subscribe(CHANNEL, null).get("successful")).isEqualTo(true);
        assertThat(client.raw.subscribe("/news/never", null).get("successful")).isEqualTo(true);
        // A client's own recovery that fails (the authorizer allows none) floors at the position it is told.
        assertThat(RawBayeux.recoveryOf(client.raw.subscribe("/chat/room", "{\"offset\":1,\"epoch\":\"x\"}")))
                .containsEntry("recovered", false);
        assertThat(seams).containsExactly(new Seam(id, CHANNEL, news), new Seam(id, "/news/never",
                ChannelPosition.NONE), new Seam(id, "/chat/room", positionInRedis("/chat/room")));
        assertThat(client.raw.subscribe("/news/*", null).get("successful")).isEqualTo(true);
        assertThat(seams).as("a wildcard has no seam").hasSize(3);

        // The reply waits for the store.
        CompletableFuture<Void> held = new CompletableFuture<>();
        gate.set(held);
        CompletableFuture<Map<String, Object>> reply = CompletableFuture.supplyAsync(() -> {
            try {
                return client.raw.subscribe("/news/later", null);
            } catch (Exception failed) {
                throw new IllegalStateException(failed);
            }
        });
        await("the seam handed to the store").atMost(BackplaneFixture.WAIT).until(() -> seams.size() == 4);
        assertThat(reply).as("no reply before the store has the seam").isNotDone();
        held.complete(null);
        assertThat(reply.get(BackplaneFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS).get("successful"))
                .isEqualTo(true);
    }

    @Test
    void withoutTheStoreNoFailoverHistoryIsWritten() throws Exception {
        Node a = node(fixture.config());
        RawBayeux publisher = new RawBayeux(a.url());
        publisher.handshake();
        Subscriber subscriber = new Subscriber(a.url());
        assertThat(subscriber.raw.subscribe(CHANNEL, null).get("successful")).isEqualTo(true);
        publish(publisher, CHANNEL, 1, 3);
        subscriber.await(3);
        try (RedisStats redis = fixture.closing(new RedisStats(fixture.redis().uri()))) {
            assertThat(redis.keys("*:meta:*")).as("channel positions").isEmpty();
            assertThat(redis.keys("*:history:*")).as("histories").isEmpty();
        }
        assertThat(subscriber.received.get(0).get("ext")).as("no position on a channel without history").isNull();
    }

    @Test
    void withTheStoreTheFailoverHistoryIsWritten() throws Exception {
        Node a = node(withStore());
        RawBayeux publisher = new RawBayeux(a.url());
        publisher.handshake();
        publish(publisher, CHANNEL, 1, 3);
        try (RedisStats redis = fixture.closing(new RedisStats(fixture.redis().uri()))) {
            assertThat(redis.keys("*:meta:*")).hasSize(1);
            assertThat(redis.keys("*:history:*")).hasSize(1);
        }
    }

    /**
     * What the failover history costs Redis per publish, counted (not timed): the commands the publish script runs,
     * for a channel no historyRules rule names, with the store off (one XADD) and on (the history path), once each
     * history is full (every publish trims its oldest entry).
     */
    @Test
    void whatTheFailoverHistoryCostsPerPublish() throws Exception {
        int full = 50;
        int measured = 200;
        Map<String, Long> off = commandsPerPublish(node(fixture.config()), "/cost/off", full, measured);
        Map<String, Long> on = commandsPerPublish(node(withStore().failoverHistory(full, Duration.ofMinutes(1))),
                "/cost/on", full, measured);
        System.out.printf("Redis commands per %d publishes, store off: %s; store on: %s%n", measured, off, on);
        assertThat(off.get("xadd")).isEqualTo(measured);
        assertThat(off.keySet()).as("store off: the fan-out append only, no history command")
                .doesNotContain("time", "hincrby", "xlen", "xrange", "xdel", "zadd", "pexpire", "hget");
        assertThat(on.get("xadd")).as("history and fan-out").isEqualTo(2L * measured);
        try (RedisStats redis = fixture.closing(new RedisStats(fixture.redis().uri()))) {
            assertThat(redis.commands().xlen(redis.keys("*:history:*").get(0))).as("bounded").isEqualTo(full);
        }
    }

    private Map<String, Long> commandsPerPublish(Node node, String channel, int warmUp, int measured) throws Exception {
        RawBayeux publisher = new RawBayeux(node.url());
        publisher.handshake();
        publish(publisher, channel, 1, warmUp);
        try (RedisStats redis = new RedisStats(fixture.redis().uri())) {
            Map<String, Long> before = redis.commandCalls();
            publish(publisher, channel, warmUp + 1, warmUp + measured);
            Map<String, Long> after = redis.commandCalls();
            Map<String, Long> delta = new java.util.TreeMap<>();
            after.forEach((command, calls) -> {
                long ran = calls - before.getOrDefault(command, 0L);
                // The publish script's commands only: not the nodes' stream reads, nor this probe's INFO.
                if (ran > 0 && !command.equals("xread") && !command.equals("info") && !command.equals("ping")
                        && !command.startsWith("client") && !command.equals("hello") && !command.equals("smembers")) {
                    delta.put(command, ran);
                }
            });
            return delta;
        }
    }

    /** @return the channel's position now, as Redis has it */
    private ChannelPosition positionInRedis(String channel) {
        RedisBackplaneConfig config = fixture.config().build();
        String key = new StreamShards(config.keyPrefix(), config.shards()).metaKeyOf(channel);
        try (RedisStats redis = new RedisStats(fixture.redis().uri())) {
            Map<String, String> meta = redis.commands().hgetall(key);
            return new ChannelPosition(meta.get("e"), Long.parseLong(meta.get("o")));
        }
    }
}
