package org.bayeux.backplane.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.Message;
import org.bayeux.api.client.ClientSessionChannel.MessageListener;
import org.bayeux.api.server.LocalSession;
import org.bayeux.server.BayeuxEngine;
import org.bayeux.server.cluster.PresenceEntry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Presence across two engines in one JVM on a real redis-server, the backplane's own API and the engine's seam; node A
 * reaches Redis through a {@link TcpProxy}, so that cutting it makes A, as Redis sees it, a node that died: it no
 * longer refreshes its entries.
 */
class PresenceTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String CHANNEL = "/chat/room";
    @RegisterExtension
    final BackplaneFixture fixture = new BackplaneFixture();
    private final List<BayeuxEngine> engines = new ArrayList<>();
    private TcpProxy proxy;

    @BeforeEach
    void startProxy() throws Exception {
        proxy = fixture.closing(new TcpProxy(fixture.redis().port()));
    }

    private RedisBackplane node(String uri) {
        RedisBackplane backplane = new RedisBackplane(RedisBackplaneConfig.builder().uri(uri)
                .operationTimeout(Duration.ofSeconds(2)).presenceTtl(Duration.ofSeconds(2)).build());
        engines.add(fixture.engine(backplane));
        return backplane;
    }

    private final List<MessageListener> subscribers = new ArrayList<>();

    private LocalSession subscribed(int node, String name) throws Exception {
        LocalSession session = engines.get(node).newLocalSession(name);
        CompletableFuture<Message> handshake = new CompletableFuture<>();
        session.handshake(null, (channel, message) -> handshake.complete(message));
        assertThat(handshake.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).isSuccessful()).isTrue();
        CompletableFuture<Message> reply = new CompletableFuture<>();
        MessageListener subscriber = (c, message) -> { };
        subscribers.add(subscriber);
        session.getChannel(CHANNEL).subscribe(subscriber, (c, message) -> reply.complete(message));
        assertThat(reply.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).isSuccessful()).isTrue();
        return session;
    }

    private static Map<String, String> presence(RedisBackplane backplane) throws Exception {
        return backplane.presence(CHANNEL).toCompletableFuture().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Test
    void joinsAndLeavesReachEveryNodeAndADeadNodesSessionsExpire() throws Exception {
        RedisBackplane a = node("redis://127.0.0.1:" + proxy.port());
        RedisBackplane b = node(fixture.redis().uri());
        List<PresenceEvent> seenOnB = new CopyOnWriteArrayList<>();
        b.addPresenceListener(seenOnB::add);
        b.addPresenceListener(event -> {
            throw new IllegalStateException("a listener that fails does not stop the others");
        });

        String onA = subscribed(0, "alice").getServerSession().getId();
        LocalSession bob = subscribed(1, "bob");
        String onB = bob.getServerSession().getId();
        PresenceEvent aliceJoined = new PresenceEvent(CHANNEL, onA, a.nodeId(), true);
        PresenceEvent bobJoined = new PresenceEvent(CHANNEL, onB, b.nodeId(), true);
        await("both joins seen on B").atMost(WAIT).until(() -> seenOnB.containsAll(List.of(aliceJoined, bobJoined)));
        assertThat(presence(b)).isEqualTo(Map.of(onA, a.nodeId(), onB, b.nodeId()));
        assertThat(presence(a)).isEqualTo(presence(b));

        CompletableFuture<Message> unsubscribed = new CompletableFuture<>();
        bob.getChannel(CHANNEL).unsubscribe(subscribers.get(1), (c, message) -> unsubscribed.complete(message));
        assertThat(unsubscribed.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).isSuccessful()).isTrue();
        PresenceEvent bobLeft = new PresenceEvent(CHANNEL, onB, b.nodeId(), false);
        await("Bob's leave").atMost(WAIT).until(() -> seenOnB.contains(bobLeft));
        assertThat(presence(b)).isEqualTo(Map.of(onA, a.nodeId()));

        // Node A dies as far as Redis can tell: its entries are no longer refreshed, and expire.
        proxy.cut();
        PresenceEvent aliceLeft = new PresenceEvent(CHANNEL, onA, a.nodeId(), false);
        await("Alice's leave once A's entry expired").atMost(WAIT).until(() -> seenOnB.contains(aliceLeft));
        assertThat(presence(b)).isEmpty();
        assertThat(seenOnB).as("each event once").hasSize(4);
        assertThat(seenOnB.subList(0, 2)).containsExactlyInAnyOrder(aliceJoined, bobJoined);
        assertThat(seenOnB.subList(2, 4)).containsExactly(bobLeft, aliceLeft);
    }

    @Test
    void aRefreshReAddsWhatRedisLostWithOneJoinEachAndOnlyOnce() throws Exception {
        RedisBackplane a = node(fixture.redis().uri());
        List<PresenceEvent> seen = new CopyOnWriteArrayList<>();
        a.addPresenceListener(seen::add);
        Map<String, String> expected = new HashMap<>();
        for (String name : List.of("alice", "bob", "carol")) {
            expected.put(subscribed(0, name).getServerSession().getId(), a.nodeId());
        }
        await("three joins").atMost(WAIT).until(() -> seen.size() == 3);
        assertThat(presence(a)).isEqualTo(expected);

        // Redis loses everything, its scripts too: the next refresh runs by text (NOSCRIPT) and re-adds each entry,
        // with a join each, in one call for the channel; the rounds after it refresh them without a join.
        fixture.redis().flushAll();
        await("the entries re-added").atMost(WAIT).until(() -> presence(a).equals(expected));
        await("a join again for each").atMost(WAIT).until(() -> seen.size() == 6);
        Presence tracker = a.presenceTracker();
        long after = tracker.rounds();
        await("three more rounds").atMost(WAIT).until(() -> tracker.rounds() >= after + 3);
        assertThat(presence(a)).isEqualTo(expected);
        assertThat(seen).hasSize(6).allMatch(PresenceEvent::joined);
        assertThat(seen.subList(3, 6)).extracting(PresenceEvent::sessionId)
                .containsExactlyInAnyOrderElementsOf(expected.keySet());
        assertThat(tracker.joinsDeferred() + tracker.leavesDeferred() + tracker.roundsCut()).isZero();
    }

    private LocalSession session(int node, String name) throws Exception {
        LocalSession session = engines.get(node).newLocalSession(name);
        CompletableFuture<Message> handshake = new CompletableFuture<>();
        session.handshake(null, (channel, message) -> handshake.complete(message));
        assertThat(handshake.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).isSuccessful()).isTrue();
        return session;
    }

    private static void subscribe(LocalSession session) throws Exception {
        CompletableFuture<Message> reply = new CompletableFuture<>();
        session.getChannel(CHANNEL).subscribe((c, message) -> { }, (c, message) -> reply.complete(message));
        assertThat(reply.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).isSuccessful()).isTrue();
    }

    /** @return an event of the engine's seam (this package has the backplane's own {@code PresenceEvent}) */
    private static org.bayeux.server.cluster.PresenceEvent seam(String channel, PresenceEntry entry, boolean joined) {
        return new org.bayeux.server.cluster.PresenceEvent(channel, entry, joined);
    }

    private static <T> T now(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * The engine's presence seam on the backplane: channels' entries carry their sessions' users, users are present
     * across nodes, and a dead node's users expire as its subscriptions do.
     */
    @Test
    void theSeamsEntriesCarryUsersAndADeadNodesUsersExpire() throws Exception {
        RedisBackplane a = node("redis://127.0.0.1:" + proxy.port());
        RedisBackplane b = node(fixture.redis().uri());
        assertThat(engines.get(0).presence()).as("the engine answers with the backplane's").isSameAs(a.presence());
        List<org.bayeux.server.cluster.PresenceEvent> seenOnB = new CopyOnWriteArrayList<>();
        b.presence().addListener(seenOnB::add);

        // Alice is tied before she subscribes, Bob after: both entries name their user.
        LocalSession alice = session(0, "alice");
        assertThat(a.presence().associate("alice", alice.getServerSession())).isTrue();
        subscribe(alice);
        LocalSession bob = session(1, "bob");
        subscribe(bob);
        assertThat(b.presence().associate("bob", bob.getServerSession())).isTrue();
        String onA = alice.getServerSession().getId();
        String onB = bob.getServerSession().getId();
        PresenceEntry aliceEntry = new PresenceEntry(onA, "alice", a.nodeId());
        PresenceEntry bobEntry = new PresenceEntry(onB, "bob", b.nodeId());
        await("both entries name their user").atMost(WAIT)
                .until(() -> Set.copyOf(now(b.presence().members(CHANNEL))).equals(Set.of(aliceEntry, bobEntry)));
        assertThat(now(a.presence().userIds())).isEqualTo(Set.of("alice", "bob"));
        assertThat(now(b.presence().isPresent("alice"))).isTrue();
        assertThat(now(b.presence().isPresent("carol"))).isFalse();
        assertThat(now(b.presence(CHANNEL))).as("the backplane's own view: session to node")
                .isEqualTo(Map.of(onA, a.nodeId(), onB, b.nodeId()));
        var aliceHere = seam(null, new PresenceEntry(null, "alice", a.nodeId()), true);
        var bobHere = seam(null, new PresenceEntry(null, "bob", b.nodeId()), true);
        await("users' and channels' joins").atMost(WAIT).until(() -> seenOnB.containsAll(List.of(aliceHere,
                bobHere, seam(CHANNEL, aliceEntry, true))));
        assertThat(seenOnB).filteredOn(event -> CHANNEL.equals(event.channel()) && event.joined())
                .extracting(event -> event.entry().sessionId()).containsExactlyInAnyOrder(onA, onB);

        // Bob's tie ends: his entry stays, without a user, and he is no longer present.
        assertThat(b.presence().disassociate("bob", bob.getServerSession())).isTrue();
        await("Bob absent").atMost(WAIT).until(() -> !now(a.presence().isPresent("bob")));
        await("Bob's entry untied").atMost(WAIT).until(() -> now(a.presence().members(CHANNEL))
                .contains(new PresenceEntry(onB, null, b.nodeId())));
        await("Bob's user leave").atMost(WAIT).until(() -> seenOnB.contains(seam(null,
                new PresenceEntry(null, "bob", b.nodeId()), false)));

        // Node A dies as far as Redis can tell: Alice's subscription and her presence expire together.
        proxy.cut();
        await("Alice's entries expired").atMost(WAIT).until(() -> seenOnB.containsAll(List.of(
                seam(CHANNEL, aliceEntry, false),
                seam(null, new PresenceEntry(null, "alice", a.nodeId()), false))));
        assertThat(now(b.presence().userIds())).isEmpty();
        assertThat(now(b.presence().members(CHANNEL))).containsExactly(new PresenceEntry(onB, null, b.nodeId()));
    }
}
