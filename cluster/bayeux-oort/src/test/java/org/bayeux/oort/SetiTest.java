package org.bayeux.oort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.bayeux.api.server.LocalSession;
import org.bayeux.server.cluster.ClusterMember;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Seti on real nodes on loopback: users reached across nodes, presence across the cluster, joins and leaves. */
class SetiTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private final OortCluster cluster = new OortCluster();

    @AfterEach
    void close() throws Exception {
        cluster.close();
    }

    /** Presence events as "present alice@<node id>" or "absent alice@<node id>". */
    private static List<String> record(Seti seti) {
        List<String> events = new CopyOnWriteArrayList<>();
        seti.addPresenceListener(new Seti.PresenceListener() {
            @Override
            public void present(String userId, ClusterMember member, boolean local) {
                events.add("present " + userId + "@" + member.id());
            }

            @Override
            public void absent(String userId, ClusterMember member, boolean local) {
                events.add("absent " + userId + "@" + member.id());
            }
        });
        return events;
    }

    /** Adds a node with Seti created before it starts, as applications should. */
    private Seti addNode() throws Exception {
        return addNode(0);
    }

    /** As {@link #addNode()}, on a given port (0: any free one). */
    private Seti addNode(int port) throws Exception {
        OortTestNode node = new OortTestNode(port);
        List<String> seeds = cluster.nodes.stream().map(n -> n.url).toList();
        cluster.nodes.add(node);
        AtomicReference<Seti> seti = new AtomicReference<>();
        node.start(oort -> oort.seeds(seeds), oort -> seti.set(new Seti(oort)));
        return seti.get();
    }

    @Test
    void aUserOnNodeBIsReachedFromNodeAAndPresenceIsSeenEverywhere() throws Exception {
        Seti setiA = addNode();
        Seti setiB = addNode();
        cluster.awaitMesh();
        OortTestNode a = cluster.get(0);
        OortTestNode b = cluster.get(1);
        List<String> eventsOnA = record(setiA);

        LocalSession alice = b.connected("alice");
        List<Object> inbox = new CopyOnWriteArrayList<>();
        alice.getChannel("/user/inbox").addListener((channel, message) -> inbox.add(message.getData()));
        assertThat(setiB.associate("alice", alice.getServerSession())).isTrue();
        assertThat(setiB.associate("alice", alice.getServerSession())).as("once").isFalse();

        await().atMost(WAIT).until(() -> setiA.isPresent("alice"));
        assertThat(eventsOnA).containsExactly("present alice@" + b.oort.id());
        assertThat(setiA.userIds()).containsExactly("alice");
        assertThat(setiA.localUserIds()).isEmpty();

        assertThat(setiA.sendToUser("alice", "/user/inbox", "hello from A")).isTrue();
        await().atMost(WAIT).until(() -> inbox.contains("hello from A"));
        assertThat(setiA.sendToUser("bob", "/user/inbox", "nobody")).isFalse();

        // The session goes: alice is absent on both nodes.
        alice.disconnect();
        await().atMost(WAIT).until(() -> !setiA.isPresent("alice"));
        assertThat(setiB.isPresent("alice")).isFalse();
        assertThat(eventsOnA).containsExactly("present alice@" + b.oort.id(), "absent alice@" + b.oort.id());
        assertThat(a.oort.id()).isNotEqualTo(b.oort.id());
    }

    @Test
    void aLostPresenceChangeIsFoundByTheNextOneAndTheWholeListPulled() throws Exception {
        Seti setiA = addNode();
        Seti setiB = addNode();
        cluster.awaitMesh();
        OortTestNode a = cluster.get(0);
        await().atMost(WAIT).until(() -> setiB.hasListOf(a.oort.id()));
        AtomicInteger dropped = new AtomicInteger();
        cluster.get(1).oort.messaging().dropIncoming = (service, data) -> "present".equals(data.get("type"))
                && "alice".equals(data.get("userId")) && dropped.incrementAndGet() == 1;
        setiA.associate("alice", a.connected("alice").getServerSession());
        setiA.associate("bob", a.connected("bob").getServerSession());
        await().atMost(WAIT).until(() -> setiB.userIds().equals(Set.of("alice", "bob")));
        assertThat(dropped.get()).isEqualTo(1);
        assertThat(setiB.gaps()).isEqualTo(1);
        assertThat(setiB.pulls()).isEqualTo(1);
        assertThat(setiA.gaps()).isZero();
    }

    @Test
    void aLateJoinerGetsThePresenceOfEveryNode() throws Exception {
        Seti setiA = addNode();
        Seti setiB = addNode();
        cluster.awaitMesh();
        setiA.associate("alice", cluster.get(0).connected("alice").getServerSession());
        setiB.associate("bob", cluster.get(1).connected("bob").getServerSession());
        setiB.associate("carol", cluster.get(1).connected("carol").getServerSession());

        Seti setiC = addNode();
        List<String> eventsOnC = record(setiC);
        cluster.awaitMesh();
        await().atMost(WAIT).until(() -> setiC.userIds().equals(Set.of("alice", "bob", "carol")));
        assertThat(eventsOnC).containsExactlyInAnyOrder("present alice@" + cluster.get(0).oort.id(),
                "present bob@" + cluster.get(1).oort.id(), "present carol@" + cluster.get(1).oort.id());
        assertThat(setiC.membersOf("bob")).extracting(ClusterMember::id).containsExactly(cluster.get(1).oort.id());
    }

    @Test
    void setiCreatedAfterTheNodeStartedStillGetsTheLists() throws Exception {
        Seti setiA = addNode();
        setiA.associate("alice", cluster.get(0).connected("alice").getServerSession());
        OortTestNode b = cluster.add();
        cluster.awaitMesh();
        Seti setiB = new Seti(b.oort);
        await().atMost(WAIT).until(() -> setiB.userIds().equals(Set.of("alice")));
    }

    @Test
    void aRestartedNodesListReplacesWhatItsOldIncarnationHad() throws Exception {
        Seti setiA = addNode();
        Seti setiB = addNode();
        cluster.awaitMesh();
        OortTestNode b = cluster.get(1);
        setiB.associate("bob", b.connected("bob").getServerSession());
        setiB.associate("bea", b.connected("bea").getServerSession());
        await().atMost(WAIT).until(() -> setiA.userIds().equals(Set.of("bea", "bob")));
        List<String> eventsOnA = record(setiA);
        // A never hears B's "absent" on its way out: only B's departure and its new list can correct A.
        cluster.get(0).oort.messaging().dropIncoming = (service, data) -> "absent".equals(data.get("type"));
        String old = b.oort.id();
        b.close();
        cluster.nodes.remove(b);

        Seti restarted = addNode(b.port);
        OortTestNode newB = cluster.get(1);
        assertThat(newB.url).isEqualTo(b.url);
        cluster.awaitMesh();
        restarted.associate("bob", newB.connected("bob").getServerSession());
        await().atMost(WAIT).until(() -> setiA.userIds().equals(Set.of("bob"))
                && setiA.membersOf("bob").size() == 1
                && setiA.membersOf("bob").get(0).id().equals(newB.oort.id()));
        assertThat(eventsOnA).containsExactlyInAnyOrder("absent bob@" + old, "absent bea@" + old,
                "present bob@" + newB.oort.id());
    }

    @Test
    void aNodeThatLeavesTakesItsUsersAwayOnTheOthers() throws Exception {
        Seti setiA = addNode();
        Seti setiB = addNode();
        Seti setiC = addNode();
        cluster.awaitMesh();
        List<String> eventsOnA = record(setiA);
        setiB.associate("bob", cluster.get(1).connected("bob").getServerSession());
        setiC.associate("carol", cluster.get(2).connected("carol").getServerSession());
        await().atMost(WAIT).until(() -> setiA.userIds().equals(Set.of("bob", "carol")));

        // Stopping B ends its sessions, and B may still say "absent" on its way out: A and C drop that, so that
        // what removes bob is B's departure.
        cluster.get(0).oort.messaging().dropIncoming = (service, data) -> "absent".equals(data.get("type"));
        cluster.get(2).oort.messaging().dropIncoming = (service, data) -> "absent".equals(data.get("type"));
        String bId = cluster.get(1).oort.id();
        cluster.get(1).close();
        await().atMost(WAIT).until(() -> setiA.userIds().equals(Set.of("carol"))
                && setiC.userIds().equals(Set.of("carol")));
        assertThat(eventsOnA).containsExactlyInAnyOrder("present bob@" + bId,
                "present carol@" + cluster.get(2).oort.id(), "absent bob@" + bId);
        assertThat(setiB.localUserIds()).as("B's sessions ended with its engine").isEmpty();
    }
}
