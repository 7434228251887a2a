package org.bayeux.oort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 31, item 1: a gossiping peer (one that holds the secret: a compromised or broken node) cannot make a node
 * dial any number of URLs. Against a real node, with a {@link FakePeer} whose heartbeats list URLs of loopback ports
 * that nothing listens on.
 */
class OortGossipLimitsTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
    }

    private OortTestNode started(java.util.function.Consumer<Oort.Builder> settings) throws Exception {
        OortTestNode node = new OortTestNode();
        closeables.add(node);
        node.start(settings);
        return node;
    }

    private FakePeer fake(OortTestNode node) throws Exception {
        FakePeer fake = new FakePeer(node.url);
        closeables.add(fake);
        return fake;
    }

    /** @return URLs of loopback ports that were free a moment ago: dialling them is refused at once */
    private static List<String> deadUrls(String host, int count) throws Exception {
        List<String> urls = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            try (ServerSocket closed = new ServerSocket(0)) {
                urls.add("http://" + host + ":" + closed.getLocalPort() + "/bayeux");
            }
        }
        return urls;
    }

    @Test
    void aLongGossipedListIsDialledOnlyUpToTheCap() throws Exception {
        OortTestNode b = started(oort -> oort.maxKnownUrls(10));
        FakePeer peer = fake(b);
        List<String> gossiped = deadUrls("127.0.0.1", 50);

        // The heartbeat is answered once the node dialled what it would dial of the list.
        peer.heartbeat(gossiped);
        assertThat(b.oort.stats().urlsRefused()).isPositive();
        assertThat(b.oort.links()).as("the fake's own URL and 9 of the list").hasSize(10);
        assertThat(b.oort.links()).extracting(LinkSnapshot::url).contains(peer.url);
    }

    @Test
    void urlsNoMemberListsAnyMoreAreForgotten() throws Exception {
        OortTestNode b = started(oort -> oort.heartbeatInterval(Duration.ofMillis(200))
                .peerTimeout(Duration.ofMillis(1000)));
        FakePeer peer = fake(b);
        List<String> gossiped = deadUrls("127.0.0.1", 5);

        peer.heartbeat(gossiped);
        await().atMost(WAIT).until(() -> b.oort.links().stream().map(LinkSnapshot::url).toList()
                .containsAll(gossiped));
        // The fake is no member (its URL never answers), so nobody lists them: gone after twice the peer timeout.
        await().atMost(WAIT).until(() -> b.oort.links().stream().map(LinkSnapshot::url).noneMatch(gossiped::contains));
        assertThat(b.oort.stats().urlsForgotten()).isGreaterThanOrEqualTo(5);
        assertThat(b.oort.links()).extracting(LinkSnapshot::url).as("its session is here: kept").contains(peer.url);
    }

    @Test
    void onlyHostsOfTheAllowListAreDialled() throws Exception {
        OortTestNode b = started(oort -> oort.peerHosts(List.of("127.0.0.1")));
        FakePeer peer = fake(b);
        List<String> elsewhere = deadUrls("localhost", 3);

        peer.heartbeat(elsewhere);
        await().atMost(WAIT).until(() -> b.oort.stats().urlsRefused() >= 3);
        assertThat(b.oort.links()).extracting(LinkSnapshot::url).containsExactly(peer.url);
    }
}
