package org.bayeux.backplane.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.SetArgs;
import io.lettuce.core.api.sync.RedisCommands;
import org.bayeux.server.cluster.ChannelPosition;
import org.bayeux.server.cluster.SessionFencedException;
import org.bayeux.server.cluster.SessionState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Adoption and fencing in {@link RedisSessionStore}, store against store on a redis-server of the test's own: a node
 * adopts a session whose owner is gone, let it go or does not answer; two nodes adopting one session at once make one
 * owner; a node whose write comes after another node adopted its session is fenced (and told), the key intact; the
 * journal is written and dropped as batches are acknowledged; unknown ids are nothing.
 */
class RedisSessionAdoptionTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Duration LEASE = Duration.ofSeconds(1);
    private static final String CHANNEL = "/chat/room";
    private final List<AutoCloseable> started = new ArrayList<>();
    private RedisProcess redis;
    private RedisStats stats;

    /** A session as an engine keeps it: changed by the test. */
    private static final class Live implements SessionState {
        private final String id;
        volatile Set<String> subscriptions = Set.of(CHANNEL);
        volatile long ackBatch = -1;
        volatile boolean acknowledges = true;
        volatile long lastBatch;
        volatile Map<String, ChannelPosition> positions = Map.of();

        Live(String id) {
            this.id = id;
        }

        @Override
        public String sessionId() {
            return id;
        }

        @Override
        public Set<String> subscriptions() {
            return subscriptions;
        }

        @Override
        public long deliveryPosition() {
            return 0;
        }

        @Override
        public long ackBatch() {
            return ackBatch;
        }

        @Override
        public Map<String, ChannelPosition> positions() {
            return positions;
        }

        @Override
        public Duration maxInterval() {
            return Duration.ofSeconds(10);
        }

        @Override
        public String browserDigest() {
            return "ab".repeat(32);
        }

        @Override
        public boolean browserCookieShown() {
            return true;
        }

        @Override
        public boolean acknowledges() {
            return acknowledges;
        }

        @Override
        public long lastBatch() {
            return lastBatch;
        }

        @Override
        public Map<String, String> portableAttributes() {
            return Map.of("user", "alice");
        }
    }

    /** A store and the sessions it was told moved. */
    private record Node(RedisSessionStore store, List<String> moved) {
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = started.size() - 1; i >= 0; i--) {
            started.get(i).close();
        }
    }

    private RedisStats redis() throws Exception {
        if (redis == null) {
            redis = RedisProcess.start();
            started.add(0, redis);
            stats = new RedisStats(redis.uri());
            started.add(stats);
        }
        return stats;
    }

    private Node node(String nodeId, String uri) throws Exception {
        redis();
        RedisBackplaneConfig config = RedisBackplaneConfig.builder().uri(uri)
                .sessionStore(true, Duration.ofMillis(20), Duration.ofSeconds(1)).nodeLease(LEASE)
                // A shared, busy test machine: Redis's answers may be slow; the lease's timing does not depend on it.
                .operationTimeout(Duration.ofSeconds(10))
                .reconnectWindow(Duration.ofSeconds(5)).build();
        RedisSessionStore store = new RedisSessionStore(config, nodeId);
        List<String> moved = new CopyOnWriteArrayList<>();
        store.onMoved(moved::add);
        started.add(store);
        store.start();
        await(nodeId + " serves").atMost(WAIT).pollInterval(Duration.ofMillis(20)).until(store::serving);
        return new Node(store, moved);
    }

    private Node node(String nodeId) throws Exception {
        redis();
        return node(nodeId, redis.uri());
    }

    private static <T> T get(java.util.concurrent.CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** A session whose owner ("ghost") never ran here: its hash as that node would have written it. */
    private String ghostSession(RedisSessionStore any, String id, boolean leaseAlive) throws Exception {
        RedisCommands<String, String> commands = redis().commands();
        String key = any.key(id);
        commands.hset(key, Map.of("own", "ghost", "gen", "4", "s:" + CHANNEL, "1", "maxInterval", "10000",
                "ackOn", "1", "lb", "7", "ackBatch", "6", "j:7", CHANNEL + " e1:70", "ss:" + CHANNEL, "e1:3"));
        commands.pexpire(key, 60_000);
        if (leaseAlive) {
            commands.set("bayeux:node:{ghost}", "ghost", SetArgs.Builder.px(60_000));
        }
        return key;
    }

    @Test
    void aSessionWhoseOwnerIsGoneIsAdoptedAtOnceWithTheNextGeneration() throws Exception {
        Node b = node("b");
        ghostSession(b.store(), "s1", false);
        SessionState adopted = get(b.store().adopt("s1"));
        assertThat(adopted).isNotNull();
        assertThat(adopted.sessionId()).isEqualTo("s1");
        assertThat(adopted.generation()).isEqualTo(5);
        assertThat(adopted.owner()).isEqualTo("b");
        assertThat(adopted.subscriptions()).containsExactly(CHANNEL);
        assertThat(adopted.acknowledges()).isTrue();
        assertThat(adopted.lastBatch()).isEqualTo(7);
        assertThat(adopted.ackBatch()).isEqualTo(6);
        assertThat(adopted.journal()).isEqualTo(Map.of(7L, Map.of(CHANNEL, new ChannelPosition("e1", 70))));
        assertThat(adopted.subscribedAt()).isEqualTo(Map.of(CHANNEL, new ChannelPosition("e1", 3)));
        assertThat(redis().commands().hmget(b.store().key("s1"), "own", "gen"))
                .extracting(kv -> kv.getValue()).containsExactly("b", "5");
        assertThat(b.store().adoptions()).isEqualTo(1);
    }

    @Test
    void anAdoptionCostsThreeCommandsWhenTheOwnerIsGoneAndTwoWhenItLetTheSessionGo() throws Exception {
        Node b = node("b");
        ghostSession(b.store(), "warm", false);
        assertThat(get(b.store().adopt("warm"))).isNotNull(); // loads the script
        RedisCommands<String, String> commands = redis().commands();
        ghostSession(b.store(), "s1", false);
        Map<String, Long> before = commandCounts();
        assertThat(get(b.store().adopt("s1"))).isNotNull();
        // Redis counts the commands a script runs inside it too: the claim's own EXISTS, HGET, HSET, PEXPIRE and
        // HGETALL, one round trip. What the store sends: HGETALL, EXISTS (the owner's lease), EVALSHA (the claim).
        Map<String, Long> gone = delta(before, commandCounts());
        assertThat(gone).isEqualTo(Map.of("hgetall", 1L, "exists", 1L, "evalsha", 1L));

        ghostSession(b.store(), "s2", false);
        commands.hset(b.store().key("s2"), "own", "");
        before = commandCounts();
        assertThat(get(b.store().adopt("s2"))).isNotNull();
        assertThat(delta(before, commandCounts())).as("let go: no lease to look at")
                .isEqualTo(Map.of("hgetall", 1L, "evalsha", 1L));
    }

    private Map<String, Long> commandCounts() throws Exception {
        Map<String, Long> counts = new java.util.HashMap<>();
        for (String line : redis().commands().info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_")) {
                String name = line.substring("cmdstat_".length(), line.indexOf(':'));
                String calls = line.substring(line.indexOf("calls=") + "calls=".length());
                counts.put(name, Long.parseLong(calls.substring(0, calls.indexOf(','))));
            }
        }
        return counts;
    }

    private static Map<String, Long> delta(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> delta = new java.util.TreeMap<>();
        after.forEach((name, calls) -> {
            long more = calls - before.getOrDefault(name, 0L);
            if (more > 0) {
                delta.put(name, more);
            }
        });
        // Not the adoption's: the store's lease renewals (SET) and the INFO reading the counts.
        delta.remove("set");
        delta.remove("info");
        // The claim script's own commands.
        for (String inside : List.of("exists", "hget", "hset", "pexpire", "hgetall")) {
            delta.computeIfPresent(inside, (name, calls) -> calls == 1 ? null : calls - 1);
        }
        return delta;
    }

    @Test
    void aLiveOwnerLetsTheSessionGoWhenAskedAndIsToldItMoved() throws Exception {
        Node a = node("a");
        Node b = node("b");
        Live session = new Live("s1");
        session.positions = Map.of(CHANNEL, new ChannelPosition("e1", 12));
        a.store().created(session);
        get(a.store().writeNow(session));
        // Not written yet when B asks: A writes its final state as it lets go.
        session.positions = Map.of(CHANNEL, new ChannelPosition("e1", 13));
        SessionState adopted = get(b.store().adopt("s1"));
        assertThat(adopted).isNotNull();
        assertThat(adopted.generation()).isEqualTo(2);
        assertThat(adopted.owner()).isEqualTo("b");
        assertThat(adopted.positions()).isEqualTo(Map.of(CHANNEL, new ChannelPosition("e1", 13)));
        assertThat(adopted.browserDigest()).isEqualTo("ab".repeat(32));
        assertThat(adopted.browserCookieShown()).isTrue();
        assertThat(adopted.portableAttributes()).isEqualTo(Map.of("user", "alice"));
        await("a was told").atMost(WAIT).until(() -> a.moved().equals(List.of("s1")));
        // A no longer writes it: B's state stays.
        a.store().changed(session);
        assertThatThrownBy(() -> get(a.store().journal(session, 1, Map.of())))
                .hasCauseInstanceOf(SessionFencedException.class);
        assertThat(redis().commands().hget(b.store().key("s1"), "own")).isEqualTo("b");
    }

    @Test
    void anOwnerWhoseLeaseLivesButWhichDoesNotAnswerLosesTheSessionAfterALease() throws Exception {
        Node b = node("b");
        ghostSession(b.store(), "s1", true);
        SessionState adopted = get(b.store().adopt("s1"));
        assertThat(adopted).as("adopted once the wait for the owner ended").isNotNull();
        assertThat(adopted.generation()).isEqualTo(5);
        assertThat(redis().commands().hget(b.store().key("s1"), "own")).isEqualTo("b");
    }

    @Test
    void drainReleasesSoThatTheNextNodeAdoptsAtOnceAndGenerationsCount() throws Exception {
        Node a = node("a");
        Node b = node("b");
        Node c = node("c");
        Live session = new Live("s1");
        a.store().created(session);
        get(a.store().writeNow(session));
        get(a.store().release(session));
        assertThat(redis().commands().hmget(a.store().key("s1"), "own", "gen"))
                .extracting(kv -> kv.getValue()).containsExactly("", "1");
        assertThat(get(b.store().adopt("s1")).generation()).isEqualTo(2);
        get(b.store().release(session));
        assertThat(get(c.store().adopt("s1")).generation()).isEqualTo(3);
        assertThat(a.moved()).isEmpty();
        assertThat(b.moved()).isEmpty();
        // A released it: its later writes go nowhere (it does not track the session any more).
        a.store().changed(session);
        assertThat(redis().commands().hmget(a.store().key("s1"), "own", "gen"))
                .extracting(kv -> kv.getValue()).containsExactly("c", "3");
    }

    @Test
    void aStaleWriteAfterAnotherNodeAdoptedIsFencedAndTheKeyKept() throws Exception {
        Node a = node("a");
        Live session = new Live("s1");
        a.store().created(session);
        get(a.store().writeNow(session));
        // Another node adopted it while A did not look (a pause): generation 2, owner b.
        redis().commands().hset(a.store().key("s1"), Map.of("own", "b", "gen", "2", "s:/elsewhere", "1"));
        session.subscriptions = Set.of("/mine");
        a.store().changed(session);
        await("A is told the session moved").atMost(WAIT).until(() -> a.moved().equals(List.of("s1")));
        assertThat(a.store().fencedWrites()).isEqualTo(1);
        Map<String, String> hash = redis().commands().hgetall(a.store().key("s1"));
        assertThat(hash).containsEntry("own", "b").containsEntry("gen", "2").containsKey("s:/elsewhere")
                .doesNotContainKey("s:/mine");
        // Removing it locally deletes nothing of the new owner's.
        a.store().removed("s1");
        assertThat(redis().commands().exists(a.store().key("s1"))).isEqualTo(1);
    }

    @Test
    void aNodeCutOffFromRedisStopsServingAndOnReturnFindsItsSessionsMovedWithoutTouchingThem() throws Exception {
        redis();
        TcpProxy toRedis = new TcpProxy(redis.port());
        started.add(toRedis);
        Node a = node("a", "redis://127.0.0.1:" + toRedis.port());
        Node b = node("b");
        Live session = new Live("s1");
        a.store().created(session);
        get(a.store().writeNow(session));
        toRedis.cut();
        await("A stops serving").atMost(WAIT).pollInterval(Duration.ofMillis(20)).until(() -> !a.store().serving());
        SessionState adopted = get(b.store().adopt("s1"));
        assertThat(adopted.generation()).isEqualTo(2);
        toRedis.resume(redis.port());
        await("A checked its sessions and serves again").atMost(WAIT).pollInterval(Duration.ofMillis(20))
                .until(() -> a.store().serving());
        // Either A's lease lapsed (its check found the session moved) or a renewal sent during the cut landed in
        // time, so its lease never lapsed in Redis and B took the session because A did not answer: then A's next
        // write is fenced. Either way A learns it, and touches nothing of B's.
        a.store().changed(session);
        await("A told the session moved").atMost(WAIT).pollInterval(Duration.ofMillis(20))
                .until(() -> a.moved().contains("s1"));
        assertThat(a.moved()).containsExactly("s1");
        a.store().removed("s1");
        assertThat(redis().commands().hmget(b.store().key("s1"), "own", "gen"))
                .extracting(kv -> kv.getValue()).containsExactly("b", "2");
    }

    /**
     * Two nodes that read the session at once both try the same generation: exactly one claim wins, the other adopts
     * nothing. One that reads it after the other's claim finds a live owner and asks it to let go: then the session
     * moves on (one more generation) and the first owner is told. Either way one owner, each generation once.
     */
    @Test
    void twoNodesAdoptingOneSessionAtOnceMakeExactlyOneOwner() throws Exception {
        Node b = node("b");
        Node c = node("c");
        int simultaneous = 0;
        for (int i = 0; i < 20; i++) {
            String id = "s" + i;
            ghostSession(b.store(), id, false);
            CompletableFuture<SessionState> onB = b.store().adopt(id).toCompletableFuture();
            CompletableFuture<SessionState> onC = c.store().adopt(id).toCompletableFuture();
            SessionState byB = onB.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            SessionState byC = onC.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(byB != null || byC != null).as("someone adopts " + id).isTrue();
            List<String> owner = redis().commands().hmget(b.store().key(id), "own", "gen").stream()
                    .map(kv -> kv.getValue()).toList();
            if (byB == null || byC == null) {
                simultaneous++;
                assertThat(owner).as(id).containsExactly(byB != null ? "b" : "c", "5");
            } else {
                // One after the other: the second took it from the first, which let it go and was told.
                SessionState second = byB.generation() > byC.generation() ? byB : byC;
                assertThat(Set.of(byB.generation(), byC.generation())).as(id).containsExactlyInAnyOrder(5L, 6L);
                assertThat(owner).as(id).containsExactly(second.owner(), "6");
                Node first = second == byB ? c : b;
                await("the first owner of " + id + " is told").atMost(WAIT).until(() -> first.moved().contains(id));
            }
        }
        assertThat(b.moved().size() + c.moved().size()).as("every session moved at most once")
                .isEqualTo(20 - simultaneous);
        assertThat(b.store().adoptions() + c.store().adoptions()).isEqualTo(20 + (20 - simultaneous));
    }

    @Test
    void aFloodOfUnknownIdsFindsNothingAndWritesNothing() throws Exception {
        Node b = node("b");
        // In waves of 256, the most adoptions an engine has in flight.
        for (int wave = 0; wave < 8; wave++) {
            List<CompletableFuture<SessionState>> all = new ArrayList<>();
            for (int i = 0; i < 256; i++) {
                all.add(b.store().adopt("forged" + wave + "-" + i).toCompletableFuture());
            }
            for (CompletableFuture<SessionState> one : all) {
                assertThat(one.get(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isNull();
            }
        }
        assertThat(stats.keys("bayeux:session:*")).isEmpty();
        assertThat(b.store().adoptions()).isZero();
    }

    @Test
    void theJournalIsWrittenBeforeItCompletesAndDroppedAsBatchesAreAcknowledged() throws Exception {
        Node a = node("a");
        Live session = new Live("s1");
        session.ackBatch = 0;
        a.store().created(session);
        get(a.store().writeNow(session));
        get(a.store().journal(session, 1, Map.of(CHANNEL, new ChannelPosition("e1", 5))));
        get(a.store().journal(session, 2, Map.of(CHANNEL, new ChannelPosition("e1", 9),
                "/other", new ChannelPosition("e2", 1))));
        SessionState found = a.store().find("s1");
        assertThat(found.journal()).isEqualTo(Map.of(1L, Map.of(CHANNEL, new ChannelPosition("e1", 5)),
                2L, Map.of(CHANNEL, new ChannelPosition("e1", 9), "/other", new ChannelPosition("e2", 1))));
        assertThat(found.lastBatch()).isEqualTo(2);
        session.ackBatch = 2;
        get(a.store().journal(session, 3, Map.of(CHANNEL, new ChannelPosition("e1", 11))));
        found = a.store().find("s1");
        assertThat(found.journal().keySet()).as("the acknowledged batch's own entry stays: where its client resumes")
                .containsExactly(2L, 3L);
        assertThat(found.lastBatch()).isEqualTo(3);
        // A lazy write keeps the journal, and drops what is below the acknowledged batch.
        session.ackBatch = 3;
        a.store().changed(session);
        await("acknowledged entries dropped").atMost(WAIT).pollInterval(Duration.ofMillis(20)).ignoreExceptions()
                .until(() -> a.store().find("s1").journal().keySet().equals(Set.of(3L)));
        assertThat(a.store().find("s1").ackBatch()).isEqualTo(3);
    }

    @Test
    void aJournalEntryKeepsTheIdOfTheConnectItsBatchAnsweredWhenItIsAWord() throws Exception {
        Node a = node("a");
        Live session = new Live("s3");
        session.acknowledges = false;
        a.store().created(session);
        get(a.store().writeNow(session));
        get(a.store().journal(session, 1, Map.of(CHANNEL, new ChannelPosition("e1", 5)), "1f"));
        get(a.store().journal(session, 2, Map.of(CHANNEL, new ChannelPosition("e1", 7)), "a b\n/x e:1"));
        SessionState found = a.store().find("s3");
        assertThat(found.journalRequests()).as("a hostile id is not kept (nor can it forge a line)")
                .isEqualTo(Map.of(1L, "1f"));
        assertThat(found.journal()).isEqualTo(Map.of(1L, Map.of(CHANNEL, new ChannelPosition("e1", 5)),
                2L, Map.of(CHANNEL, new ChannelPosition("e1", 7))));
    }

    @Test
    void withoutAckTheJournalKeepsTheNewestTwoReplies() throws Exception {
        Node a = node("a");
        Live session = new Live("s2");
        session.acknowledges = false;
        a.store().created(session);
        get(a.store().writeNow(session));
        for (long reply = 1; reply <= 4; reply++) {
            get(a.store().journal(session, reply, Map.of(CHANNEL, new ChannelPosition("e1", 10 * reply))));
        }
        assertThat(a.store().find("s2").journal().keySet()).as("at-most-once resumes after 4, at-least-once after 3")
                .containsExactly(3L, 4L);
    }

    @Test
    void theLeaseAndTheReconnectWindowAreValidatedNamingKeyAndValue() {
        assertThat(RedisBackplaneConfig.defaults().nodeLease()).isEqualTo(Duration.ofSeconds(3));
        assertThat(RedisBackplaneConfig.defaults().reconnectWindow()).isEqualTo(Duration.ofSeconds(30));
        assertThatThrownBy(() -> RedisBackplaneConfig.fromMap(Map.of("nodeLease", "200ms")))
                .isInstanceOf(org.bayeux.server.config.InvalidConfigurationException.class)
                .hasMessageContaining("nodeLease").hasMessageContaining("200ms");
        assertThatThrownBy(() -> RedisBackplaneConfig.fromMap(Map.of("reconnectWindow", "2h")))
                .isInstanceOf(org.bayeux.server.config.InvalidConfigurationException.class)
                .hasMessageContaining("reconnectWindow").hasMessageContaining("2h");
    }

    /** Only a session's owner deletes its hash: one found gone was lost by Redis, and is written again. */
    @Test
    void aSessionRedisLostIsWrittenAgainNotFenced() throws Exception {
        Node a = node("a");
        Live session = new Live("s1");
        a.store().created(session);
        get(a.store().writeNow(session));
        redis.flushAll();
        get(a.store().journal(session, 1, Map.of(CHANNEL, new ChannelPosition("e1", 5))));
        SessionState found = a.store().find("s1");
        assertThat(found.subscriptions()).containsExactly(CHANNEL);
        assertThat(found.journal().keySet()).containsExactly(1L);
        assertThat(found.generation()).isEqualTo(1);
        redis.flushAll();
        session.subscriptions = Set.of(CHANNEL, "/more");
        a.store().changed(session);
        await("written again by the lazy writer").atMost(WAIT).pollInterval(Duration.ofMillis(20))
                .ignoreExceptions().until(() -> a.store().find("s1").subscriptions().size() == 2);
        assertThat(a.store().fencedWrites()).isZero();
        assertThat(a.moved()).isEmpty();
    }

    @Test
    void aSubscriptionsSeamIsWrittenBeforeItCompletesAndKeptByLaterWrites() throws Exception {
        Node a = node("a");
        Live session = new Live("s1");
        a.store().created(session);
        get(a.store().subscribedAt("s1", CHANNEL, new ChannelPosition("e1", 40)));
        assertThat(a.store().find("s1").subscribedAt()).isEqualTo(Map.of(CHANNEL, new ChannelPosition("e1", 40)));
        get(a.store().writeNow(session));
        assertThat(a.store().find("s1").subscribedAt()).isEqualTo(Map.of(CHANNEL, new ChannelPosition("e1", 40)));
        assertThatThrownBy(() -> get(a.store().subscribedAt("unknown", CHANNEL, new ChannelPosition("e1", 1))))
                .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(SessionFencedException.class);
    }
}
