package org.bayeux.transport.jetty;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.bayeux.api.Promise;
import org.bayeux.api.server.ServerSession;
import org.bayeux.server.QueueLimitCounters;
import org.bayeux.server.config.BayeuxServerConfig;
import org.bayeux.server.config.BayeuxServerConfig.MaxQueuePolicy;
import org.bayeux.testsupport.PausableProxy;
import org.bayeux.transport.http.TransportConfig;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.websocket.client.WebSocketClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Clients that stop reading, on a real server: what waits for them is bounded in bytes ({@code maxQueueBytes}), the
 * max-queue policy trims or ends their session, a socket that accepts nothing is dropped after
 * {@code wsWriteStallTimeout}, and the other clients are served all along.
 */
class SlowConsumerTest {
    private static final int MIB = 1024 * 1024;
    /** The byte budget of each session in these tests. */
    private static final int BUDGET = 2 * MIB;
    /** One published message: about half a mebibyte of JSON. */
    private static final String PAD = "x".repeat(MIB / 2);

    private HttpTestServer server;
    private WebSocketClient webSockets;
    private PausableProxy proxy;

    private void start(Consumer<BayeuxServerConfig.Builder> engineConfig,
            Consumer<TransportConfig.Builder> transportConfig) throws Exception {
        server = new HttpTestServer("jackson", engine -> {
            engine.timeout(Duration.ofSeconds(60)).maxInterval(Duration.ofSeconds(60)).maxQueueBytes(BUDGET);
            engineConfig.accept(engine);
        }, transportConfig);
        webSockets = new WebSocketClient();
        // Jetty's client accepts 64 KiB messages by default; these tests send half a mebibyte at a time.
        webSockets.setMaxTextMessageSize(4L * MIB);
        webSockets.start();
        proxy = new PausableProxy(server.connector.getLocalPort());
    }

    @AfterEach
    void stop() throws Exception {
        if (proxy != null) {
            proxy.close();
        }
        if (webSockets != null) {
            webSockets.stop();
        }
        if (server != null) {
            server.close();
        }
    }

