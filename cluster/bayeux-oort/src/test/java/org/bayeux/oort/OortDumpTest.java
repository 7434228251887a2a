package org.bayeux.oort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;

import org.bayeux.api.server.LocalSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Oort's text dump on two real nodes on loopback: the links and their state, no secret, no session. */
class OortDumpTest {
    private final OortCluster cluster = new OortCluster();

    @AfterEach
    void close() throws Exception {
        cluster.close();
    }

    @Test
    void theDumpListsThePeersTheirLinksAndTheCountersButNoSecretAndNoSession() throws Exception {
        OortTestNode a = new OortTestNode();
        cluster.nodes.add(a);
        a.start(oort -> oort.channels(List.of("/chat/**")));
        OortTestNode b = new OortTestNode();
        cluster.nodes.add(b);
        b.start(oort -> oort.seeds(List.of(a.url)).channels(List.of("/chat/**")));
        cluster.awaitMesh();
        LocalSession speaker = a.engine.newLocalSession("speaker");
        speaker.handshake();
        speaker.getChannel("/chat/room").publish("a body nobody may dump", (channel, reply) -> { });
        await().atMost(Duration.ofSeconds(20)).until(() -> b.oort.stats().received() == 1);

        String dump = a.oort.dump();
        assertThat(dump).startsWith("oort node: " + a.oort.id() + " at " + a.url + ", running")
                .contains("members: 1, known URLs: 1")
                .contains("peer " + b.url + ": link CONNECTED, member " + b.oort.id())
                .contains("queued ")
                .contains("counters: OortStats[forwarded=1")
                .doesNotContain(OortTestNode.SECRET)
                .doesNotContain("a body nobody may dump")
                .doesNotContain(speaker.getId());

        a.oort.stop();
        assertThat(a.oort.dump()).contains(", stopped");
    }
}
