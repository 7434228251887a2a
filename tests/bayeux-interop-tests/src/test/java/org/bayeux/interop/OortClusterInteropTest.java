package org.bayeux.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.bayeux.oort.process.OortProcess;
import org.bayeux.oort.process.ProcessNodes;
import org.cometd.bayeux.Message;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Unmodified CometD clients on different nodes of an Oort cluster of three real processes on loopback, every node
 * observing {@code /**}: what one client publishes on its node reaches the clients of the other nodes exactly once and
 * in its order. Both directions: the CometD Java client publishing to the CometD JavaScript client and a Java client
 * subscribed to {@code /**}, and the JavaScript client publishing to two Java clients.
 */
class OortClusterInteropTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final Duration RUN_LIMIT = Duration.ofSeconds(180);
    private static final int COUNT = 300;
    private final List<OortProcess> nodes = new ArrayList<>();
    private final List<AutoCloseable> clients = new ArrayList<>();
    private final List<NodeScenario> scenarios = new ArrayList<>();
    @TempDir
    Path dir;

    @AfterEach
    void stopAll() throws Exception {
        scenarios.forEach(NodeScenario::kill);
        for (AutoCloseable client : clients) {
            client.close();
        }
        nodes.forEach(OortProcess::kill9);
    }

    /**
     * The next message that is not a meta message: the CometD Java client also hands its own meta replies (such as
     * the subscribe reply) to a local listener on a wildcard that matches them, such as {@code /**}.
     */
    private static Message nextBroadcast(BlockingQueue<Message> queue) {
        for (int skipped = 0; skipped < 100; skipped++) {
            Message message = CometDJavaClient.next(queue);
            if (!message.getChannel().startsWith("/meta/")) {
                return message;
            }
        }
        throw new AssertionError("Only meta messages");
    }

    /** @return the channels of the messages left in the queue that are not meta messages */
    private static List<String> broadcasts(BlockingQueue<Message> queue) {
        return queue.stream().map(Message::getChannel).filter(channel -> !channel.startsWith("/meta/")).toList();
    }

    static List<String> transports() {
        return Interop.TRANSPORTS;
    }

    /** Three nodes joined in a full mesh (each seeded with those started before it), all observing /**. */
    private List<OortProcess> mesh() throws Exception {
        OortProcess a = OortProcess.start("A", ProcessNodes.args(dir, ""));
        nodes.add(a);
        OortProcess b = OortProcess.start("B", ProcessNodes.args(dir, a.url()));
        nodes.add(b);
        OortProcess c = OortProcess.start("C", ProcessNodes.args(dir, a.url() + "," + b.url()));
        nodes.add(c);
        for (OortProcess node : nodes) {
            for (OortProcess other : nodes) {
                if (other != node) {
                    node.await("joined", other.id(), WAIT);
                }
            }
        }
        return List.of(a, b, c);
    }

    private CometDJavaClient java(String url, String transport) throws Exception {
        CometDJavaClient client = new CometDJavaClient(url, transport);
        clients.add(client);
        client.handshake();
        return client;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("transports")
    void theJavaClientOnOneNodeReachesTheJavaScriptClientAndAJavaClientOnTheOthersOnceInOrder(String transport)
            throws Exception {
        List<OortProcess> mesh = mesh();
        OortProcess a = mesh.get(0);
        OortProcess b = mesh.get(1);
        OortProcess c = mesh.get(2);
        // The last message (seq COUNT) is a fence: a duplicate of an earlier one would arrive before it.
        NodeScenario javaScript = NodeScenario.start("cometd-js", b.url(), transport, "feed",
                Map.of("channel", "/chat/**", "count", COUNT + 1, "wait", RUN_LIMIT.toMillis(), "timeout",
                        RUN_LIMIT.toMillis()));
        scenarios.add(javaScript);
        BlockingQueue<Message> everything = java(c.url(), transport).subscribe("/**");
        await().atMost(WAIT).until(() -> b.subscribers("/chat/**") == 1);

        CometDJavaClient publisher = java(a.url(), transport);
        for (int seq = 0; seq <= COUNT; seq++) {
            assertThat(publisher.publish("/chat/room", Map.of("seq", seq)).isSuccessful()).as("publish " + seq)
                    .isTrue();
        }

        Map<String, Object> result = javaScript.result(RUN_LIMIT);
        assertThat(result).containsEntry("count", (long) COUNT + 1).containsEntry("distinct", (long) COUNT + 1)
                .containsEntry("outOfOrder", 0L).containsEntry("first", 0L).containsEntry("last", (long) COUNT);
        for (int seq = 0; seq <= COUNT; seq++) {
            Message message = nextBroadcast(everything);
            assertThat(message.getChannel()).isEqualTo("/chat/room");
            assertThat(CometDJavaClient.dataOf(message)).containsEntry("seq", (long) seq);
        }
        assertThat(broadcasts(everything)).as("nothing more on /** of C: no duplicate, nothing of Oort's own")
                .isEmpty();
        for (OortProcess receiver : List.of(b, c)) {
            Map<String, Long> stats = receiver.stats();
            assertThat(stats).as(receiver + " " + stats).containsEntry("received", (long) COUNT + 1)
                    .containsEntry("duplicates", 0L).containsEntry("gaps", 0L);
        }
        assertThat(a.stats()).containsEntry("forwarded", 2L * (COUNT + 1)).containsEntry("forwardFailures", 0L);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("transports")
    void theJavaScriptClientOnOneNodeReachesJavaClientsOnTheOthersOnceInOrder(String transport) throws Exception {
        List<OortProcess> mesh = mesh();
        OortProcess a = mesh.get(0);
        OortProcess b = mesh.get(1);
        OortProcess c = mesh.get(2);
        BlockingQueue<Message> onA = java(a.url(), transport).subscribe("/chat/*");
        BlockingQueue<Message> onC = java(c.url(), transport).subscribe("/**");

        NodeScenario javaScript = NodeScenario.start("cometd-js", b.url(), transport, "send",
                Map.of("channel", "/chat/room", "count", COUNT, "timeout", RUN_LIMIT.toMillis()));
        scenarios.add(javaScript);
        assertThat(javaScript.result(RUN_LIMIT)).containsEntry("sent", (long) COUNT);

        for (BlockingQueue<Message> queue : List.of(onA, onC)) {
            for (int seq = 0; seq < COUNT; seq++) {
                Message message = nextBroadcast(queue);
                assertThat(message.getChannel()).isEqualTo("/chat/room");
                assertThat(CometDJavaClient.dataOf(message)).containsEntry("from", "cometd-js")
                        .containsEntry("seq", (long) seq);
            }
        }
        for (OortProcess receiver : List.of(a, c)) {
            Map<String, Long> stats = receiver.stats();
            assertThat(stats).as(receiver + " " + stats).containsEntry("received", (long) COUNT)
                    .containsEntry("duplicates", 0L).containsEntry("gaps", 0L);
        }
        assertThat(broadcasts(onA)).as("no duplicate on A").isEmpty();
        assertThat(broadcasts(onC)).as("no duplicate on C").isEmpty();
    }

    @Test
    void anUnmodifiedCometDClientIsRefusedOnOortChannels() throws Exception {
        OortProcess a = OortProcess.start("A", ProcessNodes.args(dir, ""));
        nodes.add(a);
        OortProcess b = OortProcess.start("B", ProcessNodes.args(dir, a.url()));
        nodes.add(b);
        a.await("joined", b.id(), WAIT);
        CometDJavaClient client = java(a.url(), "websocket");

        for (String channel : List.of("/oort/**", "/oort/members", "/service/oort/forward")) {
            CompletableFuture<Message> reply = new CompletableFuture<>();
            client.bayeux.getChannel(channel).subscribe((c, m) -> { }, reply::complete);
            assertThat(reply.get(WAIT.toSeconds(), TimeUnit.SECONDS).isSuccessful()).as("subscribe " + channel)
                    .isFalse();
        }
        Map<String, Object> forged = Map.of("origin", b.id(), "seq", 1, "channel", "/chat/a",
                "message", "{\"channel\":\"/chat/a\",\"data\":\"forged\"}");
        for (String channel : List.of("/oort/members", "/service/oort/forward", "/service/oort/heartbeat")) {
            assertThat(client.publish(channel, forged).isSuccessful()).as("publish " + channel).isFalse();
        }
        assertThat(a.stats()).containsEntry("received", 0L);
        assertThat(a.eventLines()).containsExactly("joined " + b.id());
    }
}
