package org.bayeux.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.server.ServerSession;
import org.bayeux.server.BayeuxServerImpl;
import org.bayeux.server.ext.AcknowledgedMessagesExtension;
import org.bayeux.server.test.EngineHarness;
import org.bayeux.server.test.TestClient;
import org.bayeux.server.test.TestResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The engine's side of failover with a store that {@linkplain SessionStore#adopts() adopts} sessions: handshake and
 * subscription replies leave only once the session is written through; every connect reply that carries messages
 * (every numbered one with {@code ack}) leaves only once its journal entry is written, in order; a fenced entry means
 * nothing leaves and the session moved; draining hands sessions over with {@code reconnect:"retry"}.
 */
class FailoverWritesTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final AdoptingStoreDouble store = new AdoptingStoreDouble();
    private final LoopbackCluster cluster = new LoopbackCluster(new ArrayList<>(), true);
    private EngineHarness harness;

    private BayeuxServerImpl start(boolean ack) {
        harness = EngineHarness.start(builder -> builder.timeout(Duration.ofSeconds(30)), server -> {
            server.setCluster(cluster);
            server.setSessionStore(store);
            if (ack) {
                server.addExtension(new AcknowledgedMessagesExtension());
            }
        });
        return harness.server();
    }

    @AfterEach
    void stop() {
        if (harness != null) {
            harness.close();
        }
    }

    private static byte[] positioned(String channel, long offset) {
        return ("{\"channel\":\"" + channel + "\",\"data\":{\"n\":" + offset + "},\"ext\":{\"position\":{\"offset\":"
                + offset + ",\"epoch\":\"e1\"}}}").getBytes(StandardCharsets.UTF_8);
    }

    private static String handshakeMessage(TestClient client, String extra) {
        return "[{\"id\":\"" + client.nextId() + "\",\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"supportedConnectionTypes\":[\"long-polling\"]" + extra + "}]";
    }

    private ServerSession sessionOf(TestClient client) {
        return harness.server().getSession(client.clientId());
    }

    private static <T> T get(CompletableFuture<T> future) throws Exception {
        return future.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }

    private static List<Long> offsets(TestResponse response) {
        List<Long> offsets = new ArrayList<>();
        for (Map<String, Object> delivery : response.deliveries()) {
            offsets.add(((Number) ((Map<?, ?>) delivery.get("data")).get("n")).longValue());
        }
        return offsets;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> adviceOf(Map<String, Object> reply) {
        return (Map<String, Object>) reply.get("advice");
    }

    // ---- write-through ---------------------------------------------------------------------------------------

    @Test
    void theHandshakeReplyLeavesOnlyOnceTheSessionIsWrittenWithItsAckState() throws Exception {
        start(true);
        store.holdWrites(true);
        TestClient client = harness.newClient();
        CompletableFuture<TestResponse> reply = client.send(handshakeMessage(client, ",\"ext\":{\"ack\":true}"));
        await().atMost(WAIT).until(() -> store.writes.size() == 1);
        assertThat(reply).as("waits for the write").isNotDone();
        assertThat(store.writes.get(0).acknowledges()).as("written after the ack extension installed itself")
                .isTrue();

        store.writes.get(0).stage().complete(null);
        Map<String, Object> handshake = get(reply).single("/meta/handshake");
        assertThat(handshake).containsEntry("successful", true);
        assertThat(store.writes.get(0).sessionId()).isEqualTo(handshake.get("clientId"));
    }

    @Test
    void aFailedWriteIsCountedAndTheReplyLeavesAnyway() throws Exception {
        BayeuxServerImpl server = start(false);
        store.holdWrites(true);
        TestClient client = harness.newClient();
        CompletableFuture<TestResponse> reply = client.send(handshakeMessage(client, ""));
        await().atMost(WAIT).until(() -> store.writes.size() == 1);
        store.writes.get(0).stage().completeExceptionally(new IllegalStateException("store down"));
        assertThat(get(reply).single("/meta/handshake")).containsEntry("successful", true);
        assertThat(server.statistics().storeWriteFailures()).isEqualTo(1);
    }

    @Test
    void subscribeAndUnsubscribeRepliesLeaveOnlyOnceWritten() throws Exception {
        start(false);
        TestClient client = harness.newClient();
        client.handshake();
        client.firstConnect();
        store.holdWrites(true);
        int before = store.writes.size();
        CompletableFuture<TestResponse> subscribed = client.send("[{\"id\":\"" + client.nextId()
                + "\",\"channel\":\"/meta/subscribe\",\"subscription\":\"/chat/a\",\"clientId\":\""
                + client.clientId() + "\"}]");
        await().atMost(WAIT).until(() -> store.writes.size() == before + 1);
        assertThat(subscribed).isNotDone();
        store.writes.get(before).stage().complete(null);
        assertThat(get(subscribed).single("/meta/subscribe")).containsEntry("successful", true);

        CompletableFuture<TestResponse> unsubscribed = client.send("[{\"id\":\"" + client.nextId()
                + "\",\"channel\":\"/meta/unsubscribe\",\"subscription\":\"/chat/a\",\"clientId\":\""
                + client.clientId() + "\"}]");
        await().atMost(WAIT).until(() -> store.writes.size() == before + 2);
        assertThat(unsubscribed).isNotDone();
        store.writes.get(before + 1).stage().complete(null);
        assertThat(get(unsubscribed).single("/meta/unsubscribe")).containsEntry("successful", true);
        assertThat(store.journals).as("no delivery, no journal entry").isEmpty();
    }

    // ---- the journal, without ack ----------------------------------------------------------------------------

    @Test
    void connectRepliesWithMessagesLeaveOnlyOnceJournaledAndAreNumbered() throws Exception {
        start(false);
        TestClient client = harness.newClient();
        client.handshake();
        client.firstConnect();
        assertThat(client.subscribe("/chat/a")).containsEntry("successful", true);
        SessionState state = (SessionState) sessionOf(client);
        assertThat(sessionOf(client).isMetaConnectDeliveryOnly()).as("every delivery in a connect reply").isTrue();
        assertThat(store.journals).as("empty replies are not journaled without ack").isEmpty();
        store.holdJournals(true);

        // A held connect, completed by a delivery.
        CompletableFuture<TestResponse> held = client.connect();
        await().atMost(WAIT).until(() -> harness.server().isConnectHeld(sessionOf(client)));
        cluster.node().deliver(positioned("/chat/a", 1));
        await().atMost(WAIT).until(() -> store.journals.size() == 1);
        assertThat(held).as("waits for its journal entry").isNotDone();
        AdoptingStoreDouble.Call first = store.journals.get(0);
        assertThat(first.batch()).isEqualTo(1);
        assertThat(first.positions()).isEqualTo(Map.of("/chat/a", new ChannelPosition("e1", 1)));
        first.stage().complete(null);
        assertThat(offsets(get(held))).containsExactly(1L);

        // A connect answered at once with what was queued meanwhile.
        cluster.node().deliver(positioned("/chat/a", 2));
        cluster.node().deliver(positioned("/chat/a", 3));
        CompletableFuture<TestResponse> immediate = client.connect();
        await().atMost(WAIT).until(() -> store.journals.size() == 2);
        assertThat(immediate).isNotDone();
        AdoptingStoreDouble.Call second = store.journals.get(1);
        assertThat(second.batch()).isEqualTo(2);
        assertThat(second.positions()).isEqualTo(Map.of("/chat/a", new ChannelPosition("e1", 3)));
        second.stage().completeExceptionally(new IllegalStateException("journal down"));
        assertThat(offsets(get(immediate))).as("an unfenced failure still sends").containsExactly(2L, 3L);
        assertThat(harness.server().statistics().journalFailures()).isEqualTo(1);
        assertThat(state.lastBatch()).isEqualTo(2);
    }

    @Test
    void aJournaledReplyNeverOvertakesTheOneBeforeIt() throws Exception {
        start(false);
        TestClient client = harness.newSocketClient();
        client.handshake();
        client.firstConnect();
        assertThat(client.subscribe("/chat/a")).containsEntry("successful", true);
        store.holdJournals(true);
        CompletableFuture<TestResponse> held = client.connect();
        await().atMost(WAIT).until(() -> harness.server().isConnectHeld(sessionOf(client)));
        cluster.node().deliver(positioned("/chat/a", 1));
        await().atMost(WAIT).until(() -> store.journals.size() == 1);

        // A second connect before the first reply left (a client that did not wait): its entry is written first.
        store.holdJournals(false);
        cluster.node().deliver(positioned("/chat/a", 2));
        client.send("[" + client.connectMessage(",\"advice\":{\"timeout\":0}") + "]");
        await().atMost(WAIT).until(() -> store.journals.size() == 2 && store.journals.get(1).stage().isDone());
        assertThat(held).as("the second reply waits for the first").isNotDone();
        assertThat(client.frames()).isEmpty();

        store.journals.get(0).stage().complete(null);
        assertThat(offsets(get(held))).containsExactly(1L);
        assertThat(offsets(client.nextFrame())).containsExactly(2L);
    }

    @Test
    void aFencedEntryWithholdsTheReplyAndTheSessionMovesSilently() throws Exception {
        start(false);
        TestClient client = harness.newClient();
        client.handshake();
        client.firstConnect();
        assertThat(client.subscribe("/chat/a")).containsEntry("successful", true);
        ServerSession session = sessionOf(client);
        store.holdJournals(true);
        CompletableFuture<TestResponse> held = client.connect();
        await().atMost(WAIT).until(() -> harness.server().isConnectHeld(session));
        cluster.node().deliver(positioned("/chat/a", 1));
        await().atMost(WAIT).until(() -> store.journals.size() == 1);
        int changes = store.changed.size();
        store.journals.get(0).stage().completeExceptionally(new SessionFencedException("generation moved on"));

        TestResponse response = get(held);
        assertThat(response.status()).as("nothing sent: the request is answered as superseded")
                .isEqualTo(TestResponse.SUPERSEDED);
        assertThat(response.messages()).isEmpty();
        assertThat(session.getState()).isEqualTo(ServerSession.State.MOVED);
        assertThat(harness.server().getSession(client.clientId())).isNull();
        assertThat(store.removed).as("the store keeps what the new owner owns").isEmpty();
        assertThat(store.changed).as("leaving its channels here changes nothing stored").hasSize(changes);
        assertThat(harness.server().statistics().journalFailures()).isZero();
    }

    @Test
    void aFencedEntryOfAnImmediateReplyWithholdsItToo() throws Exception {
        start(false);
        TestClient client = harness.newClient();
        client.handshake();
        client.firstConnect();
        assertThat(client.subscribe("/chat/a")).containsEntry("successful", true);
        ServerSession session = sessionOf(client);
        cluster.node().deliver(positioned("/chat/a", 1));
        store.holdJournals(true);
        CompletableFuture<TestResponse> immediate = client.connect();
        await().atMost(WAIT).until(() -> store.journals.size() == 1);
        store.journals.get(0).stage().completeExceptionally(
                new java.util.concurrent.CompletionException(new SessionFencedException("fenced")));
        TestResponse response = get(immediate);
        assertThat(response.status()).isEqualTo(TestResponse.SUPERSEDED);
        assertThat(session.getState()).isEqualTo(ServerSession.State.MOVED);
        assertThat(store.removed).isEmpty();
    }

    // ---- the journal, with ack -------------------------------------------------------------------------------

    @Test
    void everyNumberedReplyOfAnAckSessionIsJournaledWithThePositionsAfterIt() throws Exception {
        start(true);
        TestClient client = harness.newClient();
        assertThat(client.handshake(",\"ext\":{\"ack\":true}")).containsEntry("successful", true);
        TestResponse first = client.call("[" + client.connectMessage(",\"advice\":{\"timeout\":0}") + "]");
        Map<?, ?> ext = (Map<?, ?>) first.single("/meta/connect").get("ext");
        assertThat(((Number) ext.get("ack")).longValue()).isEqualTo(1);
        assertThat(store.journals).hasSize(1);
        assertThat(store.journals.get(0).batch()).as("numbered, though empty").isEqualTo(1);
        assertThat(store.journals.get(0).positions()).isEmpty();
        assertThat(client.subscribe("/chat/a")).containsEntry("successful", true);

        cluster.node().deliver(positioned("/chat/a", 5));
        store.holdJournals(true);
        CompletableFuture<TestResponse> second = client.send("["
                + client.connectMessage(",\"advice\":{\"timeout\":0},\"ext\":{\"ack\":1}") + "]");
        await().atMost(WAIT).until(() -> store.journals.size() == 2);
        assertThat(second).isNotDone();
        assertThat(store.journals.get(1).batch()).isEqualTo(2);
        assertThat(store.journals.get(1).positions()).isEqualTo(Map.of("/chat/a", new ChannelPosition("e1", 5)));
        store.journals.get(1).stage().complete(null);
        assertThat(offsets(get(second))).containsExactly(5L);

        // Batch 2 not acknowledged: resent in batch 3, whose positions still count it.
        cluster.node().deliver(positioned("/chat/a", 6));
        store.holdJournals(false);
        TestResponse third = client.call("["
                + client.connectMessage(",\"advice\":{\"timeout\":0},\"ext\":{\"ack\":1}") + "]");
        assertThat(offsets(third)).containsExactly(5L, 6L);
        assertThat(store.journals.get(2).batch()).isEqualTo(3);
        assertThat(store.journals.get(2).positions()).isEqualTo(Map.of("/chat/a", new ChannelPosition("e1", 6)));
        SessionState state = (SessionState) sessionOf(client);
        assertThat(state.acknowledges()).isTrue();
        assertThat(state.lastBatch()).isEqualTo(3);
        assertThat(state.ackBatch()).isEqualTo(1);
    }

    // ---- drain by migration ----------------------------------------------------------------------------------

    @Test
    void drainReleasesEverySessionAndTellsItsClientToConnectAgainAtOnce() throws Exception {
        BayeuxServerImpl server = start(false);
        TestClient holding = harness.newClient();
        holding.handshake();
        holding.firstConnect();
        assertThat(holding.subscribe("/chat/a")).containsEntry("successful", true);
        TestClient between = harness.newClient();
        between.handshake();
        between.firstConnect();
        ServerSession held = sessionOf(holding);
        ServerSession idle = sessionOf(between);
        CompletableFuture<TestResponse> connect = holding.connect();
        await().atMost(WAIT).until(() -> server.isConnectHeld(held));

        store.holdReleases(true);
        CompletionStage<Void> drained = server.drain(Duration.ofSeconds(1));
        await().atMost(WAIT).until(() -> store.releases.size() == 2);
        // Queued while the release is written: the next owner delivers it, from the backplane's history.
        cluster.node().deliver(positioned("/chat/a", 1));
        assertThat(connect).as("answered once released").isNotDone();
        // A connect that asks to be answered at once waits for the release too.
        CompletableFuture<TestResponse> early = between.send("["
                + between.connectMessage(",\"advice\":{\"timeout\":0}") + "]");
        await().atMost(WAIT).until(() -> server.isConnectHeld(idle));
        assertThat(early).isNotDone();
        store.releases.forEach(call -> call.stage().complete(null));

        TestResponse answered = get(connect);
        Map<String, Object> reply = answered.single("/meta/connect");
        assertThat(reply).containsEntry("successful", true).doesNotContainKey("error");
        assertThat(adviceOf(reply)).containsEntry("reconnect", "retry").containsEntry("interval", 0L);
        assertThat(answered.deliveries()).as("no messages").isEmpty();
        await().atMost(WAIT).until(() -> held.getState() == ServerSession.State.MOVED);

        // The other client's connect is told the same, and its session leaves too.
        Map<String, Object> next = get(early).single("/meta/connect");
        assertThat(next).containsEntry("successful", true);
        assertThat(adviceOf(next)).containsEntry("reconnect", "retry").containsEntry("interval", 0L);
        assertThat(idle.getState()).isEqualTo(ServerSession.State.MOVED);
        Map<String, Object> back = between.call("[" + between.connectMessage("") + "]").single("/meta/connect");
        assertThat(back).as("back on its old connection: this node adopts nothing while it drains")
                .containsEntry("successful", false).containsEntry("error", "503::draining");
        assertThat(adviceOf(back)).isEqualTo(Map.of("reconnect", "retry", "interval", 1000L));

        drained.toCompletableFuture().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(store.removed).as("released sessions stay in the store").isEmpty();
        assertThat(store.journals).as("nothing was delivered").isEmpty();
        assertThat(harness.newClient().handshake()).as("handshakes refused as ever")
                .containsEntry("error", "503::draining");
    }

    @Test
    void aSessionIsReleasedOnlyAfterTheReplyOnItsWayLeft() throws Exception {
        BayeuxServerImpl server = start(false);
        TestClient client = harness.newClient();
        client.handshake();
        client.firstConnect();
        assertThat(client.subscribe("/chat/a")).containsEntry("successful", true);
        ServerSession session = sessionOf(client);
        store.holdJournals(true);
        CompletableFuture<TestResponse> held = client.connect();
        await().atMost(WAIT).until(() -> server.isConnectHeld(session));
        cluster.node().deliver(positioned("/chat/a", 1));
        await().atMost(WAIT).until(() -> store.journals.size() == 1);

        server.drain(Duration.ofSeconds(1));
        assertThat(store.releases).as("waits for the reply on its way").isEmpty();
        store.journals.get(0).stage().complete(null);
        assertThat(offsets(get(held))).containsExactly(1L);
        await().atMost(WAIT).until(() -> store.releases.size() == 1);
        int changes = store.changed.size();

        Map<String, Object> next = client.call("[" + client.connectMessage("") + "]").single("/meta/connect");
        assertThat(next).containsEntry("successful", true);
        assertThat(adviceOf(next)).containsEntry("reconnect", "retry").containsEntry("interval", 0L);
        assertThat(session.getState()).isEqualTo(ServerSession.State.MOVED);
        assertThat(store.removed).isEmpty();
        assertThat(store.changed).as("nothing written after the release").hasSize(changes);
    }
}
