package org.bayeux.oort.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.Message;
import org.bayeux.client.BayeuxClient;
import org.bayeux.client.BayeuxClientConfig;
import org.bayeux.client.transport.ClientTransport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Refusals between node processes on loopback: a node with another secret, a real join captured on the wire and
 * replayed, a node without a secret (or with a short one), and an ordinary client on Oort's channels.
 */
class OortProcessRefusalTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private final List<OortProcess> nodes = new ArrayList<>();
    private final List<BayeuxClient> clients = new ArrayList<>();
    @TempDir
    Path dir;

    @AfterEach
    void stopAll() {
        clients.forEach(BayeuxClient::close);
        nodes.forEach(OortProcess::kill9);
    }

    private OortProcess node(String name, List<String> args) {
        OortProcess node = OortProcess.start(name, args);
        nodes.add(node);
        return node;
    }

    private BayeuxClient client(String url, Map<String, Object> oortExt) {
        BayeuxClient client = new BayeuxClient(BayeuxClientConfig.builder(url)
                .transports(ClientTransport.WEBSOCKET)
                .handshakeHook(request -> {
                    if (oortExt != null) {
                        request.ext("oort", oortExt);
                    }
                    return CompletableFuture.completedFuture(null);
                })
                .build());
        clients.add(client);
        return client;
    }

    @Test
    void aNodeWithAnotherSecretIsRefusedAndNeverDialledBack() throws Exception {
        OortProcess a = node("A", ProcessNodes.args(dir, ""));
        Path other = ProcessNodes.secretFile(dir, "other", "another-secret-of-more-than-32-bytes-0123456789");
        List<String> args = new ArrayList<>(ProcessNodes.args(dir, a.url()));
        args.set(args.indexOf("--secret-file") + 1, other.toString());
        OortProcess x = node("X", args);

        // X's link retries with its client's back-off: each try is one more refusal.
        await().atMost(WAIT).until(() -> a.stats().get("refusedJoins") >= 2);
        assertThat(x.stats().get("refusedJoins")).as("A never dialled X back").isZero();
        assertThat(a.eventLines()).isEmpty();
        assertThat(x.eventLines()).isEmpty();
        assertThat(a.members()).isEmpty();
        assertThat(x.members()).isEmpty();
    }

    @Test
    void aRealJoinCapturedAndReplayedIsRefused() throws Exception {
        OortProcess a = node("A", ProcessNodes.args(dir, "", "--print-joins", "true"));
        OortProcess b = node("B", ProcessNodes.args(dir, a.url()));
        a.await("joined", b.id(), WAIT);
        b.await("joined", a.id(), WAIT);
        Map<String, String> captured = a.joins().get(0);
        assertThat(captured.get("id")).isEqualTo(b.id());
        assertThat(captured.get("target")).isEqualTo(a.url());
        long refusedBefore = a.stats().get("refusedJoins");

        // The same proof again, well within the 30 s the join's time allows: only the nonce's memory stops it.
        Map<String, Object> replayed = new HashMap<>(captured);
        replayed.put("time", Long.parseLong(captured.get("time")));
        Message reply = client(a.url(), replayed).handshakeAsync(null).get(WAIT.toSeconds(), TimeUnit.SECONDS);

        assertThat(reply.isSuccessful()).isFalse();
        assertThat(reply.getError()).isEqualTo("404::message_deleted");
        assertThat(a.stats().get("refusedJoins")).isEqualTo(refusedBefore + 1);
        assertThat(a.eventLines()).containsExactly("joined " + b.id());
        assertThat(a.members()).containsExactly(b.id());
    }

    @Test
    void aNodeWithoutASecretOrWithAShortOneDoesNotStartAndNamesTheKey() throws Exception {
        OortProcess.Exit missing = OortProcess.startExpectingExit("no-secret",
                List.of("--heartbeat-ms", "500", "--timeout-ms", "3000"));
        assertThat(missing.code()).isEqualTo(2);
        assertThat(missing.output()).contains(OortNodeMain.REFUSED).contains("oort.secret")
                .doesNotContain(OortNodeMain.READY);

        String shortSecret = "only-20-bytes-secret";
        OortProcess.Exit tooShort = OortProcess.startExpectingExit("short-secret",
                List.of("--secret-file", ProcessNodes.secretFile(dir, "short", shortSecret).toString()));
        assertThat(tooShort.code()).isEqualTo(2);
        assertThat(tooShort.output()).contains(OortNodeMain.REFUSED).contains("oort.secret")
                .doesNotContain(shortSecret).doesNotContain(OortNodeMain.READY);
    }

    @Test
    void anOrdinaryClientIsRefusedOnOortChannels() throws Exception {
        OortProcess a = node("A", ProcessNodes.args(dir, ""));
        OortProcess b = node("B", ProcessNodes.args(dir, a.url()));
        a.await("joined", b.id(), WAIT);
        BayeuxClient ordinary = client(a.url(), null);
        assertThat(ordinary.handshake(WAIT)).isEqualTo(BayeuxClient.State.CONNECTED);

        for (String channel : List.of("/oort/**", "/oort/members", "/service/oort/forward", "/service/oort/**")) {
            Message reply = ordinary.getChannel(channel).subscribeAsync((c, m) -> { })
                    .get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(reply.isSuccessful()).as("subscribe " + channel).isFalse();
        }
        Map<String, Object> forged = Map.of("origin", b.id(), "seq", 1, "channel", "/chat/a",
                "message", "{\"channel\":\"/chat/a\",\"data\":\"forged\"}");
        for (String channel : List.of("/oort/members", "/service/oort/forward", "/service/oort/heartbeat")) {
            Message reply = ordinary.getChannel(channel).publishAsync(forged).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(reply.isSuccessful()).as("publish " + channel).isFalse();
        }
        assertThat(ordinary.getChannel("/chat/a").subscribeAsync((c, m) -> { }).get(WAIT.toSeconds(),
                TimeUnit.SECONDS).isSuccessful()).as("an ordinary channel").isTrue();
        assertThat(a.stats().get("received")).isZero();
        assertThat(a.eventLines()).containsExactly("joined " + b.id());
    }
}
