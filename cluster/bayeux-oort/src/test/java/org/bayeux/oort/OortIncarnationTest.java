package org.bayeux.oort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A node restarted at the same URL between real nodes on loopback: the others hear {@code left} of the old
 * incarnation, then {@code joined} of the new one, once each, and nothing more.
 */
class OortIncarnationTest {
    private static final Duration HEARTBEAT = Duration.ofMillis(200);
    private static final Duration TIMEOUT = Duration.ofSeconds(1);
    private static final Duration WAIT = Duration.ofSeconds(20);
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
    }

    private <T extends AutoCloseable> T closing(T closeable) {
        closeables.add(closeable);
        return closeable;
    }

    private static OortTestNode start(OortTestNode node, String seed) throws Exception {
        return node.start(oort -> oort.seeds(seed == null ? List.of() : List.of(seed)).heartbeatInterval(HEARTBEAT)
                .peerTimeout(TIMEOUT));
    }

    @Test
    void aNodeStoppedAndStartedAtTheSameUrlLeavesOnceAndJoinsAsANewIncarnation() throws Exception {
        OortTestNode a = start(closing(new OortTestNode()), null);
        OortTestNode b1 = closing(new OortTestNode());
        start(b1, a.url);
        await().atMost(WAIT).until(() -> a.joined.size() == 1 && b1.joined.size() == 1);
        String oldB = b1.oort.id();

        b1.close();
        OortTestNode b2 = start(closing(new OortTestNode(b1.port)), a.url);
        assertThat(b2.url).isEqualTo(b1.url);

        await().atMost(WAIT).until(() -> a.events.size() == 3 && b2.joined.size() == 1);
        assertThat(a.events).containsExactly("joined " + oldB, "left " + oldB, "joined " + b2.oort.id());
        assertThat(b2.oort.id()).isNotEqualTo(oldB);
        // Nothing more: no second leave when anything of the old incarnation ends or times out.
        await().during(TIMEOUT.multipliedBy(3)).atMost(TIMEOUT.multipliedBy(5)).until(() -> a.events.size() == 3
                && b2.events.size() == 1);
        assertThat(b2.events).containsExactly("joined " + a.oort.id());
        assertThat(a.oort.stats().incarnations()).isZero();
        assertThat(a.memberIds()).containsExactly(b2.oort.id());
    }

    @Test
    void aNodeThatCrashesAndRestartsAtTheSameUrlLeavesOnceAndJoinsAsANewIncarnation() throws Exception {
        OortTestNode a = start(closing(OortTestNode.behindProxy()), null);
        OortTestNode b1 = closing(OortTestNode.behindProxy());
        start(b1, a.url);
        await().atMost(WAIT).until(() -> a.joined.size() == 1 && b1.joined.size() == 1);
        String oldB = b1.oort.id();

        // A crash, as A sees it: nothing of B's goodbye gets through, then a new process answers at B's URL.
        a.proxy.pause();
        b1.proxy.pause();
        b1.stopKeepingProxy();
        OortTestNode b2 = start(closing(new OortTestNode(b1.port, b1.proxy, true)), a.url);
        a.proxy.resume();
        b1.proxy.resume();

        await().atMost(WAIT).until(() -> a.events.size() == 3 && b2.joined.size() == 1);
        assertThat(a.events).containsExactly("joined " + oldB, "left " + oldB, "joined " + b2.oort.id());
        await().during(TIMEOUT.multipliedBy(3)).atMost(TIMEOUT.multipliedBy(5)).until(() -> a.events.size() == 3
                && b2.events.size() == 1);
        assertThat(b2.events).containsExactly("joined " + a.oort.id());
        assertThat(a.oort.stats().incarnations()).isZero();
        assertThat(a.memberIds()).containsExactly(b2.oort.id());
        assertThat(b2.memberIds()).containsExactly(a.oort.id());
    }
}
