package org.bayeux.oort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

import org.bayeux.api.server.LocalSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Partitions between three real nodes on loopback, each behind a proxy of its own that carries every link into it:
 * both sides see each other leave within the timeout plus 2 s, and once the network heals all nodes agree on the
 * membership again within 5 s, as new incarnations of the nodes that were declared left.
 */
class OortPartitionTest {
    private static final Duration HEARTBEAT = Duration.ofMillis(200);
    private static final Duration TIMEOUT = Duration.ofSeconds(1);
    private static final Duration HEAL = Duration.ofSeconds(5);
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
    }

    private List<OortTestNode> mesh() throws Exception {
        return mesh(oort -> { });
    }

    /** Three nodes behind proxies, {@code beforeStart} given each node before it starts (Seti, objects). */
    private List<OortTestNode> mesh(Consumer<Oort> beforeStart) throws Exception {
        List<OortTestNode> nodes = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            OortTestNode node = OortTestNode.behindProxy();
            closeables.add(node);
            nodes.add(node);
        }
        String seed = nodes.get(0).url;
        for (OortTestNode node : nodes) {
            node.start(oort -> oort.seeds(List.of(seed)).heartbeatInterval(HEARTBEAT).peerTimeout(TIMEOUT),
                    beforeStart);
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> agree(nodes));
        return nodes;
    }

    /** Every node has the others' incarnations of now as members, and its listeners were told exactly that. */
    private static boolean agree(List<OortTestNode> nodes) {
        for (OortTestNode node : nodes) {
            Set<String> others = new HashSet<>();
            for (OortTestNode other : nodes) {
                if (other != node) {
                    others.add(other.oort.id());
                }
            }
            if (!node.memberIds().equals(others) || !node.listenedMembers().equals(others)) {
                return false;
            }
        }
        return true;
    }

    @Test
    void aTwoWayPartitionIsLeftOnBothSidesAndHealsByItself() throws Exception {
        List<OortTestNode> nodes = mesh();
        List<String> before = nodes.stream().map(node -> node.oort.id()).toList();

        nodes.forEach(node -> node.proxy.pause());
        await().atMost(TIMEOUT.plusSeconds(2)).until(() -> nodes.stream().allMatch(node -> node.left.size() == 2
                && node.memberIds().isEmpty()));

        nodes.forEach(node -> node.proxy.resume());
        await().atMost(HEAL).until(() -> agree(nodes));

        for (int i = 0; i < nodes.size(); i++) {
            OortTestNode node = nodes.get(i);
            // Each incarnation joined once and left at most once.
            assertThat(node.joined).extracting(member -> member.id()).doesNotHaveDuplicates();
            assertThat(node.left).extracting(member -> member.id()).doesNotHaveDuplicates();
            assertThat(node.left).extracting(member -> member.id()).doesNotContainAnyElementsOf(node.memberIds());
            assertThat(node.oort.id()).as("declared left by the others: a new incarnation").isNotEqualTo(before.get(i));
        }
    }

    @Test
    void aHalfOpenNodeIsLeftOnBothSidesAndRejoinsWhenItHeals() throws Exception {
        List<OortTestNode> nodes = mesh();
        OortTestNode a = nodes.get(0);
        OortTestNode b = nodes.get(1);
        OortTestNode c = nodes.get(2);
        String aId = a.oort.id();
        String cId = c.oort.id();

        // Every link into B stalls; B's links out keep going.
        b.proxy.pause();
        await().atMost(TIMEOUT.plusSeconds(2)).until(() -> a.left.size() == 1 && c.left.size() == 1
                && b.left.size() == 2);
        assertThat(a.memberIds()).containsExactly(cId);
        assertThat(c.memberIds()).containsExactly(aId);
        assertThat(b.memberIds()).isEmpty();

        b.proxy.resume();
        await().atMost(HEAL).until(() -> agree(nodes));

        for (OortTestNode node : nodes) {
            assertThat(node.joined).extracting(member -> member.id()).doesNotHaveDuplicates();
            assertThat(node.left).extracting(member -> member.id()).doesNotHaveDuplicates();
        }
    }

    @Test
    void aLinkWhoseAnswersStallIsLeftOnBothSidesAndRejoinsWhenItHeals() throws Exception {
        List<OortTestNode> nodes = mesh();
        OortTestNode a = nodes.get(0);
        OortTestNode b = nodes.get(1);
        OortTestNode c = nodes.get(2);
        String bId = b.oort.id();

        // Into B, requests still arrive but nothing B answers gets back: A's and C's links to B look alive to B.
        b.proxy.pauseServerToClient();
        await().atMost(TIMEOUT.plusSeconds(2)).until(() -> a.left.stream().anyMatch(m -> m.id().equals(bId))
                && c.left.stream().anyMatch(m -> m.id().equals(bId)) && b.left.size() == 2);
        assertThat(a.memberIds()).doesNotContain(bId);
        assertThat(c.memberIds()).doesNotContain(bId);

        b.proxy.resume();
        await().atMost(HEAL).until(() -> agree(nodes));

        for (OortTestNode node : nodes) {
            assertThat(node.joined).extracting(member -> member.id()).doesNotHaveDuplicates();
            assertThat(node.left).extracting(member -> member.id()).doesNotHaveDuplicates();
        }
    }

    @Test
    void setiAndMapsAgreeAgainAfterATwoWayPartitionWithChangesOnEverySide() throws Exception {
        List<Seti> setis = new ArrayList<>();
        List<OortMap<Object>> maps = new ArrayList<>();
        List<OortTestNode> nodes = mesh(oort -> {
            setis.add(new Seti(oort));
            maps.add(OortMap.create(oort, "partitioned"));
        });
        List<LocalSession> users = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            users.add(nodes.get(i).connected("user" + i));
            assertThat(setis.get(i).associate("user" + i, users.get(i).getServerSession())).isTrue();
            maps.get(i).put("node" + i, "before");
        }
        Set<String> everyone = Set.of("user0", "user1", "user2");
        await().atMost(HEAL).until(() -> setis.stream().allMatch(seti -> seti.userIds().equals(everyone))
                && maps.stream().allMatch(map -> map.getMerged().size() == 3));

        nodes.forEach(node -> node.proxy.pause());
        await().atMost(TIMEOUT.plusSeconds(2)).until(() -> nodes.stream().allMatch(node -> node.memberIds().isEmpty()));
        for (int i = 0; i < 3; i++) {
            int self = i;
            await().atMost(HEAL).until(() -> setis.get(self).userIds().equals(Set.of("user" + self)));
            // Changes on every side while apart: a user leaves A, one more arrives on C, every part changes.
            maps.get(i).put("node" + i, "during");
        }
        assertThat(setis.get(0).disassociate("user0", users.get(0).getServerSession())).isTrue();
        assertThat(setis.get(2).associate("late", nodes.get(2).connected("late").getServerSession())).isTrue();
        maps.get(1).put("only-b", "during");

        nodes.forEach(node -> node.proxy.resume());
        await().atMost(HEAL).until(() -> agree(nodes));
        Map<String, Object> merged = Map.of("node0", "during", "node1", "during", "node2", "during",
                "only-b", "during");
        await().atMost(HEAL).until(() -> maps.stream().allMatch(map -> map.getMerged().equals(merged)));
        Set<String> after = Set.of("user1", "user2", "late");
        await().atMost(HEAL).until(() -> setis.stream().allMatch(seti -> seti.userIds().equals(after)));
        Map<String, Integer> homes = Map.of("user1", 1, "user2", 2, "late", 2);
        for (int i = 0; i < 3; i++) {
            for (Map.Entry<String, Integer> home : homes.entrySet()) {
                if (home.getValue() != i) {
                    // At its node's incarnation of now, and nowhere else.
                    assertThat(setis.get(i).membersOf(home.getKey())).extracting(member -> member.id())
                            .as("%s seen from node %d", home.getKey(), i)
                            .containsExactly(nodes.get(home.getValue()).oort.id());
                }
            }
        }
    }
}
