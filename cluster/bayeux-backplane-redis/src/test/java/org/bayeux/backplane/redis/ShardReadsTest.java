package org.bayeux.backplane.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.Message;
import org.bayeux.api.client.ClientSessionChannel;
import org.bayeux.api.server.LocalSession;
import org.bayeux.server.BayeuxEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A node reads only the shard streams its subscriptions need, and misses nothing published after a subscribe. */
class ShardReadsTest {
    @RegisterExtension
    final BackplaneFixture fixture = new BackplaneFixture();

    private RedisBackplane backplane(int shards, String grace, String readBlock) {
        Map<String, String> settings = new HashMap<>();
        settings.put("redisUri", fixture.redis().uri());
        settings.put("shards", Integer.toString(shards));
        settings.put("shardReadGrace", grace);
        settings.put("readBlock", readBlock);
        settings.put("operationTimeout", "2s");
        return new RedisBackplane(RedisBackplaneConfig.fromMap(settings));
    }

    private BayeuxEngine node(RedisBackplane backplane) {
        return fixture.engine(backplane);
    }

    private static LocalSession connected(BayeuxEngine engine, String name) throws Exception {
        LocalSession session = engine.newLocalSession(name);
        CompletableFuture<Message> reply = new CompletableFuture<>();
        session.handshake(null, (channel, message) -> reply.complete(message));
        assertThat(reply.get(10, TimeUnit.SECONDS).isSuccessful()).isTrue();
        return session;
    }

    private static Message subscribe(LocalSession session, String channel, ClientSessionChannel.MessageListener
            listener) throws Exception {
        CompletableFuture<Message> reply = new CompletableFuture<>();
        session.getChannel(channel).subscribe(listener, (c, message) -> reply.complete(message));
        return reply.get(10, TimeUnit.SECONDS);
    }

    private static ClientSessionChannel.MessageListener collector(List<Object> received) {
        return (c, message) -> received.add(message.getData());
    }

    private static void unsubscribe(LocalSession session, String channel, ClientSessionChannel.MessageListener
            listener) throws Exception {
        CompletableFuture<Message> reply = new CompletableFuture<>();
        session.getChannel(channel).unsubscribe(listener, (c, message) -> reply.complete(message));
        assertThat(reply.get(10, TimeUnit.SECONDS).isSuccessful()).isTrue();
    }

    private static Message publish(LocalSession session, String channel, Object data) throws Exception {
        CompletableFuture<Message> reply = new CompletableFuture<>();
        session.getChannel(channel).publish(data, (c, message) -> reply.complete(message));
        return reply.get(10, TimeUnit.SECONDS);
    }

    @Test
    void aNodeReadsOnlyTheShardOfItsSubscriptionAndStopsAfterTheGrace() throws Exception {
        RedisBackplane onA = backplane(16, "2s", "500ms");
        RedisBackplane onB = backplane(16, "2s", "500ms");
        BayeuxEngine a = node(onA);
        BayeuxEngine b = node(onB);
        LocalSession speaker = connected(a, "speaker");
        LocalSession listener = connected(b, "listener");
        assertThat(onA.shardsRead()).isZero();
        assertThat(onB.shardsRead()).isZero();

        List<Object> received = new CopyOnWriteArrayList<>();
        ClientSessionChannel.MessageListener collector = collector(received);
        assertThat(subscribe(listener, "/news/sport", collector).isSuccessful()).isTrue();

        assertThat(onB.shardsReadNow()).containsExactly(onB.shardOf("/news/sport"));
        assertThat(onA.shardsRead()).isZero();
        assertThat(publish(speaker, "/news/sport", "goal").isSuccessful()).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> received.contains("goal"));
        // A published on a channel nobody on A subscribes to: A still reads nothing.
        assertThat(onA.shardsRead()).isZero();

