package org.bayeux.backplane.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.bayeux.api.Message;
import org.bayeux.api.server.LocalSession;
import org.bayeux.server.BayeuxEngine;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Presence of many subscriptions on one node with a small {@code maxPendingPublishes} (200, so a presence budget of
 * 50) and a short {@code presenceTtl} (a round every 500 ms), on a real redis-server, while two sessions publish
 * without pause: no publish fails, the members are exact once a refresh has re-added the joins left to it and the
 * sweep has removed the leaves left to expiry, and a refresh round costs one script call per channel and chunk, not
 * one per session (Redis's own count of {@code EVALSHA} calls).
 */
class PresenceLoadTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final Duration TTL = Duration.ofMillis(1500);
    private static final int SESSIONS = 300;
    private static final int CHANNELS = 10;
    private static final int LEAVING = 100;
    private static final int PUBLISHERS = 2;
    private static final Pattern EVALSHA = Pattern.compile("cmdstat_evalsha:calls=(\\d+)");
    private static final Pattern EVAL = Pattern.compile("cmdstat_eval:calls=(\\d+)");

    private RedisProcess redis;
    private BayeuxEngine engine;
    private RedisClient client;
    private final AtomicBoolean publishing = new AtomicBoolean();
    private final List<Thread> publishers = new ArrayList<>();

    @BeforeEach
    void startRedis() throws Exception {
        redis = RedisProcess.start();
    }

    @AfterEach
    void stopAll() throws Exception {
        publishing.set(false);
        for (Thread publisher : publishers) {
            publisher.join(WAIT.toMillis());
        }
        if (engine != null) {
            engine.stop();
        }
        if (client != null) {
            client.shutdown();
        }
        if (redis != null) {
            redis.close();
        }
    }

    private static String channel(int index) {
        return "/load/" + index;
    }

    private LocalSession connected(String name) throws Exception {
        LocalSession session = engine.newLocalSession(name);
        CompletableFuture<Message> reply = new CompletableFuture<>();
        session.handshake(null, (channel, message) -> reply.complete(message));
        assertThat(reply.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).isSuccessful()).isTrue();
        return session;
    }

    private void subscribe(LocalSession session, String channel) throws Exception {
        CompletableFuture<Message> reply = new CompletableFuture<>();
        session.getChannel(channel).subscribe((c, message) -> { }, (c, message) -> reply.complete(message));
        assertThat(reply.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).isSuccessful()).isTrue();
    }

    /** Publishes one at a time, each answered before the next, until stopped (bounded in count and time). */
    private void startPublisher(LocalSession session, AtomicInteger sent, AtomicInteger failed) {
        Thread thread = new Thread(() -> {
            long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
            for (int i = 0; i < 1_000_000 && publishing.get() && System.nanoTime() < end; i++) {
                CompletableFuture<Message> reply = new CompletableFuture<>();
                session.getChannel("/feed").publish(i, (c, message) -> reply.complete(message));
                try {
                    if (reply.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).isSuccessful()) {
                        sent.incrementAndGet();
                    } else {
                        failed.incrementAndGet();
                    }
                } catch (Exception notAnswered) {
                    failed.incrementAndGet();
                }
            }
        }, "presence-load-publisher");
        thread.setDaemon(true);
        publishers.add(thread);
        thread.start();
    }

    private Map<String, String> presence(RedisBackplane backplane, String channel) throws Exception {
        return backplane.presence(channel).toCompletableFuture().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }

    private static long calls(String stats, Pattern command) {
        Matcher matcher = command.matcher(stats);
        return matcher.find() ? Long.parseLong(matcher.group(1)) : 0;
    }

    @Test
    void manySubscriptionsNeverFailAPublishAndRefreshOncePerChannelAndChunk() throws Exception {
        RedisBackplane backplane = new RedisBackplane(RedisBackplaneConfig.builder().uri(redis.uri())
                .operationTimeout(Duration.ofSeconds(5)).presenceTtl(TTL)
                .set(RedisBackplaneConfig.MAX_PENDING_PUBLISHES, 200).build());
        engine = BayeuxEngine.create();
        engine.setCluster(backplane);
        engine.start();
        await("backplane connected").atMost(WAIT).until(backplane::isConnected);
        Presence tracker = backplane.presenceTracker();
        assertThat(Presence.budget(200)).isEqualTo(50);

        AtomicInteger sent = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        publishing.set(true);
        for (int i = 0; i < PUBLISHERS; i++) {
            startPublisher(connected("publisher" + i), sent, failed);
        }

        List<LocalSession> sessions = new ArrayList<>();
        Map<String, String> expected = new HashMap<>();
        for (int i = 0; i < SESSIONS; i++) {
            LocalSession session = connected("member" + i);
            for (int c = 0; c < CHANNELS; c++) {
                subscribe(session, channel(c));
            }
            sessions.add(session);
            expected.put(session.getServerSession().getId(), backplane.nodeId());
        }
        for (int c = 0; c < CHANNELS; c++) {
            String name = channel(c);
            await("every member of " + name).atMost(WAIT).pollInterval(Duration.ofMillis(200))
                    .until(() -> presence(backplane, name).equals(expected));
        }

        // Leaves: 100 sessions end at once, 1,000 leaves against a budget of 50; those not sent leave by expiry.
        for (LocalSession leaving : sessions.subList(0, LEAVING)) {
            expected.remove(leaving.getServerSession().getId());
            leaving.disconnect();
        }
        for (int c = 0; c < CHANNELS; c++) {
            String name = channel(c);
            await("the members left in " + name).atMost(WAIT).pollInterval(Duration.ofMillis(200))
                    .until(() -> presence(backplane, name).equals(expected));
        }
        int sentUnderLoad = sent.get();
        publishing.set(false);
        for (Thread publisher : publishers) {
            publisher.join(WAIT.toMillis());
            assertThat(publisher.isAlive()).isFalse();
        }
        assertThat(failed.get()).as("publishes that failed (of %d)", sent.get()).isZero();
        assertThat(sentUnderLoad).as("publishes made meanwhile").isPositive();

        // 200 sessions on each of 10 channels now: one refresh call per channel (a chunk), one sweep call each.
        int callsPerRound = CHANNELS + CHANNELS;
        client = RedisClient.create(redis.uri());
        try (StatefulRedisConnection<String, String> stats = client.connect()) {
            long startRound = tracker.rounds();
            await("a round begins and ends").atMost(WAIT).until(() -> tracker.rounds() > startRound);
            long first = tracker.rounds();
            stats.sync().configResetstat();
            await("three more rounds").atMost(WAIT).until(() -> tracker.rounds() >= first + 3);
            String info = stats.sync().info("commandstats");
            long rounds = tracker.rounds() - first;
            long evalsha = calls(info, EVALSHA);
            // Rounds run whole within the window but for the one under way at each end.
            assertThat(evalsha).as("EVALSHA calls in %d rounds", rounds)
                    .isBetween((rounds - 1) * callsPerRound, (rounds + 1) * callsPerRound);
            assertThat(calls(info, EVAL)).as("scripts Redis already has are not sent again").isZero();
        }
    }
}
