package org.bayeux.oort.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Partitions between three node processes, each behind a {@link org.bayeux.testsupport.PausableProxy} of its own
 * that carries every link into it (heartbeat 300 ms, peer timeout 1.5 s): a two-way partition of all three and a
 * half-open node (links into it stalled, links out of it flowing) are left on both sides within the timeout plus
 * 2 s, and once the network heals all nodes agree again within 5 s, by themselves.
 */
class OortProcessPartitionTest {
    private static final Duration START = Duration.ofSeconds(30);
    private static final Duration TIMEOUT = Duration.ofMillis(1500);
    private static final Duration LEFT_WITHIN = TIMEOUT.plusSeconds(2);
    private static final Duration HEAL = Duration.ofSeconds(5);
    private final List<OortProcess> nodes = new ArrayList<>();
    @TempDir
    Path dir;

    @AfterEach
    void stopAll() {
        nodes.forEach(OortProcess::kill9);
    }

    private List<OortProcess> mesh() throws Exception {
        for (String name : List.of("A", "B", "C")) {
            String seeds = nodes.isEmpty() ? "" : nodes.get(0).url();
            nodes.add(OortProcess.startBehindProxy(name, ProcessNodes.args(dir, seeds, "--heartbeat-ms", "300",
                    "--timeout-ms", String.valueOf(TIMEOUT.toMillis()))));
        }
        await().atMost(START).until(() -> agree(nodes));
        return List.copyOf(nodes);
    }

    private static String now(OortProcess node) {
        List<String> incarnations = node.incarnations();
        return incarnations.get(incarnations.size() - 1);
    }

    /** The members a node's listeners were told of and not told left since. */
    private static Set<String> listened(OortProcess node) {
        Set<String> members = new HashSet<>();
        for (OortProcess.Event event : node.events()) {
            if (event.kind().equals("joined")) {
                members.add(event.id());
            } else {
                members.remove(event.id());
            }
        }
        return members;
    }

    /** Every node has the others' incarnations of now as members, and its listeners were told exactly that. */
    private static boolean agree(List<OortProcess> mesh) {
        for (OortProcess node : mesh) {
            Set<String> others = new HashSet<>();
            for (OortProcess other : mesh) {
                if (other != node) {
                    others.add(now(other));
                }
            }
            if (!new HashSet<>(node.members()).equals(others) || !listened(node).equals(others)) {
                return false;
            }
        }
        return true;
    }

    private static void eachIncarnationJoinedAndLeftAtMostOnce(List<OortProcess> mesh) {
        for (OortProcess node : mesh) {
            List<String> joined = node.events().stream().filter(e -> e.kind().equals("joined"))
                    .map(OortProcess.Event::id).toList();
            List<String> left = node.events().stream().filter(e -> e.kind().equals("left"))
                    .map(OortProcess.Event::id).toList();
            assertThat(joined).as(node + " joined").doesNotHaveDuplicates();
            assertThat(left).as(node + " left").doesNotHaveDuplicates();
            assertThat(joined).as(node + ": only what joined can leave").containsAll(left);
        }
    }

    @Test
    void aTwoWayPartitionIsLeftOnBothSidesAndHealsByItself() throws Exception {
        List<OortProcess> mesh = mesh();
        List<String> before = mesh.stream().map(OortProcessPartitionTest::now).toList();

        mesh.forEach(node -> node.proxy().pause());
        await().atMost(LEFT_WITHIN).until(() -> mesh.stream().allMatch(node -> listened(node).isEmpty()
                && node.members().isEmpty()));

        mesh.forEach(node -> node.proxy().resume());
        await().atMost(HEAL).until(() -> agree(mesh));

        eachIncarnationJoinedAndLeftAtMostOnce(mesh);
        for (int i = 0; i < mesh.size(); i++) {
            assertThat(now(mesh.get(i))).as(mesh.get(i) + " declared left by the others: a new incarnation")
                    .isNotEqualTo(before.get(i));
        }
    }

    @Test
    void aHalfOpenNodeIsLeftOnBothSidesAndRejoinsWhenItHeals() throws Exception {
        List<OortProcess> mesh = mesh();
        OortProcess a = mesh.get(0);
        OortProcess b = mesh.get(1);
        OortProcess c = mesh.get(2);

        // Every link into B stalls; B's links out keep going.
        b.proxy().pause();
        await().atMost(LEFT_WITHIN).until(() -> listened(a).equals(Set.of(now(c)))
                && listened(c).equals(Set.of(now(a))) && listened(b).isEmpty());
        assertThat(a.members()).containsExactly(now(c));
        assertThat(c.members()).containsExactly(now(a));
        assertThat(b.members()).isEmpty();

        b.proxy().resume();
        await().atMost(HEAL).until(() -> agree(mesh));

        eachIncarnationJoinedAndLeftAtMostOnce(mesh);
    }
}