        unsubscribe(listener, "/news/sport", collector);
        assertThat(onB.shardsRead()).as("read on within the grace").isEqualTo(1);
        await("dropped after the grace").atMost(Duration.ofSeconds(20)).until(() -> onB.shardsRead() == 0);
        assertThat(received).containsExactly("goal");
    }

    @Test
    void aMessagePublishedRightAfterTheSubscribeReplyReachesTheSubscriber() throws Exception {
        // Many shards and no grace: each round subscribes to a channel of a shard B does not read yet.
        RedisBackplane onA = backplane(1024, "0s", "100ms");
        RedisBackplane onB = backplane(1024, "0s", "100ms");
        BayeuxEngine a = node(onA);
        BayeuxEngine b = node(onB);
        LocalSession speaker = connected(a, "speaker");
        LocalSession listener = connected(b, "listener");
        // B's reader is blocked in XREAD on this one's shard when each new shard comes.
        assertThat(subscribe(listener, "/keep", (c, message) -> { }).isSuccessful()).isTrue();
        int rounds = 300;
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        int candidate = 0;
        for (int round = 0; round < rounds; round++) {
            assertThat(System.nanoTime()).as("rounds within the time bound").isLessThan(deadline);
            String channel;
            Set<Integer> read = onB.shardsReadNow();
            do {
                channel = "/race/" + candidate++;
            } while (read.contains(onB.shardOf(channel)));
            CompletableFuture<Object> first = new CompletableFuture<>();
            List<Object> received = new CopyOnWriteArrayList<>();
            ClientSessionChannel.MessageListener collector = (c, message) -> {
                received.add(message.getData());
                first.complete(message.getData());
            };
            Message reply = subscribe(listener, channel, collector);
            assertThat(reply.isSuccessful()).isTrue();
            assertThat(onB.shardsReadNow()).contains(onB.shardOf(channel));
            assertThat(publish(speaker, channel, "m" + round).isSuccessful()).isTrue();
            assertThat(first.get(10, TimeUnit.SECONDS)).as("round %d on %s", round, channel).isEqualTo("m" + round);
            unsubscribe(listener, channel, collector);
            assertThat(received).containsExactly("m" + round);
        }
    }

    @Test
    void aSubscriptionMadeBeforeTheBackplaneStartsIsRead() throws Exception {
        RedisBackplane onA = backplane(16, "200ms", "500ms");
        BayeuxEngine a = node(onA);
        RedisBackplane onB = backplane(16, "200ms", "500ms");
        BayeuxEngine b = BayeuxEngine.create();
        b.setCluster(onB);
        fixture.closing(b::stop);
        List<Object> received = new CopyOnWriteArrayList<>();
        LocalSession early = b.newLocalSession("early");
        early.handshake();
        early.getChannel("/news/early").subscribe(collector(received), null);

        b.start();

        await("read once connected").atMost(Duration.ofSeconds(10))
                .until(() -> onB.shardsReadNow().equals(Set.of(onB.shardOf("/news/early"))));
        assertThat(publish(connected(a, "speaker"), "/news/early", "first").isSuccessful()).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> received.contains("first"));
        assertThat(received).containsExactly("first");
    }

    @Test
    void aWildcardSubscriptionMakesEveryShardRead() throws Exception {
        RedisBackplane onA = backplane(16, "200ms", "500ms");
        RedisBackplane onB = backplane(16, "200ms", "500ms");
        BayeuxEngine a = node(onA);
        BayeuxEngine b = node(onB);
        LocalSession speaker = connected(a, "speaker");
        LocalSession listener = connected(b, "listener");

        List<Object> received = new CopyOnWriteArrayList<>();
        ClientSessionChannel.MessageListener collector = collector(received);
        assertThat(subscribe(listener, "/chat/**", collector).isSuccessful()).isTrue();

        assertThat(onB.shardsRead()).isEqualTo(16);
        assertThat(onA.shardsRead()).isZero();
        for (int room = 0; room < 16; room++) {
            assertThat(publish(speaker, "/chat/room" + room, "r" + room).isSuccessful()).isTrue();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == 16);

        unsubscribe(listener, "/chat/**", collector);
        await("dropped after the grace").atMost(Duration.ofSeconds(20)).until(() -> onB.shardsRead() == 0);
    }

    @Test
    void aPresenceListenerMakesEveryShardRead() throws Exception {
        RedisBackplane onB = backplane(16, "200ms", "500ms");
        node(onB);
        assertThat(onB.shardsRead()).isZero();
        PresenceListener listener = event -> { };

        onB.addPresenceListener(listener);

        await().atMost(Duration.ofSeconds(10)).until(() -> onB.shardsRead() == 16);
        onB.removePresenceListener(listener);
        await("dropped after the grace").atMost(Duration.ofSeconds(20)).until(() -> onB.shardsRead() == 0);
    }

    @Test
    void aSubscribeThatNeedsAShardWhileRedisIsAwayFailsAndLeavesNoSubscription() throws Exception {
        RedisBackplane onB = backplane(16, "200ms", "500ms");
        BayeuxEngine b = node(onB);
        LocalSession listener = connected(b, "listener");

        fixture.redis().kill();
        await().atMost(Duration.ofSeconds(10)).until(() -> !onB.isConnected());
        Message reply = subscribe(listener, "/news/away", (c, message) -> { });

        assertThat(reply.isSuccessful()).isFalse();
        assertThat(reply.getError()).isEqualTo("503::" + RedisBackplane.UNAVAILABLE);
        assertThat(b.getChannel("/news/away") == null || b.getChannel("/news/away").getSubscribers().isEmpty())
                .isTrue();
        assertThat(onB.shardsRead()).isZero();
    }
}
