package org.bayeux.oort.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Three node processes on loopback form a full mesh from one seed: B and C know only A, and learn of each other. */
class OortProcessMeshTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private final List<OortProcess> nodes = new ArrayList<>();
    @TempDir
    Path dir;

    @AfterEach
    void stopAll() {
        nodes.forEach(OortProcess::kill9);
    }

    private OortProcess node(String name, String seeds) throws Exception {
        OortProcess node = OortProcess.start(name, ProcessNodes.args(dir, seeds));
        nodes.add(node);
        return node;
    }

    @Test
    void threeNodesSeededWithOneFormAFullMesh() throws Exception {
        OortProcess a = node("A", "");
        OortProcess b = node("B", a.url());
        OortProcess c = node("C", a.url());

        for (OortProcess node : List.of(a, b, c)) {
            for (OortProcess other : List.of(a, b, c)) {
                if (other != node) {
                    OortProcess.Event joined = node.await("joined", other.id(), WAIT);
                    assertThat(joined.url()).isEqualTo(other.url());
                }
            }
        }
        for (OortProcess node : List.of(a, b, c)) {
            assertThat(node.members()).as(node + " members").containsExactlyInAnyOrderElementsOf(
                    nodes.stream().filter(other -> other != node).map(OortProcess::id).toList());
            assertThat(node.eventLines()).as(node + " events: each peer joined once, none left").hasSize(2)
                    .allMatch(line -> line.startsWith("joined "));
            assertThat(node.stats()).containsEntry("refusedJoins", 0L).containsEntry("incarnations", 0L);
            assertThat(node.incarnations()).hasSize(1);
        }
    }
}
