package org.bayeux.oort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.bayeux.api.Message;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 31, item 1: the rules a node keeps on a peer's forwards even when they are signed with the link's key (a
 * broken or compromised node): a chain starts once per join, numbers do not jump past what a link can skip, and a
 * message is delivered only on the channel its forward was checked for. Against a real node, with a {@link FakePeer}.
 */
class OortForwardRulesTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
    }

    private OortTestNode started(List<String> channels) throws Exception {
        OortTestNode node = new OortTestNode();
        closeables.add(node);
        node.start(oort -> oort.channels(channels));
        return node;
    }

    private FakePeer fake(OortTestNode node) throws Exception {
        FakePeer fake = new FakePeer(node.url);
        closeables.add(fake);
        return fake;
    }

    private static void assertTaken(Message reply) {
        assertThat(reply.isSuccessful()).as(String.valueOf(reply)).isTrue();
    }

    private static void assertRefused(Message reply) {
        assertThat(reply.isSuccessful()).as(String.valueOf(reply)).isFalse();
        assertThat(reply.getError()).isEqualTo(PeerReplies.REFUSED_ERROR);
    }

    @Test
    void aSecondChainStartOrAFarJumpIsRefusedAndTheChainGoesOn() throws Exception {
        OortTestNode b = started(List.of("/**"));
        List<Object> onB = b.subscribe("/chat/room");
        FakePeer peer = fake(b);

        assertTaken(peer.forward(b.oort.id(), 5, 0, "/chat/room", "/chat/room", "one"));
        // Near 2^53 with prev 0: taken, it would make every later forward of the origin a "duplicate".
        assertRefused(peer.forward(b.oort.id(), (1L << 53) - 10, 0, "/chat/room", "/chat/room", "top"));
        assertRefused(peer.forward(b.oort.id(), 6 + (1L << 40), 5, "/chat/room", "/chat/room", "jump"));
        assertTaken(peer.forward(b.oort.id(), 6, 5, "/chat/room", "/chat/room", "two"));

        await().atMost(WAIT).until(() -> onB.contains("two"));
        assertThat(onB).containsExactly("one", "two");
        assertThat(b.oort.stats().refusedForwards()).isEqualTo(2);
        assertThat(b.oort.stats().duplicates()).isZero();
    }

    @Test
    void aForwardWhoseMessageIsOnAnotherChannelThanTheOneCheckedIsRefused() throws Exception {
        OortTestNode b = started(List.of("/chat/**"));
        List<Object> onChat = b.subscribe("/chat/room");
        List<Object> onPrivate = b.subscribe("/private/room");
        FakePeer peer = fake(b);

        // /chat/room is observed here, /private/room is not: the check must hold for the channel delivered on.
        assertRefused(peer.forward(b.oort.id(), 1, 0, "/chat/room", "/private/room", "smuggled"));
        assertTaken(peer.forward(b.oort.id(), 1, 0, "/chat/room", "/chat/room", "fair"));

        // A chain for another incarnation of this node is stale: dropped, answered as taken.
        assertTaken(peer.forward("an-earlier-incarnation", 2, 1, "/chat/room", "/chat/room", "stale"));

        await().atMost(WAIT).until(() -> onChat.contains("fair"));
        assertThat(onChat).containsExactly("fair");
        assertThat(onPrivate).isEmpty();
        assertThat(b.oort.stats().refusedForwards()).isEqualTo(1);
        assertThat(b.oort.stats().stale()).isEqualTo(1);
    }
}
