package org.bayeux.transport.jetty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.assertj.core.api.InstanceOfAssertFactories;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.bayeux.api.Promise;
import org.bayeux.api.server.ServerSession;
import org.bayeux.server.config.BayeuxServerConfig;
import org.bayeux.transport.http.TransportConfig;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.websocket.api.ExtensionConfig;
import org.eclipse.jetty.websocket.api.StatusCode;
import org.eclipse.jetty.websocket.api.exceptions.UpgradeException;
import org.eclipse.jetty.websocket.client.ClientUpgradeRequest;
import org.eclipse.jetty.websocket.client.WebSocketClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The WebSocket transport on a real Jetty server, with Jetty's WebSocket client and each JSON codec. */
class WebSocketTransportTest {
    private static final long TIMEOUT_MS = 1500;
    private static final Duration WAIT = Duration.ofSeconds(10);
    private HttpTestServer server;
    private WebSocketClient webSockets;

    private void start(String codec) throws Exception {
        start(codec, engine -> { }, transport -> { });
    }

    private void start(String codec, Consumer<BayeuxServerConfig.Builder> engineConfig,
            Consumer<TransportConfig.Builder> transportConfig) throws Exception {
        server = new HttpTestServer(codec, engine -> {
            engine.timeout(Duration.ofMillis(TIMEOUT_MS));
            engineConfig.accept(engine);
        }, transport -> {
            transport.allowedOrigins("http://app.example");
            transportConfig.accept(transport);
        });
        webSockets = new WebSocketClient();
        webSockets.start();
    }

    @AfterEach
    void stop() throws Exception {
        if (webSockets != null) {
            webSockets.stop();
        }
        if (server != null) {
            server.close();
        }
    }

    private URI wsUri(String path) {
        return URI.create("ws://127.0.0.1:" + server.connector.getLocalPort() + path);
    }

    private WsClient ws() throws Exception {
        return WsClient.open(webSockets, wsUri("/bayeux"), server.codec());
    }

    /** A socket whose upgrade carries a browser cookie of the test's choosing. */
    private WsClient socketOfBrowser(String browserId) throws Exception {
        ClientUpgradeRequest upgrade = new ClientUpgradeRequest(wsUri("/bayeux"));
        upgrade.setHeader("Cookie", "BAYEUX_BROWSER=" + browserId);
        return WsClient.open(webSockets, upgrade, server.codec());
    }

    /** A socket whose upgrade carries the cookies of the test's HTTP client. */
    private WsClient socketOfTheHttpClientsBrowser() throws Exception {
        ClientUpgradeRequest upgrade = new ClientUpgradeRequest(wsUri("/bayeux"));
        StringBuilder cookies = new StringBuilder();
        server.client.getHttpCookieStore().match(server.uri("/bayeux"))
                .forEach(cookie -> cookies.append(cookies.length() == 0 ? "" : "; ").append(cookie.getName())
                        .append('=').append(cookie.getValue()));
        upgrade.setHeader("Cookie", cookies.toString());
        return WsClient.open(webSockets, upgrade, server.codec());
    }

    private ServerSession session(String clientId) {
        return server.engine.getSession(clientId);
    }

