package org.bayeux.server.ext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.bayeux.server.ext.AckWire.ACK_HANDSHAKE_EXT;
import static org.bayeux.server.ext.AckWire.ackOf;
import static org.bayeux.server.ext.AckWire.await;
import static org.bayeux.server.ext.AckWire.connect;
import static org.bayeux.server.ext.AckWire.firstConnect;
import static org.bayeux.server.ext.AckWire.textsOf;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import org.bayeux.api.server.ServerSession;
import org.bayeux.server.config.BayeuxServerConfig;
import org.bayeux.server.test.EngineHarness;
import org.bayeux.server.test.TestClient;
import org.bayeux.server.test.TestResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The {@code ack} extension on the wire: conformance scenarios C39 to C41 of BAYEUX.md, the memory limit, and
 * sessions that do not ask for acks.
 *
 * <p>The test transport handles a batch on the calling thread, so a connect answered at once is already answered
 * when {@code send} returns, and a held one is not: "held" and "answered at once" are checked without timing.</p>
 */
class AcknowledgedMessagesExtensionTest {
    private static final String CHANNEL = "/chat/a";

    private EngineHarness harness;

    @AfterEach
    void stop() {
        if (harness != null) {
            harness.close();
        }
    }

    private void start(Consumer<BayeuxServerConfig.Builder> configure) {
        harness = EngineHarness.start(builder -> {
            builder.timeout(Duration.ofMillis(1000));
            configure.accept(builder);
        });
        harness.server().addExtension(new AcknowledgedMessagesExtension());
    }

    private void start() {
        start(builder -> { });
    }

    /** @return a handshaken ack client, first connect done (batch 1), subscribed to {@link #CHANNEL} */
    private TestClient ackClient(TestClient client) {
        Map<String, Object> handshake = client.handshake(ACK_HANDSHAKE_EXT);
        assertThat(handshake.get("successful")).isEqualTo(Boolean.TRUE);
        assertThat(handshake.get("ext")).isEqualTo(Map.of("ack", Boolean.TRUE));
        assertThat(ackOf(await(client.send(firstConnect(client, 0))))).isEqualTo(1);
        assertThat(client.subscribe(CHANNEL).get("successful")).isEqualTo(Boolean.TRUE);
        return client;
    }

    private TestClient publisher() {
        TestClient publisher = harness.newClient();
        publisher.handshake();
        publisher.firstConnect();
        return publisher;
    }

    private static void publish(TestClient publisher, String text) {
        TestResponse response = publisher.publish(CHANNEL, "{\"text\":\"" + text + "\"}");
        assertThat(response.single(CHANNEL).get("successful")).as("publish reply %s", response).isEqualTo(Boolean.TRUE);
    }

    // ---- C39 ----------------------------------------------------------------------------------------------------

    @Test
    void c39HandshakeNegotiatesAckAndConnectRepliesAreNumbered() {
        start();
        TestClient client = ackClient(harness.newClient());
        ServerSession session = harness.server().getSession(client.clientId());
        assertThat(session.isMetaConnectDeliveryOnly()).isTrue();
        assertThat(AcknowledgedMessagesExtension.isAcknowledging(session)).isTrue();
        TestClient publisher = publisher();

        CompletableFuture<TestResponse> held = client.send(connect(client, 1));
        assertThat(held).isNotDone();
        publish(publisher, "M1");
        TestResponse second = await(held);
        assertThat(textsOf(second)).containsExactly("M1");
        assertThat(ackOf(second)).isEqualTo(2);

        // Nothing to send: held for the whole timeout, and still numbered.
        CompletableFuture<TestResponse> idle = client.send(connect(client, 2));
        assertThat(idle).isNotDone();
        TestResponse third = await(idle);
        assertThat(third.deliveries()).isEmpty();
        assertThat(ackOf(third)).isEqualTo(3);
    }

