package org.bayeux.oort.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Liveness between node processes on loopback (heartbeat {@value ProcessNodes#HEARTBEAT_MS} ms, peer timeout
 * {@value ProcessNodes#TIMEOUT_MS} ms): a node killed with SIGKILL sends no goodbye, yet the others see it leave
 * within the timeout plus 2 s; a node restarted at the same URL is a new incarnation, seen as {@code left(old)}
 * then {@code joined(new)}, and the new one is never reported gone.
 */
class OortProcessLivenessTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    /** The bound: the peer timeout plus 2 s. */
    private static final long LEFT_WITHIN_MS = ProcessNodes.TIMEOUT_MS + 2000;
    private final List<OortProcess> nodes = new ArrayList<>();
    @TempDir
    Path dir;

    @AfterEach
    void stopAll() {
        nodes.forEach(OortProcess::kill9);
    }

    private OortProcess node(String name, String seeds, String... more) throws Exception {
        OortProcess node = OortProcess.start(name, ProcessNodes.args(dir, seeds, more));
        nodes.add(node);
        return node;
    }

    private static void awaitMesh(List<OortProcess> mesh) {
        for (OortProcess node : mesh) {
            for (OortProcess other : mesh) {
                if (other != node) {
                    node.await("joined", other.id(), WAIT);
                }
            }
        }
    }

    @Test
    void aKilledNodeIsLeftOnTheOthersWithinTheTimeoutPlusTwoSeconds() throws Exception {
        OortProcess a = node("A", "");
        OortProcess b = node("B", a.url());
        OortProcess c = node("C", a.url() + "," + b.url());
        awaitMesh(List.of(a, b, c));

        long killed = System.nanoTime();
        c.kill9();

        for (OortProcess survivor : List.of(a, b)) {
            OortProcess.Event left = survivor.await("left", c.id(), WAIT);
            long afterMs = TimeUnit.NANOSECONDS.toMillis(left.nanoTime() - killed);
            assertThat(afterMs).as(survivor + " saw C leave " + afterMs + " ms after kill -9").isLessThanOrEqualTo(
                    LEFT_WITHIN_MS);
            assertThat(left.url()).isEqualTo(c.url());
        }
        OortProcess.Event lastLeft = a.await("left", c.id(), WAIT);
        for (OortProcess survivor : List.of(a, b)) {
            OortProcess other = survivor == a ? b : a;
            assertThat(survivor.members()).as(survivor + " members").containsExactly(other.id());
            assertThat(survivor.eventLines()).as(survivor + " events")
                    .containsExactlyInAnyOrder("joined " + other.id(), "joined " + c.id(), "left " + c.id());
            assertThat(survivor.eventLines().get(2)).isEqualTo("left " + c.id());
            assertThat(survivor.incarnations()).as(survivor + " kept its incarnation").hasSize(1);
        }
        assertThat(lastLeft).isNotNull();
    }

    @Test
    void aNodeRestartedAtTheSameUrlIsLeftThenJoinedAndTheNewIncarnationStays() throws Exception {
        OortProcess a = node("A", "");
        OortProcess b = node("B", a.url());
        awaitMesh(List.of(a, b));
        String old = b.id();
        String url = b.url();

        b.kill9();
        OortProcess restarted = node("B2", a.url(), "--port", String.valueOf(b.port()));

        assertThat(restarted.url()).isEqualTo(url);
        assertThat(restarted.id()).isNotEqualTo(old);
        a.await("joined", restarted.id(), WAIT);
        restarted.await("joined", a.id(), WAIT);
        assertThat(a.eventLines()).containsExactly("joined " + old, "left " + old, "joined " + restarted.id());
        assertThat(a.events().get(1).url()).isEqualTo(url);
        assertThat(a.events().get(2).url()).isEqualTo(url);

        // No spurious leave of the new incarnation: for twice the peer timeout after it joined, nothing else happens.
        Duration quiet = Duration.ofMillis(2 * ProcessNodes.TIMEOUT_MS);
        await().during(quiet).atMost(quiet.plus(WAIT)).pollInterval(Duration.ofMillis(200))
                .until(() -> a.events().size() == 3 && restarted.events().size() == 1);
        assertThat(a.members()).containsExactly(restarted.id());
        assertThat(restarted.members()).containsExactly(a.id());
        assertThat(restarted.eventLines()).containsExactly("joined " + a.id());
        assertThat(a.incarnations()).hasSize(1);
        assertThat(restarted.incarnations()).hasSize(1);
    }
}
