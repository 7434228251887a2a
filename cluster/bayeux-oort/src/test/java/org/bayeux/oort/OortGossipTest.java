package org.bayeux.oort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import org.bayeux.server.cluster.ClusterMember;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Membership gossip between real nodes on loopback: a full mesh from one seed. */
class OortGossipTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
    }

    private OortTestNode node() throws Exception {
        OortTestNode node = new OortTestNode();
        closeables.add(node);
        return node;
    }

    private static Set<String> memberIds(OortTestNode node) {
        return node.oort.members().stream().map(ClusterMember::id).collect(Collectors.toSet());
    }

    @Test
    void threeNodesSeededOnlyWithTheFirstFormAFullMesh() throws Exception {
        OortTestNode a = node();
        OortTestNode b = node();
        OortTestNode c = node();
        a.start(oort -> oort.heartbeatInterval(Duration.ofMillis(300)));
        b.start(oort -> oort.seeds(List.of(a.url)).heartbeatInterval(Duration.ofMillis(300)));
        c.start(oort -> oort.seeds(List.of(a.url)).heartbeatInterval(Duration.ofMillis(300)));

        await().atMost(WAIT).until(() -> a.joined.size() == 2 && b.joined.size() == 2 && c.joined.size() == 2);
        assertThat(memberIds(a)).containsExactlyInAnyOrder(b.oort.id(), c.oort.id());
        assertThat(memberIds(b)).containsExactlyInAnyOrder(a.oort.id(), c.oort.id());
        assertThat(memberIds(c)).containsExactlyInAnyOrder(a.oort.id(), b.oort.id());
        // Each joined once, nobody left; B and C found each other through A's list.
        for (OortTestNode node : List.of(a, b, c)) {
            assertThat(node.left).isEmpty();
            assertThat(node.joined).hasSize(2);
            assertThat(node.oort.stats().joins()).isEqualTo(2);
        }
        await().atMost(WAIT).until(() -> b.oort.links().stream().allMatch(link -> link.gossiped() == 2));
        assertThat(b.oort.links()).extracting(LinkSnapshot::url).containsExactlyInAnyOrder(a.url, c.url);
        assertThat(b.oort.links()).allSatisfy(link -> {
            assertThat(link.linkState()).isEqualTo("CONNECTED");
            assertThat(link.memberId()).isNotNull();
            assertThat(link.inboundId()).isEqualTo(link.memberId());
            assertThat(link.roundTrip()).as("measured from heartbeats").isNotNull().isPositive();
            assertThat(link.sinceHeard()).isLessThan(Duration.ofSeconds(10));
        });
    }
}