    private static ConditionFactory await() {
        return Awaitility.await().atMost(Duration.ofSeconds(15)).pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(10));
    }

    private BayeuxHandler handler() {
        return server.server.getDescendant(BayeuxHandler.class);
    }

    private QueueLimitCounters counters() {
        return server.engine.queueLimitCounters();
    }

    /** A WebSocket client subscribed to {@code /room} with its connect held, directly or through the proxy. */
    private WsClient subscribedSocket(boolean throughProxy) throws Exception {
        int port = throughProxy ? proxy.port() : server.connector.getLocalPort();
        WsClient socket = WsClient.open(webSockets, URI.create("ws://127.0.0.1:" + port + "/bayeux"), server.codec());
        socket.handshake();
        socket.connectNow();
        assertThat(socket.subscribe("/room")).containsEntry("successful", true);
        socket.send(socket.connectMessage(""));
        await().until(() -> server.engine.isConnectHeld(server.engine.getSession(socket.clientId)));
        return socket;
    }

    /** Reads a reading client's frames as they come, keeping only the count of deliveries. */
    private int drainDeliveries(WsClient socket, int expected) throws Exception {
        int received = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (received < expected && System.nanoTime() < deadline) {
            String text = socket.frames.poll(100, TimeUnit.MILLISECONDS);
            if (text == null) {
                continue;
            }
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> messages = (List<Map<String, Object>>) server.codec().parse(text);
            for (Map<String, Object> message : messages) {
                if ("/room".equals(message.get("channel"))) {
                    received++;
                }
            }
        }
        return received;
    }

    /**
     * Publishes half-mebibyte messages to {@code /room}, each once the reading client has received the one before,
     * as a publisher paced by its fastest readers would.
     */
    private void publishPaced(WsClient reader, int count) throws Exception {
        for (int i = 0; i < count; i++) {
            server.engine.getChannel("/room").publish(null, Map.of("i", i, "pad", PAD), Promise.noop());
            assertThat(drainDeliveries(reader, 1)).as("delivery %d to the reading client", i).isEqualTo(1);
        }
    }

    private static long usedHeapAfterGc() {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long least = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            System.gc();
            least = Math.min(least, memory.getHeapMemoryUsage().getUsed());
        }
        return least;
    }

    @Test
    void aPausedWebSocketReaderKeepsOnlyItsBudgetAndItsOldestMessagesAreDropped() throws Exception {
        start(engine -> engine.maxQueuePolicy(MaxQueuePolicy.DROP_OLDEST), transport -> { });
        WsClient paused = subscribedSocket(true);
        WsClient reading = subscribedSocket(false);
        ServerSession pausedSession = server.engine.getSession(paused.clientId);
        long before = usedHeapAfterGc();

        proxy.pause();
        // 80 messages of half a mebibyte: 40 MiB of JSON, twenty times the budget.
        publishPaced(reading, 80);

        long grown = usedHeapAfterGc() - before;
        assertThat(pausedSession.getQueueBytes()).isBetween(1L, (long) BUDGET);
        assertThat(pausedSession.isHandshook()).isTrue();
        assertThat(counters().byteLimitHits()).isPositive();
        assertThat(counters().droppedMessages()).isPositive();
        // The budget, what the socket holds (a frame being written), and the slack of a garbage-collected heap;
        // without the bound the paused reader would keep tens of mebibytes.
        assertThat(grown).as("heap growth in bytes").isLessThan(4L * BUDGET + 4L * MIB);

        proxy.resume();
        // The newest message was kept: it arrives once the reader reads again.
        await().until(() -> paused.frames.stream().anyMatch(text -> text.contains("\"i\":79")));
    }

    @Test
    void aPausedWebSocketReaderIsDisconnectedAtItsBudgetAndItsSocketDroppedWhenItStalls() throws Exception {
        start(engine -> engine.maxQueuePolicy(MaxQueuePolicy.DISCONNECT),
                transport -> transport.set(TransportConfig.WS_WRITE_STALL_TIMEOUT, Duration.ofSeconds(1)));
        WsClient paused = subscribedSocket(true);
        WsClient reading = subscribedSocket(false);
        assertThat(handler().getWebSocketCount()).isEqualTo(2);

        proxy.pause();
        publishPaced(reading, 40);

        await().until(() -> server.engine.getSession(paused.clientId) == null);
        assertThat(counters().disconnectedSessions()).isEqualTo(1);
        assertThat(server.engine.getSession(reading.clientId)).isNotNull();
        // Its socket still held bytes it did not take: the stall timeout drops it.
        await().until(() -> handler().getWebSocketCount() == 1);
        assertThat(handler().getWebSocketWriteStallDrops()).isEqualTo(1);
    }

    @Test
    void aSocketThatAcceptsNoBytesIsDroppedAfterTheWriteStallTimeoutAndItsSessionExpires() throws Exception {
        start(engine -> engine.maxQueueBytes(256 * MIB).maxInterval(Duration.ofMillis(500))
                .sweepPeriod(Duration.ofMillis(50)),
                transport -> transport.set(TransportConfig.WS_WRITE_STALL_TIMEOUT, Duration.ofSeconds(1)));
        WsClient stalled = subscribedSocket(true);
        WsClient reading = subscribedSocket(false);
        proxy.pause();
        long start = System.nanoTime();
        // Enough to fill the kernel's buffers between the server and the paused proxy, well within the budget.
        publishPaced(reading, 60);

        await().until(() -> handler().getWebSocketCount() == 1);
        long droppedAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(droppedAfterMs).isGreaterThanOrEqualTo(1000);
        assertThat(handler().getWebSocketWriteStallDrops()).isEqualTo(1);
        assertThat(handler().getWebSocketSlowPeerDrops()).isZero();
        // The session lost its carrier: it expires after maxInterval, as for any dead connection.
        await().until(() -> server.engine.getSession(stalled.clientId) == null);
        assertThat(server.engine.getSession(reading.clientId)).isNotNull();
        publishPaced(reading, 1);
    }

    // ---- long-polling ----------------------------------------------------------------------------------------

    private List<Map<String, Object>> httpCall(String json) {
        ContentResponse response = server.send(server.post("/bayeux", json));
        assertThat(response.getStatus()).isEqualTo(200);
        return server.messages(response);
    }

    /** A long-polling session subscribed to {@code /room} that never polls again. */
    private String silentLongPollingSession() {
        String clientId = (String) httpCall("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"supportedConnectionTypes\":[\"long-polling\"]}]").get(0).get("clientId");
        httpCall(connect(clientId));
        assertThat(httpCall("[{\"channel\":\"/meta/subscribe\",\"subscription\":\"/room\",\"clientId\":\""
                + clientId + "\"}]").get(0)).containsEntry("successful", true);
        return clientId;
    }

    private static String connect(String clientId) {
        return "[{\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\",\"clientId\":\"" + clientId
                + "\",\"advice\":{\"timeout\":0}}]";
    }

    @Test
    void aLongPollingSessionThatDoesNotPollKeepsOnlyItsBudget() throws Exception {
        start(engine -> engine.maxQueuePolicy(MaxQueuePolicy.DROP_OLDEST), transport -> { });
        String silent = silentLongPollingSession();
        WsClient reading = subscribedSocket(false);
        ServerSession session = server.engine.getSession(silent);
        long before = usedHeapAfterGc();

        publishPaced(reading, 60);

        long grown = usedHeapAfterGc() - before;
        assertThat(session.getQueueBytes()).isBetween((long) BUDGET - MIB, (long) BUDGET);
        assertThat(grown).as("heap growth in bytes").isLessThan(4L * BUDGET + 4L * MIB);
        assertThat(counters().droppedMessages()).isGreaterThanOrEqualTo(56);
        // It polls at last: the newest messages are there, one response at a time.
        AtomicInteger newest = new AtomicInteger(-1);
        for (int poll = 0; poll < 10 && session.getQueueSize() > 0; poll++) {
            for (Map<String, Object> message : httpCall(connect(silent))) {
                if ("/room".equals(message.get("channel"))) {
                    newest.set(((Number) ((Map<?, ?>) message.get("data")).get("i")).intValue());
                }
            }
        }
        assertThat(newest.get()).isEqualTo(59);
    }

    @Test
    void aLongPollingSessionThatDoesNotPollIsDisconnectedAtItsBudget() throws Exception {
        start(engine -> engine.maxQueuePolicy(MaxQueuePolicy.DISCONNECT), transport -> { });
        String silent = silentLongPollingSession();
        WsClient reading = subscribedSocket(false);

        publishPaced(reading, 10);

        assertThat(server.engine.getSession(silent)).isNull();
        assertThat(counters().disconnectedSessions()).isEqualTo(1);
        assertThat(httpCall(connect(silent)).get(0)).containsEntry("error", "402::session_unknown");
    }
}