    /** Polls often and from the start: the conditions waited for are usually met within milliseconds. */
    private static ConditionFactory await() {
        return Awaitility.await().atMost(WAIT).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(10));
    }

    private void awaitHeld(String clientId) {
        await().until(() -> session(clientId) != null && server.engine.isConnectHeld(session(clientId)));
    }

    private BayeuxHandler handler() {
        return server.server.getDescendant(BayeuxHandler.class);
    }

    // ---- long-polling helpers --------------------------------------------------------------------------------

    private List<Map<String, Object>> httpCall(String json) {
        ContentResponse response = server.send(server.post("/bayeux", json));
        assertThat(response.getStatus()).isEqualTo(200);
        return server.messages(response);
    }

    private Map<String, Object> httpHandshakeReply() {
        return httpCall("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":"
                + "[\"long-polling\"]}]").get(0);
    }

    private String httpHandshake() {
        return (String) httpHandshakeReply().get("clientId");
    }

    private static String lpConnect(String clientId, String extra) {
        return "[{\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\",\"clientId\":\"" + clientId + "\""
                + extra + "}]";
    }

    private void httpSubscribe(String clientId, String channel) {
        assertThat(httpCall("[{\"channel\":\"/meta/subscribe\",\"subscription\":\"" + channel + "\",\"clientId\":\""
                + clientId + "\"}]").get(0)).containsEntry("successful", true);
    }

    private void httpPublish(String clientId, String channel, String dataJson) {
        List<Map<String, Object>> replies = httpCall("[{\"channel\":\"" + channel + "\",\"data\":" + dataJson
                + ",\"clientId\":\"" + clientId + "\"}]");
        assertThat(replies.get(replies.size() - 1)).containsEntry("successful", true);
    }

    private static List<Object> channels(List<Map<String, Object>> messages) {
        List<Object> channels = new ArrayList<>();
        messages.forEach(message -> channels.add(message.get("channel")));
        return channels;
    }

    private static long millisSince(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    // ---- tests -----------------------------------------------------------------------------------------------

    @ParameterizedTest
    @ValueSource(strings = {"jackson", "jetty"})
    void handshakeOverWebSocketAdvertisesWebSocketFirst(String codec) throws Exception {
        start(codec);
        WsClient socket = ws();
        Map<String, Object> reply = socket.handshake();
        assertThat(reply).containsEntry("channel", "/meta/handshake").containsEntry("successful", true)
                .containsEntry("id", "1");
        assertThat(socket.clientId).isNotBlank();
        assertThat(reply.get("supportedConnectionTypes")).asInstanceOf(InstanceOfAssertFactories.LIST)
                .startsWith("websocket").contains("long-polling", "callback-polling");
        assertThat(httpHandshakeReply().get("supportedConnectionTypes")).asInstanceOf(InstanceOfAssertFactories.LIST)
                .startsWith("websocket");

        List<Map<String, Object>> connect = socket.connectNow();
        assertThat(connect).hasSize(1);
        assertThat(connect.get(0)).containsEntry("channel", "/meta/connect").containsEntry("successful", true)
                .containsKey("advice");
        assertThat(session(socket.clientId).getTransportName()).isEqualTo("websocket");
    }

    @ParameterizedTest
    @ValueSource(strings = {"jackson", "jetty"})
    void c36PushesArriveWhileTheConnectStaysHeldAndItsReplyIsTheHeartBeat(String codec) throws Exception {
        start(codec);
        WsClient a = ws();
        a.handshake();
        a.connectNow();
        assertThat(a.subscribe("/chat/a")).containsEntry("successful", true);
        String b = httpHandshake();

        long connectSent = System.nanoTime();
        a.send(a.connectMessage(""));
        awaitHeld(a.clientId);
        long published = System.nanoTime();
        httpPublish(b, "/chat/a", "{\"text\":\"hi\"}");
        List<Map<String, Object>> push = a.next();
        assertThat(millisSince(published)).isLessThan(TIMEOUT_MS / 2);
        assertThat(channels(push)).containsExactly("/chat/a");
        assertThat(push.get(0)).containsEntry("data", Map.of("text", "hi")).doesNotContainKeys("clientId", "id",
                "successful");
        assertThat(server.engine.isConnectHeld(session(a.clientId))).isTrue();

        List<Map<String, Object>> heartBeat = a.next();
        long held = millisSince(connectSent);
        assertThat(channels(heartBeat)).containsExactly("/meta/connect");
        // Nothing changed since the first connect: the client keeps the advice it has.
        assertThat(heartBeat.get(0)).containsEntry("successful", true).doesNotContainKey("advice");
        assertThat(held).isBetween(TIMEOUT_MS - 100, TIMEOUT_MS + 1000);
    }

    @ParameterizedTest
    @ValueSource(strings = {"jackson", "jetty"})
    void c37ASessionHandshakenOverHttpIsAcceptedOnAFreshSocket(String codec) throws Exception {
        start(codec);
        // The socket carries the browser cookie the HTTP handshake set, as a browser's (or Faye's) would.
        String subscriberId = httpHandshake();
        WsClient subscriber = socketOfTheHttpClientsBrowser();
        subscriber.clientId = subscriberId;
        assertThat(subscriber.subscribe("/chat/a")).containsEntry("successful", true)
                .containsEntry("subscription", "/chat/a");

        String connectorId = httpHandshake();
        WsClient connector = socketOfTheHttpClientsBrowser();
        connector.clientId = connectorId;
        List<Map<String, Object>> reply = connector.connectNow();
        assertThat(channels(reply)).containsExactly("/meta/connect");
        assertThat(reply.get(0)).containsEntry("successful", true);
    }

    @ParameterizedTest
    @ValueSource(strings = {"jackson", "jetty"})
    void c38AfterASocketDropsTheSessionContinuesOnANewSocket(String codec) throws Exception {
        start(codec);
        // Both sockets are of one browser: their upgrades carry its cookie, which proves the session is theirs.
        WsClient first = socketOfBrowser("browser000000038");
        first.handshake();
        first.connectNow();
        first.subscribe("/chat/a");
        first.send(first.connectMessage(""));
        awaitHeld(first.clientId);
        first.drop();
        // The engine learns of the drop: the held connect is released without a reply.
        await().until(() -> !server.engine.isConnectHeld(session(first.clientId)));

        String b = httpHandshake();
        httpPublish(b, "/chat/a", "{\"n\":1}");

        WsClient second = socketOfBrowser("browser000000038");
        second.clientId = first.clientId;
        long sent = System.nanoTime();
        List<Map<String, Object>> reply = second.connectNow();
        assertThat(millisSince(sent)).isLessThan(TIMEOUT_MS / 2);
        assertThat(channels(reply)).containsExactly("/chat/a", "/meta/connect");
        assertThat(reply.get(0)).containsEntry("data", Map.of("n", 1L));
        assertThat(reply.get(1)).containsEntry("successful", true);

        second.send(second.connectMessage(""));
        awaitHeld(second.clientId);
        httpPublish(b, "/chat/a", "{\"n\":2}");
        List<Map<String, Object>> push = second.next();
        assertThat(channels(push)).containsExactly("/chat/a");
        assertThat(push.get(0)).containsEntry("data", Map.of("n", 2L));
        assertThat(first.frames).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"jackson", "jetty"})
    void webSocketAndLongPollingClientsTalkBothWays(String codec) throws Exception {
        start(codec);
        WsClient ws = ws();
        ws.handshake();
        ws.connectNow();
        ws.subscribe("/chat/ws");
        ws.send(ws.connectMessage(""));
        awaitHeld(ws.clientId);

        String lp = httpHandshake();
        httpCall(lpConnect(lp, ",\"advice\":{\"timeout\":0}"));
        httpSubscribe(lp, "/chat/lp");
        CompletableFuture<ContentResponse> poll = server.sendAsync(server.post("/bayeux/connect", lpConnect(lp, "")));
        awaitHeld(lp);

        // WebSocket → long-polling: the publish reply comes back on the socket, the message ends the long poll.
        ws.publish("/chat/lp", "{\"from\":\"ws\"}");
        List<Map<String, Object>> publishReply = ws.next();
        assertThat(channels(publishReply)).containsExactly("/chat/lp");
        assertThat(publishReply.get(0)).containsEntry("successful", true).doesNotContainKey("data");
        List<Map<String, Object>> polled = server.messages(poll.get(WAIT.toSeconds(), TimeUnit.SECONDS));
        assertThat(channels(polled)).containsExactly("/chat/lp", "/meta/connect");
        assertThat(polled.get(0)).containsEntry("data", Map.of("from", "ws")).doesNotContainKeys("clientId", "id");

        // Long-polling → WebSocket: pushed on the socket at once.
        httpPublish(lp, "/chat/ws", "{\"from\":\"lp\"}");
        List<Map<String, Object>> push = ws.next();
        assertThat(channels(push)).containsExactly("/chat/ws");
        assertThat(push.get(0)).containsEntry("data", Map.of("from", "lp")).doesNotContainKeys("clientId", "id");
    }

    @ParameterizedTest
    @ValueSource(strings = {"jackson", "jetty"})
    void badInputClosesTheSocketWithACodeAndOthersAreStillServed(String codec) throws Exception {
        start(codec, engine -> engine.maxMessageSizeBytes(16 * 1024), transport -> { });
        WsClient malformed = ws();
        malformed.send("{not json");
        assertThat(malformed.awaitClose()).isEqualTo(StatusCode.SERVER_ERROR);

        WsClient empty = ws();
        empty.send("[]");
        assertThat(empty.awaitClose()).isEqualTo(StatusCode.SERVER_ERROR);

        WsClient batchedHandshake = ws();
        batchedHandshake.send("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":"
                + "[\"websocket\"]},{\"channel\":\"/meta/subscribe\",\"subscription\":\"/a\"}]");
        assertThat(batchedHandshake.awaitClose()).isEqualTo(StatusCode.SERVER_ERROR);

        WsClient binary = ws();
        binary.sendBinary("[{\"channel\":\"/meta/handshake\"}]".getBytes(StandardCharsets.UTF_8));
        assertThat(binary.awaitClose()).isEqualTo(StatusCode.BAD_DATA);

        WsClient oversized = ws();
        oversized.send("[{\"channel\":\"/a\",\"data\":\"" + "x".repeat(20 * 1024) + "\"}]");
        assertThat(oversized.awaitClose()).isEqualTo(StatusCode.MESSAGE_TOO_LARGE);

        WsClient good = ws();
        assertThat(good.handshake()).containsEntry("successful", true);
        assertThat(good.connectNow().get(0)).containsEntry("successful", true);
        assertThat(httpHandshakeReply()).containsEntry("successful", true);
        await().until(() -> handler().getWebSocketCount() == 1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"jackson", "jetty"})
    void aTextFrameThatIsNotUtf8IsClosedWith1007(String codec) throws Exception {
        start(codec);
        // Jetty's client only sends valid text: write the frame by hand.
        try (Socket raw = new Socket("127.0.0.1", server.connector.getLocalPort())) {
            raw.setSoTimeout((int) WAIT.toMillis());
            OutputStream out = raw.getOutputStream();
            out.write(("GET /bayeux HTTP/1.1\r\nHost: 127.0.0.1:" + server.connector.getLocalPort() + "\r\n"
                    + "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                    + "Sec-WebSocket-Version: 13\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            InputStream in = raw.getInputStream();
            StringBuilder head = new StringBuilder();
            while (!head.toString().endsWith("\r\n\r\n")) {
                head.append((char) in.read());
            }
            assertThat(head.toString()).startsWith("HTTP/1.1 101");
            byte[] payload = {'[', (byte) 0xC3, '(', ']'};
            byte[] mask = {1, 2, 3, 4};
            out.write(new byte[] {(byte) 0x81, (byte) (0x80 | payload.length)});
            out.write(mask);
            for (int i = 0; i < payload.length; i++) {
                out.write(payload[i] ^ mask[i % 4]);
            }
            out.flush();
            assertThat(in.read()).as("a close frame").isEqualTo(0x88);
            assertThat(in.read()).isGreaterThanOrEqualTo(2);
            assertThat((in.read() << 8) | in.read()).isEqualTo(StatusCode.BAD_PAYLOAD);
        }
        assertThat(ws().handshake()).containsEntry("successful", true);
    }

    @ParameterizedTest
    @ValueSource(strings = {"jackson", "jetty"})
    void compressedMessagesWorkAndTheirInflatedSizeIsLimited(String codec) throws Exception {
        start(codec, engine -> engine.maxMessageSizeBytes(16 * 1024), transport -> { });
        ClientUpgradeRequest request = new ClientUpgradeRequest(wsUri("/bayeux"));
        request.addExtensions("permessage-deflate");
        WsClient deflating = WsClient.open(webSockets, request, server.codec());
        assertThat(deflating.session().getUpgradeResponse().getExtensions())
                .extracting(ExtensionConfig::getName).contains("permessage-deflate");
        assertThat(deflating.handshake()).containsEntry("successful", true);
        assertThat(deflating.subscribe("/chat/a")).containsEntry("successful", true);
        deflating.publish("/chat/a", "{\"text\":\"" + "y".repeat(8 * 1024) + "\"}");
        List<Map<String, Object>> echo = deflating.next();
        assertThat(channels(echo)).containsExactly("/chat/a", "/chat/a");

        // 20 KiB that compress to a few hundred bytes still count as 20 KiB.
        deflating.send("[{\"channel\":\"/chat/a\",\"data\":\"" + "x".repeat(20 * 1024) + "\",\"clientId\":\""
                + deflating.clientId + "\"}]");
        assertThat(deflating.awaitClose()).isEqualTo(StatusCode.MESSAGE_TOO_LARGE);
    }

    @ParameterizedTest
    @ValueSource(strings = {"jackson", "jetty"})
    void anIdleSocketIsClosedAndItsSessionStartsToExpire(String codec) throws Exception {
        start(codec, engine -> engine.timeout(Duration.ofSeconds(60)),
                transport -> transport.set(TransportConfig.WS_IDLE_TIMEOUT, Duration.ofSeconds(1)));
        WsClient idle = ws();
        idle.handshake();
        idle.connectNow();
        idle.send(idle.connectMessage(""));
        awaitHeld(idle.clientId);
        long start = System.nanoTime();
        assertThat(idle.awaitClose()).isEqualTo(StatusCode.SHUTDOWN);
        assertThat(millisSince(start)).isLessThan(5_000);
        await().until(() -> !server.engine.isConnectHeld(session(idle.clientId)));
        assertThat(handler().getWebSocketCount()).isZero();
    }

    @ParameterizedTest
    @ValueSource(strings = {"jackson", "jetty"})
    void upgradesFromForeignOriginsAreRefused(String codec) throws Exception {
        start(codec);
        assertThatThrownBy(() -> WsClient.open(webSockets, wsUri("/bayeux"), server.codec(), "http://evil.example"))
                .isInstanceOf(ExecutionException.class).cause().isInstanceOf(UpgradeException.class)
                .extracting(failure -> ((UpgradeException) failure).getResponseStatusCode()).isEqualTo(403);

        WsClient allowed = WsClient.open(webSockets, wsUri("/bayeux"), server.codec(), "http://app.example");
        assertThat(allowed.handshake()).containsEntry("successful", true);
        WsClient sameOrigin = WsClient.open(webSockets, wsUri("/bayeux"), server.codec(),
                "http://127.0.0.1:" + server.connector.getLocalPort());
        assertThat(sameOrigin.handshake()).containsEntry("successful", true);
    }

    @ParameterizedTest
    @ValueSource(strings = {"jackson", "jetty"})
    void upgradesAreAcceptedOnEverySubPath(String codec) throws Exception {
        start(codec);
        for (String path : List.of("/bayeux", "/bayeux/", "/bayeux/handshake", "/bayeux/a/b")) {
            WsClient socket = WsClient.open(webSockets, wsUri(path), server.codec());
            assertThat(socket.handshake()).as(path).containsEntry("successful", true);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"jackson", "jetty"})
    void whenDisabledWebSocketIsNeitherAdvertisedNorAccepted(String codec) throws Exception {
        start(codec, engine -> { }, transport -> transport.set(TransportConfig.WEBSOCKET, false));
        assertThat(httpHandshakeReply().get("supportedConnectionTypes")).asInstanceOf(InstanceOfAssertFactories.LIST)
                .doesNotContain("websocket").contains("long-polling");
        assertThatThrownBy(() -> ws()).isInstanceOf(ExecutionException.class).cause()
                .isInstanceOf(UpgradeException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"jackson", "jetty"})
    void pushesAndConnectRepliesAreCutToTheFrameSize(String codec) throws Exception {
        int maxFrame = 1024;
        start(codec, engine -> engine.timeout(Duration.ofSeconds(30)),
                transport -> transport.set(TransportConfig.WS_MAX_FRAME, maxFrame));
        WsClient a = ws();
        a.handshake();
        a.connectNow();
        a.subscribe("/chat/a");
        ServerSession session = session(a.clientId);
        String pad = "x".repeat(300);

        // Queued while no connect is held: they travel in connect replies, each one frame holding as many messages
        // as fit and ending with the reply; the rest come with the next connect, which is answered at once.
        deliverBatch(session, 0, 10, pad);
        int fromReplies = 0;
        for (int round = 0; round < 10 && fromReplies < 10; round++) {
            a.send(a.connectMessage(",\"advice\":{\"timeout\":0}"));
            String replyFrame = a.nextText();
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> reply = (List<Map<String, Object>>) server.codec().parse(replyFrame);
            assertThat(reply.get(reply.size() - 1)).containsEntry("channel", "/meta/connect");
            assertThat(reply.size() - 1).isBetween(1, 10 - fromReplies);
            assertThat(replyFrame.getBytes(StandardCharsets.UTF_8).length).isLessThan(maxFrame + 300);
            fromReplies += reply.size() - 1;
        }
        assertThat(fromReplies).isEqualTo(10);

        // Pushed while a connect is held: cut between messages, in order.
        a.send(a.connectMessage(""));
        awaitHeld(a.clientId);
        deliverBatch(session, 10, 10, pad);
        List<Object> received = new ArrayList<>();
        int frames = 0;
        while (received.size() < 10) {
            String frame = a.nextText();
            frames++;
            assertThat(frame.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(maxFrame);
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> messages = (List<Map<String, Object>>) server.codec().parse(frame);
            for (Map<String, Object> message : messages) {
                assertThat(message).containsEntry("channel", "/chat/a");
                received.add(((Map<?, ?>) message.get("data")).get("i"));
            }
        }
        assertThat(frames).isGreaterThan(1);
        assertThat(received).containsExactly(10L, 11L, 12L, 13L, 14L, 15L, 16L, 17L, 18L, 19L);
        assertThat(server.engine.isConnectHeld(session)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"jackson", "jetty"})
    void aClientThatStopsReadingIsEndedAtItsQueueLimit(String codec) throws Exception {
        start(codec, engine -> engine.timeout(Duration.ofSeconds(60)).maxQueue(10), transport -> { });
        WsClient a = ws();
        a.handshake();
        a.connectNow();
        a.subscribe("/chat/a");
        a.send(a.connectMessage(""));
        awaitHeld(a.clientId);
        a.stopReading();
        ServerSession session = session(a.clientId);
        String pad = "x".repeat(60 * 1024);
        // Once the socket is a frame behind, deliveries wait in the session's queue, bounded by maxQueue (and
        // maxQueueBytes, which SlowConsumerTest shows) under the DISCONNECT policy.
        for (int i = 0; i < 5000 && session.isHandshook(); i++) {
            session.deliver(null, "/chat/a", Map.of("i", i, "pad", pad), Promise.noop());
        }
        assertThat(session.isHandshook()).isFalse();
        assertThat(server.engine.getSession(a.clientId)).isNull();
        assertThat(server.engine.queueLimitCounters().countLimitHits()).isPositive();
        assertThat(server.engine.queueLimitCounters().disconnectedSessions()).isEqualTo(1);
    }

    private static void deliverBatch(ServerSession session, int from, int count, String pad) {
        session.startBatch();
        try {
            for (int i = from; i < from + count; i++) {
                session.deliver(null, "/chat/a", Map.of("i", i, "pad", pad), Promise.noop());
            }
        } finally {
            session.endBatch();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"jackson", "jetty"})
    void abruptlyClosedSocketsLeaveNothingBehind(String codec) throws Exception {
        // A long timeout: sessions can only expire this fast if the engine learns that their sockets died.
        start(codec, engine -> engine.timeout(Duration.ofSeconds(60)).maxInterval(Duration.ofMillis(300))
                .sweepPeriod(Duration.ofMillis(50)), transport -> { });
        List<WsClient> sockets = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            WsClient socket = ws();
            socket.handshake();
            socket.connectNow();
            socket.send(socket.connectMessage(""));
            sockets.add(socket);
        }
        await().until(() -> sockets.stream()
                .allMatch(socket -> server.engine.isConnectHeld(session(socket.clientId))));
        assertThat(server.engine.getSessions()).hasSize(50);
        assertThat(handler().getWebSocketCount()).isEqualTo(50);

        sockets.forEach(WsClient::drop);

        await().untilAsserted(() -> {
            assertThat(server.engine.getSessions()).isEmpty();
            assertThat(handler().getWebSocketCount()).isZero();
            assertThat(server.connector.getConnectedEndPoints()).isEmpty();
        });
    }
}
