package org.bayeux.oort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.Message;
import org.bayeux.testsupport.PausableProxy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Heartbeats with a short timeout between real nodes on loopback, B reached by A through a proxy that can pause: a
 * healthy mesh stays joined, a silent link makes both sides see the other leave within the timeout plus 2 s, and
 * the nodes find each other again once the network does.
 */
class OortLivenessTest {
    private static final Duration HEARTBEAT = Duration.ofMillis(200);
    private static final Duration TIMEOUT = Duration.ofSeconds(1);
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
    }

    @Test
    void aSilentPeerLeavesOnBothSidesWithinTheTimeoutAndRejoinsWhenTheNetworkHeals() throws Exception {
        OortTestNode a = new OortTestNode();
        closeables.add(a);
        OortTestNode b = new OortTestNode();
        closeables.add(b);
        PausableProxy proxy = new PausableProxy(b.port);
        closeables.add(proxy);
        String bThroughProxy = "http://127.0.0.1:" + proxy.port() + "/bayeux";
        b.start(oort -> oort.url(bThroughProxy).heartbeatInterval(HEARTBEAT).peerTimeout(TIMEOUT));
        a.start(oort -> oort.seeds(List.of(bThroughProxy)).heartbeatInterval(HEARTBEAT).peerTimeout(TIMEOUT));
        await().atMost(Duration.ofSeconds(10)).until(() -> a.joined.size() == 1 && b.joined.size() == 1);

        // Heartbeats keep an idle mesh joined for several timeouts.
        await().during(TIMEOUT.multipliedBy(3)).atMost(TIMEOUT.multipliedBy(4))
                .until(() -> a.left.isEmpty() && b.left.isEmpty());

        String aId = a.oort.id();
        String bId = b.oort.id();
        proxy.pause();
        await().atMost(TIMEOUT.plusSeconds(2)).until(() -> a.left.size() == 1 && b.left.size() == 1);
        assertThat(a.left.get(0).id()).isEqualTo(bId);
        assertThat(b.left.get(0).id()).isEqualTo(aId);
        assertThat(a.oort.members()).isEmpty();
        assertThat(b.oort.members()).isEmpty();

        proxy.resume();
        await().atMost(Duration.ofSeconds(15)).until(() -> a.oort.members().size() == 1
                && b.oort.members().size() == 1);
        List<Object> onB = b.subscribe("/chat/room");
        CompletableFuture<Message> reply = new CompletableFuture<>();
        a.connected("speaker").getChannel("/chat/room").publish("after the heal",
                (c, message) -> reply.complete(message));
        assertThat(reply.get(5, TimeUnit.SECONDS).isSuccessful()).isTrue();
        await().atMost(Duration.ofSeconds(5)).until(() -> onB.contains("after the heal"));
        assertThat(a.left).as("left once").hasSize(1);
        assertThat(b.left).as("left once").hasSize(1);
        // Each came back as a new incarnation: the other declared the old one left.
        assertThat(a.oort.members()).extracting(member -> member.id()).containsExactly(b.oort.id())
                .doesNotContain(bId);
        assertThat(b.oort.members()).extracting(member -> member.id()).containsExactly(a.oort.id())
                .doesNotContain(aId);
    }
}
