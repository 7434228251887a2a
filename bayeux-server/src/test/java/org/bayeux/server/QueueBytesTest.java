package org.bayeux.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.bayeux.api.Promise;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.server.config.BayeuxServerConfig;
import org.bayeux.server.config.BayeuxServerConfig.MaxQueuePolicy;
import org.bayeux.server.test.EngineHarness;
import org.bayeux.server.test.TestClient;
import org.bayeux.server.test.TestResponse;
import org.bayeux.server.transport.Carrier;
import org.bayeux.server.transport.CarrierCapabilities;
import org.bayeux.server.transport.FlowControl;
import org.bayeux.server.transport.OutgoingMessages;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The queue limit in bytes ({@code maxQueueBytes}): accounting, the policies, the carrier's backlog. */
class QueueBytesTest {
    /** A JSON string of about one kilobyte. */
    private static final String KILOBYTE = "\"" + "x".repeat(1000) + "\"";

    private EngineHarness engine;

    @AfterEach
    void stop() {
        if (engine != null) {
            engine.close();
        }
    }

    private EngineHarness start(int maxQueueBytes, MaxQueuePolicy policy) {
        engine = EngineHarness.start(config -> config.maxQueueBytes(maxQueueBytes).maxQueuePolicy(policy));
        return engine;
    }

    private static TestClient connected(EngineHarness on) {
        TestClient client = on.newClient();
        client.handshake();
        client.firstConnect();
        return client;
    }

    private static List<Object> dataOf(TestResponse response) {
        List<Object> data = new ArrayList<>();
        response.deliveries().forEach(m -> data.add(m.get("data")));
        return data;
    }

    private static String numbered(int i) {
        return "\"" + i + "x".repeat(1000) + "\"";
    }

    private TestResponse drainNow(TestClient client) {
        return client.call("[" + client.connectMessage(",\"advice\":{\"timeout\":0}") + "]");
    }

    @Test
    void queueBytesAreTheJsonOfTheQueuedMessagesAndReturnToZeroOnDelivery() {
        start(BayeuxServerConfig.MAX_QUEUE_BYTES.defaultValue(), MaxQueuePolicy.DISCONNECT);
        TestClient a = connected(engine);
        TestClient b = connected(engine);
        a.subscribe("/q");
        ServerSession session = engine.server().getSession(a.clientId());
        b.publish("/q", KILOBYTE);
        long one = session.getQueueBytes();
        // The data, the channel and the id: a little more than the kilobyte.
        assertThat(one).isBetween(1000L, 1200L);
        b.publish("/q", KILOBYTE);
        b.publish("/q", KILOBYTE);
        assertThat(session.getQueueBytes()).isEqualTo(3 * one);
        TestResponse response = drainNow(a);
        assertThat(response.deliveries()).hasSize(3);
        // "[m1,m2,m3,reply]": each message and its comma, as counted.
        int replyLength = response.text().getBytes(StandardCharsets.UTF_8).length - (int) (3 * one) - 1;
        assertThat(replyLength).isBetween(20, 400);
        assertThat(session.getQueueBytes()).isZero();
    }

    @Test
    void dropOldestKeepsTheQueueWithinMaxQueueBytes() {
        start(4096, MaxQueuePolicy.DROP_OLDEST);
        TestClient a = connected(engine);
        TestClient b = connected(engine);
        a.subscribe("/q");
        ServerSession session = engine.server().getSession(a.clientId());
        for (int i = 1; i <= 10; i++) {
            b.publish("/q", numbered(i));
            assertThat(session.getQueueBytes()).isLessThanOrEqualTo(4096);
        }
        List<Object> kept = dataOf(drainNow(a));
        assertThat(kept).hasSize(3).containsExactly(numbered(8).replace("\"", ""), numbered(9).replace("\"", ""),
                numbered(10).replace("\"", ""));
        QueueLimitCounters counters = engine.server().queueLimitCounters();
        assertThat(counters.byteLimitHits()).isEqualTo(7);
        assertThat(counters.countLimitHits()).isZero();
        assertThat(counters.droppedMessages()).isEqualTo(7);
    }

    @Test
    void dropNewestRefusesWhatDoesNotFit() {
        start(4096, MaxQueuePolicy.DROP_NEWEST);
        TestClient a = connected(engine);
        TestClient b = connected(engine);
        a.subscribe("/q");
        for (int i = 1; i <= 10; i++) {
            b.publish("/q", numbered(i));
        }
        assertThat(dataOf(drainNow(a))).containsExactly(numbered(1).replace("\"", ""),
                numbered(2).replace("\"", ""), numbered(3).replace("\"", ""));
        assertThat(engine.server().queueLimitCounters().droppedMessages()).isEqualTo(7);
    }

