package org.bayeux.oort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import org.bayeux.api.server.LocalSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A link that flaps (its connections cut and restored well within the peer timeout) while one node publishes: the
 * link resends what its peer had not acknowledged, the peer drops what it already had, and every other node's
 * subscriber gets every message once, in order.
 */
class OortResendTest {
    private static final int MESSAGES = 10_000;
    private static final int FLAPS = 9;
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
    }

    /** Diagnostics: if B gets nothing new for 4 s before it has everything, every thread's stack, once. */
    private static void stallDump(List<Object> onB) {
        int seen = -1;
        long since = System.nanoTime();
        try {
            while (onB.size() < MESSAGES) {
                Thread.sleep(250);
                if (onB.size() != seen) {
                    seen = onB.size();
                    since = System.nanoTime();
                } else if (System.nanoTime() - since > java.util.concurrent.TimeUnit.SECONDS.toNanos(4)) {
                    StringBuilder dump = new StringBuilder("STALL at " + seen + "\n");
                    Thread.getAllStackTraces().forEach((thread, stack) -> {
                        dump.append(thread.getName()).append(' ').append(thread.getState()).append('\n');
                        for (StackTraceElement frame : stack) {
                            dump.append("    ").append(frame).append('\n');
                        }
                    });
                    System.out.println(dump);
                    return;
                }
            }
        } catch (InterruptedException done) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void aLinkFlappingDuringTenThousandMessagesLosesAndDuplicatesNone() throws Exception {
        OortTestNode a = OortTestNode.behindProxy();
        closeables.add(a);
        OortTestNode b = OortTestNode.behindProxy();
        closeables.add(b);
        OortTestNode c = new OortTestNode();
        closeables.add(c);
        for (OortTestNode node : List.of(a, b, c)) {
            node.start(oort -> oort.seeds(List.of(a.url)).heartbeatInterval(Duration.ofMillis(500))
                    .peerTimeout(Duration.ofSeconds(10)));
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> a.joined.size() == 2 && b.joined.size() == 2
                && c.joined.size() == 2);
        List<Object> onB = b.subscribe("/chat/flood");
        List<Object> onC = c.subscribe("/chat/flood");
        LocalSession publisher = a.connected("publisher");
        AtomicInteger published = new AtomicInteger();
        Thread watchdog = new Thread(() -> stallDump(onB), "stall-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();

        int chunk = MESSAGES / (FLAPS + 1);
        for (int n = 0; n < MESSAGES; n++) {
            publisher.getChannel("/chat/flood").publish(n, (channel, reply) -> {
                if (reply.isSuccessful()) {
                    published.incrementAndGet();
                }
            });
            if (n % chunk == chunk - 1 && n < MESSAGES - 1) {
                // Cut every connection into B (A's and C's links to it) with A's forwards in flight.
                b.proxy.dropConnections();
                int delivered = n + 1;
                // Go on once B has more than half of the chunk that was in flight: the link is back.
                try {
                    await().atMost(Duration.ofSeconds(30)).until(() -> onB.size() >= delivered - chunk / 2);
                } catch (org.awaitility.core.ConditionTimeoutException e) {
                    throw new AssertionError("B has " + onB.size() + " after flap at " + delivered + "; A "
                            + a.oort.stats() + " links " + a.oort.links() + "; B " + b.oort.stats(), e);
                }
            }
        }

        await().atMost(Duration.ofSeconds(60)).until(() -> onB.size() >= MESSAGES && onC.size() >= MESSAGES);
        List<Integer> expected = IntStream.range(0, MESSAGES).boxed().toList();
        assertThat(onB).extracting(data -> ((Number) data).intValue()).isEqualTo(expected);
        assertThat(onC).extracting(data -> ((Number) data).intValue()).isEqualTo(expected);
        assertThat(published.get()).isEqualTo(MESSAGES);
        OortStats sender = a.oort.stats();
        OortStats flapped = b.oort.stats();
        assertThat(sender.resent()).as("the flaps made A resend").isPositive();
        assertThat(flapped.received()).isEqualTo(MESSAGES);
        assertThat(flapped.gaps()).isZero();
        assertThat(c.oort.stats().received()).isEqualTo(MESSAGES);
        assertThat(c.oort.stats().duplicates() + c.oort.stats().gaps()).isZero();
        assertThat(sender.forwardFailures()).isZero();
        for (OortTestNode node : List.of(a, b, c)) {
            assertThat(node.left).as("a flap within the peer timeout is not a leave").isEmpty();
            assertThat(node.oort.stats().incarnations()).isZero();
        }
        // Once all is acknowledged, nothing stays held.
        await().atMost(Duration.ofSeconds(10)).until(() -> a.oort.links().stream().allMatch(link -> link.queued() == 0));
        watchdog.interrupt();
        System.out.println("A " + sender + "\nB " + flapped + "\nlinks of A " + a.oort.links());
    }

    @Test
    void pastTheQueueBoundForwardsAreNotQueuedAndThePeerCountsThemAsAGapInOrder() throws Exception {
        OortTestNode a = new OortTestNode();
        closeables.add(a);
        OortTestNode b = OortTestNode.behindProxy();
        closeables.add(b);
        for (OortTestNode node : List.of(a, b)) {
            node.start(oort -> oort.seeds(List.of(a.url)).heartbeatInterval(Duration.ofMillis(500))
                    .peerTimeout(Duration.ofSeconds(10)).maxQueue(100));
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> a.joined.size() == 1 && b.joined.size() == 1);
        List<Object> onB = b.subscribe("/chat/bound");
        LocalSession publisher = a.connected("publisher");

        // The link into B stalls: nothing is acknowledged, so the link holds 100 forwards and takes no more.
        b.proxy.pause();
        for (int n = 0; n < 300; n++) {
            publisher.getChannel("/chat/bound").publish(n, null);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> a.oort.stats().forwarded() == 300);
        assertThat(a.oort.stats().forwardFailures()).isEqualTo(200);
        assertThat(a.oort.links()).singleElement().satisfies(link -> assertThat(link.queued()).isEqualTo(100));
        b.proxy.resume();
        await().atMost(Duration.ofSeconds(20)).until(() -> a.oort.links().get(0).queued() == 0);
        publisher.getChannel("/chat/bound").publish(300, null);

        try {
            await().atMost(Duration.ofSeconds(20)).until(() -> onB.size() >= 101);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("B has " + onB + "; A " + a.oort.stats() + " links " + a.oort.links() + "; B "
                    + b.oort.stats(), e);
        }
        List<Integer> expected = new ArrayList<>(IntStream.range(0, 100).boxed().toList());
        expected.add(300);
        assertThat(onB).extracting(data -> ((Number) data).intValue()).isEqualTo(expected);
        assertThat(b.oort.stats().gaps()).as("the 200 never queued for B").isEqualTo(200);
        assertThat(a.left).isEmpty();
        assertThat(b.left).isEmpty();
    }
}