    @Test
    void c39OverWebSocketMessagesTravelOnlyInsideConnectReplyFrames() {
        start();
        TestClient client = ackClient(harness.newSocketClient());
        TestClient publisher = publisher();

        CompletableFuture<TestResponse> held = client.send(connect(client, 1));
        assertThat(held).isNotDone();
        publish(publisher, "M1");
        publish(publisher, "M2");
        // M1 woke the held connect: one frame with M1 then the reply. M2 was not pushed: it waits for a connect.
        TestResponse frame = await(held);
        assertThat(frame.messages()).hasSize(2);
        assertThat(textsOf(frame)).containsExactly("M1");
        assertThat(ackOf(frame)).isEqualTo(2);
        assertThat(client.frames()).isEmpty();

        TestResponse next = await(client.send(connect(client, 2)));
        assertThat(next.messages()).hasSize(2);
        assertThat(textsOf(next)).containsExactly("M2");
        assertThat(ackOf(next)).isEqualTo(3);
        assertThat(client.frames()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ",\"ext\":{}", ",\"ext\":{\"ack\":false}", ",\"ext\":{\"ack\":\"true\"}",
            ",\"ext\":{\"ack\":{\"enabled\":true}}"})
    void anythingButTrueLeavesAcksOff(String handshakeExt) {
        start();
        TestClient client = harness.newClient();
        Map<String, Object> handshake = client.handshake(handshakeExt);
        assertThat(handshake.get("successful")).isEqualTo(Boolean.TRUE);
        assertThat(handshake).doesNotContainKey("ext");
        ServerSession session = harness.server().getSession(client.clientId());
        assertThat(session.isMetaConnectDeliveryOnly()).isFalse();
        assertThat(AcknowledgedMessagesExtension.isAcknowledging(session)).isFalse();
        Map<String, Object> reply = client.call(firstConnect(client, 0)).single("/meta/connect");
        assertThat(reply.get("successful")).isEqualTo(Boolean.TRUE);
        assertThat(reply).doesNotContainKey("ext");
    }

    @Test
    void addingTheExtensionTwiceStillGivesOneStatePerSession() {
        start();
        harness.server().addExtension(new AcknowledgedMessagesExtension());
        TestClient client = ackClient(harness.newClient());
        ServerSession session = harness.server().getSession(client.clientId());
        assertThat(session.getExtensions()).filteredOn(AcknowledgedSession.class::isInstance).hasSize(1);
        CompletableFuture<TestResponse> held = client.send(connect(client, 1));
        publish(publisher(), "M1");
        TestResponse response = await(held);
        assertThat(textsOf(response)).containsExactly("M1");
        assertThat(ackOf(response)).isEqualTo(2);
    }

    // ---- C40 ----------------------------------------------------------------------------------------------------

    @Test
    void c40LostReplyIsResentAtOnceBeforeNewerMessages() {
        start();
        TestClient client = ackClient(harness.newClient());
        TestClient publisher = publisher();

        CompletableFuture<TestResponse> held = client.send(connect(client, 1));
        publish(publisher, "M1");
        TestResponse lost = await(held);
        assertThat(textsOf(lost)).containsExactly("M1");
        long k = ackOf(lost);
        assertThat(k).isEqualTo(2);

        // The client never saw batch k: it acknowledges k-1 again, and is answered at once, not after a hold.
        CompletableFuture<TestResponse> retry = client.send(connect(client, k - 1));
        assertThat(retry).isDone();
        TestResponse resent = await(retry);
        assertThat(textsOf(resent)).containsExactly("M1");
        assertThat(ackOf(resent)).isEqualTo(3);

        // That reply is lost too, and a newer message arrives meanwhile: M1 still comes first.
        publish(publisher, "M2");
        TestResponse both = await(client.send(connect(client, k - 1)));
        assertThat(textsOf(both)).containsExactly("M1", "M2");
        assertThat(ackOf(both)).isEqualTo(4);

        // Acknowledged: the next connect is held, and carries only what is new.
        CompletableFuture<TestResponse> afterAck = client.send(connect(client, 4));
        assertThat(afterAck).isNotDone();
        publish(publisher, "M3");
        TestResponse fresh = await(afterAck);
        assertThat(textsOf(fresh)).containsExactly("M3");
        assertThat(ackOf(fresh)).isEqualTo(5);
    }

    // ---- C41 ----------------------------------------------------------------------------------------------------

