package org.bayeux.backplane.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.Message;
import org.bayeux.api.server.LocalSession;
import org.bayeux.server.BayeuxEngine;
import org.bayeux.server.cluster.PresenceEntry;
import org.bayeux.server.cluster.PresenceEvent;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The engine's presence seam on the backplane, two engines on a real redis-server: channels' entries carry their
 * sessions' users, users are present across nodes, and a dead node's users expire as its subscriptions do. Node A
 * reaches Redis through a {@link TcpProxy}, so that cutting it makes A a node that stopped refreshing.
 */
class PresenceSeamTest {
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

    private static <T> T now(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Test
    void entriesCarryUsersAndADeadNodesUsersExpire() throws Exception {
        RedisBackplane a = node("redis://127.0.0.1:" + proxy.port());
        RedisBackplane b = node(fixture.redis().uri());
        assertThat(engines.get(0).presence()).as("the engine answers with the backplane's").isSameAs(a.presence());
        List<PresenceEvent> seenOnB = new CopyOnWriteArrayList<>();
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
        PresenceEvent aliceHere = new PresenceEvent(null, new PresenceEntry(null, "alice", a.nodeId()), true);
        PresenceEvent bobHere = new PresenceEvent(null, new PresenceEntry(null, "bob", b.nodeId()), true);
        await("users' and channels' joins").atMost(WAIT).until(() -> seenOnB.containsAll(List.of(aliceHere,
                bobHere, new PresenceEvent(CHANNEL, aliceEntry, true))));
        assertThat(seenOnB).filteredOn(event -> CHANNEL.equals(event.channel()) && event.joined())
                .extracting(event -> event.entry().sessionId()).containsExactlyInAnyOrder(onA, onB);

        // Bob's tie ends: his entry stays, without a user, and he is no longer present.
        assertThat(b.presence().disassociate("bob", bob.getServerSession())).isTrue();
        await("Bob absent").atMost(WAIT).until(() -> !now(a.presence().isPresent("bob")));
        await("Bob's entry untied").atMost(WAIT).until(() -> now(a.presence().members(CHANNEL))
                .contains(new PresenceEntry(onB, null, b.nodeId())));
        await("Bob's user leave").atMost(WAIT).until(() -> seenOnB.contains(new PresenceEvent(null,
                new PresenceEntry(null, "bob", b.nodeId()), false)));

        // Node A dies as far as Redis can tell: Alice's subscription and her presence expire together.
        proxy.cut();
        await("Alice's entries expired").atMost(WAIT).until(() -> seenOnB.containsAll(List.of(
                new PresenceEvent(CHANNEL, aliceEntry, false),
                new PresenceEvent(null, new PresenceEntry(null, "alice", a.nodeId()), false))));
        assertThat(now(b.presence().userIds())).isEmpty();
        assertThat(now(b.presence().members(CHANNEL))).containsExactly(new PresenceEntry(onB, null, b.nodeId()));
    }
}
