package org.bayeux.oort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.Message;
import org.bayeux.client.BayeuxClient;
import org.bayeux.client.BayeuxClientConfig;
import org.bayeux.client.transport.ClientTransport;
import org.bayeux.server.BayeuxEngine;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Joins between real nodes on loopback: only a fresh proof of the secret gets in, and only peers use Oort's channels. */
class OortJoinTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
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

    private BayeuxClient client(String url, Map<String, Object> oortExt) {
        BayeuxClient client = new BayeuxClient(BayeuxClientConfig.builder(url)
                .transports(ClientTransport.WEBSOCKET)
                .handshakeHook(request -> {
                    if (oortExt != null) {
                        request.ext(JoinProof.EXT, oortExt);
                    }
                    return java.util.concurrent.CompletableFuture.completedFuture(null);
                })
                .build());
        closeables.add(client);
        return client;
    }

    @Test
    void aGoodJoinIsAcceptedAndTheSeedDialsBack() throws Exception {
        OortTestNode a = node();
        OortTestNode b = node();
        b.start(oort -> { });
        a.start(oort -> oort.seeds(List.of(b.url)));

        await().atMost(WAIT).until(() -> a.joined.size() == 1 && b.joined.size() == 1);
        assertThat(a.joined.get(0).id()).isEqualTo(b.oort.id());
        assertThat(a.joined.get(0).url()).isEqualTo(b.url);
        assertThat(b.joined.get(0).id()).isEqualTo(a.oort.id());
        assertThat(b.joined.get(0).url()).isEqualTo(a.url);
        assertThat(a.oort.members()).hasSize(1);
        assertThat(a.oort.stats().refusedJoins() + b.oort.stats().refusedJoins()).isZero();
    }

    @Test
    void aNodeRestartedAtTheSameUrlLeavesThenJoinsAsANewIncarnation() throws Exception {
        OortTestNode a = node();
        OortTestNode b = node();
        b.start(oort -> { });
        a.start(oort -> oort.seeds(List.of(b.url)));
        await().atMost(WAIT).until(() -> a.joined.size() == 1 && b.joined.size() == 1);
        String first = b.oort.id();

        b.close();
        OortTestNode restarted = new OortTestNode(b.port);
        closeables.add(restarted);
        restarted.start(oort -> oort.seeds(List.of(a.url)));

        await().atMost(Duration.ofSeconds(20)).until(() -> a.joined.size() == 2);
        String second = restarted.oort.id();
        assertThat(second).isNotEqualTo(first);
        assertThat(restarted.url).isEqualTo(b.url);
        assertThat(a.events).containsExactly("joined " + first, "left " + first, "joined " + second);
        assertThat(a.oort.members()).extracting(member -> member.id()).containsExactly(second);
        await().atMost(WAIT).until(() -> restarted.joined.size() == 1);
        assertThat(restarted.joined.get(0).id()).isEqualTo(a.oort.id());
    }

    @Test
    void aWrongSecretIsRefusedAndItsUrlNeverDialledBack() throws Exception {
        OortTestNode a = node();
        OortTestNode b = node();
        b.start(oort -> { });
        a.start(oort -> oort.seeds(List.of(b.url)).secret("another-secret-which-is-at-least-32-bytes-long"));

        await().atMost(WAIT).until(() -> b.oort.stats().refusedJoins() >= 2);
        assertThat(a.oort.stats().refusedJoins()).as("b never dialled a back").isZero();
        assertThat(a.joined).isEmpty();
        assertThat(b.joined).isEmpty();
    }

    @Test
    void aReplayedJoinIsRefused() throws Exception {
        OortTestNode b = node();
        b.start(oort -> { });
        JoinProof proof = new JoinProof(OortTestNode.SECRET.getBytes(StandardCharsets.UTF_8), Clock.systemUTC(),
                Duration.ofSeconds(30));
        Map<String, Object> captured = proof.make("node-x", "http://127.0.0.1:9/bayeux", b.url);

        BayeuxClient first = client(b.url, captured);
        Message accepted = first.handshakeAsync(null).get(10, TimeUnit.SECONDS);
        BayeuxClient replay = client(b.url, captured);
        Message refused = replay.handshakeAsync(null).get(10, TimeUnit.SECONDS);

        assertThat(accepted.isSuccessful()).isTrue();
        assertThat(refused.isSuccessful()).isFalse();
        assertThat(refused.getError()).isEqualTo("404::message_deleted");
        assertThat(b.oort.stats().refusedJoins()).isPositive();
    }

    @Test
    void aNodeWithoutASecretDoesNotStart() {
        BayeuxEngine engine = BayeuxEngine.create();

        assertThatThrownBy(() -> Oort.builder(engine).url("http://127.0.0.1:8080/bayeux").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("oort.secret");
    }

    @Test
    void anOrdinaryClientIsRefusedOnOortChannelsButNotElsewhere() throws Exception {
        OortTestNode b = node();
        b.start(oort -> { });
        BayeuxClient ordinary = client(b.url, null);
        assertThat(ordinary.handshake(WAIT)).isEqualTo(BayeuxClient.State.CONNECTED);

        for (String channel : List.of("/oort/members", "/oort/**", "/service/oort/forward")) {
            Message reply = ordinary.getChannel(channel).subscribeAsync((c, m) -> { }).get(10, TimeUnit.SECONDS);
            assertThat(reply.isSuccessful()).as("subscribe " + channel).isFalse();
        }
        for (String channel : List.of("/oort/members", "/service/oort/forward")) {
            Message reply = ordinary.getChannel(channel).publishAsync(
                    Map.of("origin", "x", "seq", 1, "channel", "/chat/a", "message", "{\"channel\":\"/chat/a\"}"))
                    .get(10, TimeUnit.SECONDS);
            assertThat(reply.isSuccessful()).as("publish " + channel).isFalse();
        }
        assertThat(ordinary.getChannel("/chat/room").subscribeAsync((c, m) -> { }).get(10, TimeUnit.SECONDS)
                .isSuccessful()).isTrue();
        assertThat(b.oort.stats().received()).isZero();
    }
}