    @Test
    void c41AcknowledgedBatchesAreNeverResentAndRedeliveryWorksOnAFreshSocket() {
        start();
        TestClient client = ackClient(harness.newSocketClient());
        TestClient publisher = publisher();

        CompletableFuture<TestResponse> held = client.send(connect(client, 1));
        publish(publisher, "M1");
        TestResponse received = await(held);
        assertThat(textsOf(received)).containsExactly("M1");
        assertThat(ackOf(received)).isEqualTo(2);

        // Batch 2 (M1) is acknowledged. M2's frame is sent, but the connection is cut before the client reads it.
        held = client.send(connect(client, 2));
        assertThat(held).isNotDone();
        publish(publisher, "M2");
        TestResponse lost = await(held);
        assertThat(textsOf(lost)).containsExactly("M2");
        client.dropSocket();

        // A new socket, no handshake, no advice: answered at once with M2, never with M1.
        TestClient reopened = client.reopenSocket();
        CompletableFuture<TestResponse> retry = reopened.send(connect(reopened, 2));
        assertThat(retry).isDone();
        TestResponse resent = await(retry);
        assertThat(textsOf(resent)).containsExactly("M2");
        long acknowledged = ackOf(resent);
        assertThat(acknowledged).isEqualTo(4);

        held = reopened.send(connect(reopened, acknowledged));
        assertThat(held).isNotDone();
        publish(publisher, "M3");
        TestResponse fresh = await(held);
        assertThat(textsOf(fresh)).containsExactly("M3");
        assertThat(ackOf(fresh)).isEqualTo(5);
        assertThat(reopened.frames()).isEmpty();
    }

    @Test
    void anAckAboveEveryIssuedBatchAcknowledgesThemAllButNoFutureBatch() {
        start();
        TestClient client = ackClient(harness.newClient());
        TestClient publisher = publisher();

        CompletableFuture<TestResponse> held = client.send(connect(client, 1));
        publish(publisher, "M1");
        assertThat(ackOf(await(held))).isEqualTo(2);

        held = client.send(connect(client, 1000));
        assertThat(held).isNotDone();
        publish(publisher, "M2");
        TestResponse next = await(held);
        assertThat(textsOf(next)).containsExactly("M2");
        assertThat(ackOf(next)).isEqualTo(3);

        // Batch 3 was issued after the 1000 arrived, so it is not acknowledged by it: losing it resends M2.
        TestResponse resent = await(client.send(connect(client, 2)));
        assertThat(textsOf(resent)).containsExactly("M2");
        assertThat(ackOf(resent)).isEqualTo(4);
    }

    // ---- memory limit -------------------------------------------------------------------------------------------

    /** Fills a session with maxQueue=4: M1 sent and not acknowledged, M2 to M4 queued, M5 refused. */
    private TestClient overflowedClient(TestClient publisher) {
        TestClient client = ackClient(harness.newClient());
        CompletableFuture<TestResponse> held = client.send(connect(client, 1));
        publish(publisher, "M1");
        assertThat(textsOf(await(held))).containsExactly("M1");
        publish(publisher, "M2");
        publish(publisher, "M3");
        publish(publisher, "M4");
        ServerSession session = harness.server().getSession(client.clientId());
        assertThat(session.getQueueSize()).isEqualTo(3);
        // One unacknowledged plus three queued reach maxQueue: M5 is refused although the queue alone has room.
        publish(publisher, "M5");
        assertThat(session.getQueueSize()).isEqualTo(3);
        return client;
    }

    @Test
    void unacknowledgedMessagesCountTowardMaxQueueAndTheSessionEndsAtTheNextMessage() {
        start(builder -> builder.maxQueue(4));
        TestClient publisher = publisher();
        TestClient client = overflowedClient(publisher);
        assertThat(harness.server().getSession(client.clientId())).isNotNull();

        publish(publisher, "M6");
        assertThat(harness.server().getSession(client.clientId())).isNull();
        Map<String, Object> reply = client.call(connect(client, 1)).single("/meta/connect");
        assertThat(reply.get("error")).isEqualTo("402::session_unknown");
    }

