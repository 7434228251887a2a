package org.bayeux.oort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.Message;
import org.bayeux.api.server.LocalSession;
import org.bayeux.server.cluster.Presence;
import org.bayeux.server.cluster.PresenceEntry;
import org.bayeux.server.cluster.PresenceEvent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The engine's presence seam on two real Oort nodes on loopback: channels' entries with users, users, events. */
class OortPresenceTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final String ROOM = "/chat/room/lobby";
    private final OortCluster cluster = new OortCluster();

    @AfterEach
    void close() throws Exception {
        cluster.close();
    }

    private OortTestNode addNode() throws Exception {
        OortTestNode node = new OortTestNode(0);
        List<String> seeds = cluster.nodes.stream().map(n -> n.url).toList();
        cluster.nodes.add(node);
        node.start(oort -> oort.seeds(seeds), oort -> oort.presence());
        return node;
    }

    private static void subscribe(LocalSession session, String channel) throws Exception {
        CompletableFuture<Message> reply = new CompletableFuture<>();
        session.getChannel(channel).subscribe((c, message) -> { }, (c, message) -> reply.complete(message));
        assertThat(reply.get(5, TimeUnit.SECONDS).isSuccessful()).isTrue();
    }

    private static <T> T now(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    @Test
    void entriesUsersAndEventsSpanTheNodes() throws Exception {
        OortTestNode a = addNode();
        OortTestNode b = addNode();
        cluster.awaitMesh();
        Presence onA = a.oort.engine().presence();
        Presence onB = b.oort.engine().presence();
        assertThat(onA).as("the engine answers with Oort's").isSameAs(a.oort.presence());
        assertThat(onA.nodeId()).isEqualTo(a.oort.id());
        List<PresenceEvent> seenOnA = new CopyOnWriteArrayList<>();
        onA.addListener(seenOnA::add);

        LocalSession alice = a.connected("alice");
        onA.associate("alice", alice.getServerSession());
        subscribe(alice, ROOM);
        LocalSession bob = b.connected("bob");
        subscribe(bob, ROOM);
        subscribe(bob, "/chat/room/*");
        onB.associate("bob", bob.getServerSession());

        PresenceEntry aliceEntry = new PresenceEntry(alice.getId(), "alice", a.oort.id());
        PresenceEntry bobEntry = new PresenceEntry(bob.getId(), "bob", b.oort.id());
        for (Presence presence : List.of(onA, onB)) {
            await().atMost(WAIT).until(() -> Set.copyOf(now(presence.members(ROOM)))
                    .equals(Set.of(aliceEntry, bobEntry)));
            assertThat(now(presence.userIds())).isEqualTo(Set.of("alice", "bob"));
            assertThat(now(presence.isPresent("bob"))).isTrue();
            assertThat(now(presence.members("/chat/room/*"))).as("wildcards are not tracked").isEmpty();
        }
        PresenceEvent bobHere = new PresenceEvent(null, new PresenceEntry(null, "bob", b.oort.id()), true);
        await().atMost(WAIT).until(() -> seenOnA.contains(bobHere));
        assertThat(seenOnA).contains(new PresenceEvent(null, new PresenceEntry(null, "alice", a.oort.id()), true),
                new PresenceEvent(ROOM, aliceEntry, true));
        assertThat(seenOnA).filteredOn(event -> ROOM.equals(event.channel()) && event.joined())
                .extracting(event -> event.entry().sessionId()).containsExactlyInAnyOrder(alice.getId(), bob.getId());

        // Bob's session ends on B: A sees his entry leave and him go.
        bob.disconnect();
        await().atMost(WAIT).until(() -> now(onA.members(ROOM)).equals(List.of(aliceEntry))
                && !now(onA.isPresent("bob")));
        await().atMost(WAIT).until(() -> seenOnA.containsAll(List.of(new PresenceEvent(ROOM, bobEntry, false),
                new PresenceEvent(null, new PresenceEntry(null, "bob", b.oort.id()), false))));
    }

    @Test
    void aLateJoinerGetsTheEntriesAndALeavingNodeTakesThemAway() throws Exception {
        OortTestNode a = addNode();
        LocalSession alice = a.connected("alice");
        a.oort.presence().associate("alice", alice.getServerSession());
        subscribe(alice, ROOM);
        OortTestNode b = addNode();
        cluster.awaitMesh();
        Presence onB = b.oort.presence();
        PresenceEntry aliceEntry = new PresenceEntry(alice.getId(), "alice", a.oort.id());
        await().atMost(WAIT).until(() -> now(onB.members(ROOM)).equals(List.of(aliceEntry)));
        List<PresenceEvent> seenOnB = new CopyOnWriteArrayList<>();
        onB.addListener(seenOnB::add);

        String aId = a.oort.id();
        a.close();
        cluster.nodes.remove(a);
        await().atMost(WAIT).until(() -> now(onB.members(ROOM)).isEmpty() && now(onB.userIds()).isEmpty());
        assertThat(seenOnB).contains(new PresenceEvent(ROOM, aliceEntry, false),
                new PresenceEvent(null, new PresenceEntry(null, "alice", aId), false));
    }

    @Test
    void setiStopsAndUnregisters() throws Exception {
        OortTestNode a = addNode();
        OortTestNode b = addNode();
        cluster.awaitMesh();
        Seti setiA = new Seti(a.oort);
        Seti setiB = new Seti(b.oort);
        setiB.associate("bob", b.connected("bob").getServerSession());
        await().atMost(WAIT).until(() -> setiA.isPresent("bob"));

        setiA.stop();
        assertThat(setiA.userIds()).as("the others' users dropped").isEmpty();
        setiB.associate("bea", b.connected("bea").getServerSession());
        assertThat(setiB.userIds()).containsExactlyInAnyOrder("bea", "bob");
        assertThat(a.oort.engine().getChannel(PeerMessaging.PREFIX + Seti.SERVICE).getMessageListeners())
                .as("its service channel closed").isEmpty();

        // Presence starts again with the next Seti, which asks B for its list.
        Seti again = new Seti(a.oort);
        await().atMost(WAIT).until(() -> again.userIds().equals(Set.of("bea", "bob")));
        assertThat(a.oort.presence()).isNotNull();
    }
}