    @Test
    void disconnectPolicyEndsTheSessionAtTheByteLimit() {
        start(4096, MaxQueuePolicy.DISCONNECT);
        TestClient a = connected(engine);
        TestClient b = connected(engine);
        a.subscribe("/q");
        for (int i = 1; i <= 4; i++) {
            b.publish("/q", KILOBYTE);
        }
        assertThat(engine.server().getSession(a.clientId())).isNull();
        assertThat(engine.server().getSession(b.clientId())).isNotNull();
        assertThat(engine.server().queueLimitCounters().disconnectedSessions()).isEqualTo(1);
        Map<String, Object> reply = a.call("[" + a.connectMessage("") + "]").single("/meta/connect");
        assertThat(reply).containsEntry("error", "402::session_unknown");
    }

    @Test
    void maxQueueListenerDecidesAtTheByteLimitAndItsTrimIsCounted() {
        start(4096, MaxQueuePolicy.DISCONNECT);
        TestClient a = connected(engine);
        TestClient b = connected(engine);
        a.subscribe("/q");
        ServerSession session = engine.server().getSession(a.clientId());
        List<Integer> seenSizes = new CopyOnWriteArrayList<>();
        session.addMaxQueueListener((s, queue, sender, message) -> {
            seenSizes.add(queue.size());
            queue.poll();
            return true;
        });
        for (int i = 1; i <= 6; i++) {
            b.publish("/q", numbered(i));
        }
        assertThat(seenSizes).containsExactly(3, 3, 3);
        assertThat(session.getQueueBytes()).isLessThanOrEqualTo(4096);
        assertThat(dataOf(drainNow(a))).containsExactly(numbered(4).replace("\"", ""),
                numbered(5).replace("\"", ""), numbered(6).replace("\"", ""));
    }

    @Test
    void aMessageLargerThanTheLimitStillGoesWhenNothingWaits() {
        start(1024, MaxQueuePolicy.DROP_NEWEST);
        TestClient a = connected(engine);
        TestClient b = connected(engine);
        a.subscribe("/q");
        String big = "\"" + "y".repeat(5000) + "\"";
        b.publish("/q", big);
        b.publish("/q", big);
        assertThat(dataOf(drainNow(a))).containsExactly("y".repeat(5000));
    }

    @Test
    void perSessionMaxQueueBytesOverridesTheServers() {
        start(BayeuxServerConfig.MAX_QUEUE_BYTES.defaultValue(), MaxQueuePolicy.DROP_NEWEST);
        TestClient a = connected(engine);
        TestClient b = connected(engine);
        a.subscribe("/q");
        ServerSession session = engine.server().getSession(a.clientId());
        session.setMaxQueueBytes(2048);
        assertThat(session.getMaxQueueBytes()).isEqualTo(2048);
        for (int i = 1; i <= 5; i++) {
            b.publish("/q", KILOBYTE);
        }
        assertThat(session.getQueueSize()).isEqualTo(1);
        session.setMaxQueueBytes(-1);
        assertThat(session.getMaxQueueBytes()).isEqualTo(8 * 1024 * 1024);
    }

    @Test
    void theSocketBacklogCountsAndAPushWaitsForItToShrink() throws Exception {
        start(4096, MaxQueuePolicy.DROP_OLDEST);
        BacklogSocket socket = new BacklogSocket(engine.server());
        String clientId = socket.handshakeAndHold();
        TestClient b = connected(engine);
        ServerSession session = engine.server().getSession(clientId);

        socket.backlog = 3000;
        b.publish("/q", numbered(1));
        // The socket is behind: the message waits in the queue, where the policy can still reach it.
        assertThat(socket.sent).isEmpty();
        assertThat(session.getQueueSize()).isEqualTo(1);
        b.publish("/q", numbered(2));
        // Backlog 3000 plus two kilobytes is over 4096: the oldest queued one made room.
        assertThat(session.getQueueSize()).isEqualTo(1);
        assertThat(engine.server().queueLimitCounters().byteLimitHits()).isEqualTo(1);

        socket.backlog = 0;
        socket.resume();
        assertThat(socket.deliveredData()).containsExactly(numbered(2).replace("\"", ""));
        assertThat(session.getQueueSize()).isZero();
    }