    @Test
    void unacknowledgedBytesCountTowardMaxQueueBytes() {
        start(builder -> builder.maxQueueBytes(4096));
        TestClient publisher = publisher();
        TestClient client = ackClient(harness.newClient());
        String kilobyte = "k".repeat(1000);
        CompletableFuture<TestResponse> held = client.send(connect(client, 1));
        publish(publisher, "M1" + kilobyte);
        assertThat(textsOf(await(held))).containsExactly("M1" + kilobyte);
        publish(publisher, "M2" + kilobyte);
        publish(publisher, "M3" + kilobyte);
        ServerSession session = harness.server().getSession(client.clientId());
        assertThat(session.getQueueSize()).isEqualTo(2);
        // One unacknowledged and two queued kilobytes leave no room for a fourth under 4096 bytes, although the
        // queue alone would have it: refused, and the session ends at its next message.
        publish(publisher, "M4" + kilobyte);
        assertThat(session.getQueueSize()).isEqualTo(2);
        publish(publisher, "M5");
        assertThat(harness.server().getSession(client.clientId())).isNull();
    }

    @Test
    void anOverflowedSessionEndsWhenTheClientNextConnects() {
        start(builder -> builder.maxQueue(4));
        TestClient client = overflowedClient(publisher());

        Map<String, Object> reply = client.call(connect(client, 2)).single("/meta/connect");
        assertThat(reply.get("successful")).isEqualTo(Boolean.FALSE);
        assertThat(reply.get("error")).isEqualTo("402::session_unknown");
        @SuppressWarnings("unchecked")
        Map<String, Object> advice = (Map<String, Object>) reply.get("advice");
        assertThat(advice).containsEntry("reconnect", "handshake");
        assertThat(harness.server().getSession(client.clientId())).isNull();
    }

    @Test
    void withEverythingAcknowledgedTheQueueAloneCountsTowardMaxQueue() {
        start(builder -> builder.maxQueue(4));
        TestClient client = ackClient(harness.newClient());
        TestClient publisher = publisher();
        CompletableFuture<TestResponse> held = client.send(connect(client, 1));
        publish(publisher, "M1");
        long acknowledged = ackOf(await(held));

        // M1 is acknowledged by this connect, which is answered at once (timeout 0) so that M2 to M5 queue up.
        TestResponse empty = client.call("[" + client.connectMessage(
                ",\"advice\":{\"timeout\":0},\"ext\":{\"ack\":" + acknowledged + "}") + "]");
        assertThat(empty.deliveries()).isEmpty();
        for (String text : new String[] {"M2", "M3", "M4", "M5"}) {
            publish(publisher, text);
        }
        TestResponse all = await(client.send(connect(client, ackOf(empty))));
        assertThat(textsOf(all)).containsExactly("M2", "M3", "M4", "M5");
    }

    // ---- sessions without ack -----------------------------------------------------------------------------------

    @Test
    void aSessionWithoutAckKeepsPiggyBackingOverHttp() {
        start();
        TestClient client = harness.newClient();
        client.handshake();
        client.firstConnect();
        client.subscribe(CHANNEL);
        TestResponse own = client.publish(CHANNEL, "{\"text\":\"mine\"}");
        // Its own copy rides along with the publish reply, before it.
        assertThat(own.messages()).hasSize(2);
        assertThat(textsOf(own)).containsExactly("mine");
        assertThat(own.messages().get(1).get("successful")).isEqualTo(Boolean.TRUE);
    }

    @Test
    void aSessionWithoutAckKeepsPushesOverWebSocket() {
        start();
        TestClient client = harness.newSocketClient();
        client.handshake();
        client.firstConnect();
        client.subscribe(CHANNEL);
        TestClient publisher = publisher();

        CompletableFuture<TestResponse> nextFrame = client.send("[" + client.connectMessage("") + "]");
        publish(publisher, "M1");
        // The first frame after the connect is the pushed delivery alone; the connect stays held.
        TestResponse pushed = await(nextFrame);
        assertThat(pushed.messages()).hasSize(1);
        assertThat(textsOf(pushed)).containsExactly("M1");

        // An ack session on the same server is not changed by it, nor the other way round.
        TestClient acking = ackClient(harness.newClient());
        CompletableFuture<TestResponse> held = acking.send(connect(acking, 1));
        publish(publisher, "M2");
        assertThat(textsOf(await(held))).containsExactly("M2");
        assertThat(textsOf(client.nextFrame())).containsExactly("M2");
    }
}
