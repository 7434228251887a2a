package org.bayeux.oort.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import org.awaitility.core.ConditionTimeoutException;
import org.bayeux.api.Message;
import org.bayeux.client.BayeuxClient;
import org.bayeux.client.BayeuxClientConfig;
import org.bayeux.client.transport.ClientTransport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Links into one node process flap (every connection through its proxy cut, 9 times) while a client on another node
 * publishes 10,000 messages: clients on both other nodes get every message once, in order, and nobody leaves.
 */
class OortProcessFlapTest {
    private static final int MESSAGES = 10_000;
    private static final int FLAPS = 9;
    /** Publishes in flight at most, so that the publisher's own queue stays small. */
    private static final int WINDOW = 200;
    private static final Duration WAIT = Duration.ofSeconds(60);
    private final List<OortProcess> nodes = new ArrayList<>();
    private final List<BayeuxClient> clients = new ArrayList<>();
    @TempDir
    Path dir;

    @AfterEach
    void stopAll() {
        clients.forEach(BayeuxClient::close);
        nodes.forEach(OortProcess::kill9);
    }

    /** A client on the node's own port, not through its proxy: only Oort's links flap. */
    private BayeuxClient client(OortProcess node) throws Exception {
        BayeuxClient client = new BayeuxClient(BayeuxClientConfig.builder(
                "http://127.0.0.1:" + node.port() + "/bayeux").transports(ClientTransport.WEBSOCKET).build());
        clients.add(client);
        assertThat(client.handshake(WAIT)).isEqualTo(BayeuxClient.State.CONNECTED);
        return client;
    }

    private List<Long> subscribe(OortProcess node, String channel) throws Exception {
        List<Long> received = new CopyOnWriteArrayList<>();
        Message reply = client(node).getChannel(channel).subscribeAsync(
                (c, message) -> received.add(((Number) message.getData()).longValue()))
                .get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(reply.isSuccessful()).isTrue();
        return received;
    }

    /** Waits; on time-out, fails with what each node saw (a leave during the flaps is what went wrong so far). */
    private void awaitOrExplain(Callable<Boolean> condition, String what) {
        try {
            await().atMost(WAIT).until(condition);
        } catch (ConditionTimeoutException timeout) {
            StringBuilder explanation = new StringBuilder("Waited " + WAIT + " for " + what);
            for (OortProcess node : nodes) {
                explanation.append("\n").append(node).append(" events ").append(node.eventLines())
                        .append(" incarnations ").append(node.incarnations()).append(node.logTail());
            }
            throw new AssertionError(explanation.toString(), timeout);
        }
    }

    @Test
    void linksFlappingDuringTenThousandMessagesLoseAndDuplicateNone() throws Exception {
        for (String name : List.of("A", "B", "C")) {
            String seeds = nodes.isEmpty() ? "" : nodes.get(0).url();
            List<String> args = ProcessNodes.args(dir, seeds, "--timeout-ms", "10000");
            nodes.add(name.equals("C") ? OortProcess.start(name, args) : OortProcess.startBehindProxy(name, args));
        }
        OortProcess a = nodes.get(0);
        OortProcess b = nodes.get(1);
        OortProcess c = nodes.get(2);
        for (OortProcess node : nodes) {
            for (OortProcess other : nodes) {
                if (other != node) {
                    node.await("joined", other.id(), WAIT);
                }
            }
        }
        List<Long> onB = subscribe(b, "/chat/flood");
        List<Long> onC = subscribe(c, "/chat/flood");
        BayeuxClient publisher = client(a);

        int chunk = MESSAGES / (FLAPS + 1);
        List<CompletableFuture<Message>> inFlight = new ArrayList<>();
        int acknowledged = 0;
        for (int n = 0; n < MESSAGES; n++) {
            inFlight.add(publisher.getChannel("/chat/flood").publishAsync(n));
            if (inFlight.size() == WINDOW || n == MESSAGES - 1) {
                for (CompletableFuture<Message> reply : inFlight) {
                    assertThat(reply.get(WAIT.toSeconds(), TimeUnit.SECONDS).isSuccessful()).isTrue();
                    acknowledged++;
                }
                inFlight.clear();
            }
            if (n % chunk == chunk - 1 && n < MESSAGES - 1) {
                // Cut every connection into B (A's and C's links to it) with A's forwards in flight.
                b.proxy().dropConnections();
                int sent = n + 1;
                // Go on once B has more than half of the chunk sent before the cut: the link is back.
                awaitOrExplain(() -> onB.size() >= sent - chunk / 2, "B to get " + (sent - chunk / 2) + " messages");
            }
        }

        awaitOrExplain(() -> onB.size() >= MESSAGES && onC.size() >= MESSAGES, "B and C to get all messages");
        List<Long> expected = IntStream.range(0, MESSAGES).mapToObj(i -> (long) i).toList();
        assertThat(onB).isEqualTo(expected);
        assertThat(onC).isEqualTo(expected);
        assertThat(acknowledged).isEqualTo(MESSAGES);
        Map<String, Long> sender = a.stats();
        Map<String, Long> flapped = b.stats();
        Map<String, Long> steady = c.stats();
        assertThat(sender).as("A " + sender).containsEntry("forwardFailures", 0L);
        assertThat(sender.get("resent")).as("the flaps made A resend: " + sender).isPositive();
        assertThat(flapped).as("B " + flapped).containsEntry("received", (long) MESSAGES).containsEntry("gaps", 0L);
        assertThat(steady).as("C " + steady).containsEntry("received", (long) MESSAGES)
                .containsEntry("duplicates", 0L).containsEntry("gaps", 0L);
        for (OortProcess node : nodes) {
            assertThat(node.eventLines()).as(node + ": a flap within the peer timeout is not a leave")
                    .noneMatch(line -> line.startsWith("left "));
            assertThat(node.incarnations()).hasSize(1);
        }
        System.out.println("A " + sender + "\nB " + flapped + "\nC " + steady);
    }
}