    @Test
    void aMessageAloneIsEncodedOnceAndItsBytesSharedByEverySession() throws Exception {
        start(BayeuxServerConfig.MAX_QUEUE_BYTES.defaultValue(), MaxQueuePolicy.DISCONNECT);
        BacklogSocket first = new BacklogSocket(engine.server());
        BacklogSocket second = new BacklogSocket(engine.server());
        first.handshakeAndHold();
        second.handshakeAndHold();
        engine.server().getChannel("/q").publish(null, "shared", Promise.noop());
        assertThat(first.sent).hasSize(1);
        assertThat(second.sent).hasSize(1);
        byte[] firstBytes = engine.server().toJson(first.sent.get(0));
        byte[] secondBytes = engine.server().toJson(second.sent.get(0));
        assertThat(secondBytes).isSameAs(firstBytes);
    }

    @Test
    void aMessageThatCannotBeEncodedIsNotQueuedAndOthersStillAre() throws Exception {
        start(BayeuxServerConfig.MAX_QUEUE_BYTES.defaultValue(), MaxQueuePolicy.DISCONNECT);
        TestClient a = connected(engine);
        a.subscribe("/q");
        ServerSession session = engine.server().getSession(a.clientId());
        java.util.concurrent.CompletableFuture<Boolean> queued = new java.util.concurrent.CompletableFuture<>();
        session.deliver(null, "/q", new Object() {
            @Override
            public String toString() {
                return "not JSON";
            }
        }, Promise.of(queued::complete, queued::completeExceptionally));
        assertThat(queued.get(5, java.util.concurrent.TimeUnit.SECONDS)).isFalse();
        assertThat(session.getQueueSize()).isZero();
        connected(engine).publish("/q", KILOBYTE);
        assertThat(dataOf(drainNow(a))).hasSize(1);
    }

    /** A socket-like carrier whose write backlog the test sets, subscribed to {@code /q} with a connect held. */
    private static final class BacklogSocket implements Carrier, FlowControl {
        private static final CarrierCapabilities CAPABILITIES =
                CarrierCapabilities.of("websocket").holdingConnects().pushingWhileHeld().piggybacking();

        final BayeuxServerImpl server;
        final List<List<ServerMessage>> sent = new CopyOnWriteArrayList<>();
        volatile long backlog;
        volatile Runnable resume;

        BacklogSocket(BayeuxServerImpl server) {
            this.server = server;
        }

        String handshakeAndHold() throws Exception {
            handle("[{\"id\":\"1\",\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                    + "\"supportedConnectionTypes\":[\"websocket\"]}]");
            String clientId = (String) sent.get(0).get(0).get("clientId");
            handle("[{\"id\":\"2\",\"channel\":\"/meta/connect\",\"connectionType\":\"websocket\",\"clientId\":\""
                    + clientId + "\",\"advice\":{\"timeout\":0}}]");
            handle("[{\"id\":\"3\",\"channel\":\"/meta/subscribe\",\"subscription\":\"/q\",\"clientId\":\""
                    + clientId + "\"}]");
            handle("[{\"id\":\"4\",\"channel\":\"/meta/connect\",\"connectionType\":\"websocket\",\"clientId\":\""
                    + clientId + "\"}]");
            sent.clear();
            return clientId;
        }

        private void handle(String json) throws Exception {
            server.handle(server.parse(json), this).toCompletableFuture().get();
        }

        void resume() {
            Runnable waiting = resume;
            resume = null;
            assertThat(waiting).as("a deferred push").isNotNull();
            waiting.run();
        }

        List<Object> deliveredData() {
            List<Object> data = new ArrayList<>();
            for (List<ServerMessage> frame : sent) {
                for (ServerMessage message : frame) {
                    if (!message.isMeta()) {
                        data.add(message.getData());
                    }
                }
            }
            return data;
        }

        @Override
        public CarrierCapabilities capabilities() {
            return CAPABILITIES;
        }

        @Override
        public FlowControl flowControl() {
            return this;
        }

        @Override
        public void send(OutgoingMessages messages) {
            sent.add(TestClient.messagesOf(messages));
        }

        @Override
        public long pendingBytes() {
            return backlog;
        }

        @Override
        public boolean deferPush(Runnable resumePush) {
            if (backlog == 0) {
                return false;
            }
            resume = resumePush;
            return true;
        }
    }
}
