package org.bayeux.example;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.json.JsonCodec;
import org.bayeux.api.json.JsonCodecProvider;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.eclipse.jetty.websocket.client.ClientUpgradeRequest;
import org.eclipse.jetty.websocket.client.WebSocketClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The example WAR's Jakarta WebSocket endpoint in real containers: a WebSocket client and a long-polling client
 * talk to each other through the same engine, and bad input closes the socket with the protocol's codes.
 */
class WebSocketDeploymentIT {
    private static final Path WAR = Path.of(System.getProperty("bayeux.war", "target/bayeux-war-example.war"));
    private static final long WAIT_SECONDS = 10;
    private final JsonCodec json = JsonCodecProvider.find("jackson", getClass().getClassLoader()).newCodec(64);
    private final ExecutorService senders = Executors.newCachedThreadPool();
    private HttpClient http;
    private WebSocketClient webSockets;
    private Container container;

    @BeforeEach
    void startClients() throws Exception {
        http = new HttpClient();
        http.start();
        webSockets = new WebSocketClient(http);
        webSockets.start();
    }

    @AfterEach
    void stop() throws Exception {
        senders.shutdownNow();
        webSockets.stop();
        http.stop();
        if (container != null) {
            container.close();
        }
    }

    private String base() {
        return "127.0.0.1:" + container.port() + "/app/bayeux";
    }

    @SuppressWarnings("unchecked")
    private List<Map<String, Object>> parse(String text) throws Exception {
        return (List<Map<String, Object>>) json.parse(text);
    }

    private List<Map<String, Object>> post(String body) throws Exception {
        ContentResponse response = http.newRequest("http://" + base()).method("POST")
                .timeout(WAIT_SECONDS, TimeUnit.SECONDS)
                .body(new StringRequestContent("application/json", body, StandardCharsets.UTF_8)).send();
        assertThat(response.getStatus()).as(response.getContentAsString()).isEqualTo(200);
        return parse(response.getContentAsString());
    }

    private Socket open(String origin) throws Exception {
        ClientUpgradeRequest request = new ClientUpgradeRequest(URI.create("ws://" + base()));
        if (origin != null) {
            request.setHeader("Origin", origin);
        }
        Socket socket = new Socket();
        webSockets.connect(socket, request).get(WAIT_SECONDS, TimeUnit.SECONDS);
        return socket;
    }

    /** Messages of the next frames until one holds a message on the channel; returns that message. */
    private Map<String, Object> awaitChannel(Socket socket, String channel) throws Exception {
        while (true) {
            for (Map<String, Object> message : parse(socket.nextText())) {
                if (channel.equals(message.get("channel"))) {
                    return message;
                }
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"jetty", "tomcat"})
    void webSocketAndLongPollingClientsTalkBothWays(String name) throws Exception {
        container = Container.start(name, WAR);
        Socket socket = open(null);
        socket.send("[{\"id\":\"1\",\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"supportedConnectionTypes\":[\"websocket\"]}]");
        Map<String, Object> handshake = awaitChannel(socket, "/meta/handshake");
        assertThat(handshake).containsEntry("successful", true);
        assertThat((List<?>) handshake.get("supportedConnectionTypes")).first().isEqualTo("websocket");
        String ws = (String) handshake.get("clientId");
        socket.send("[{\"id\":\"2\",\"channel\":\"/meta/connect\",\"connectionType\":\"websocket\",\"clientId\":\"" + ws
                + "\",\"advice\":{\"timeout\":0}}]");
        assertThat(awaitChannel(socket, "/meta/connect")).containsEntry("successful", true);
        socket.send("[{\"id\":\"3\",\"channel\":\"/meta/subscribe\",\"subscription\":\"/chat/*\",\"clientId\":\"" + ws
                + "\"}]");
        assertThat(awaitChannel(socket, "/meta/subscribe")).containsEntry("successful", true);
        // A lone connect is held (a connect batched with other messages is answered at once): pushes flow.
        socket.send("[{\"id\":\"4\",\"channel\":\"/meta/connect\",\"connectionType\":\"websocket\",\"clientId\":\""
                + ws + "\"}]");

        // A long-polling client publishes; the WebSocket client gets it pushed while its connect is held.
        Map<String, Object> lpHandshake = post("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"supportedConnectionTypes\":[\"long-polling\"]}]").get(0);
        assertThat(lpHandshake).containsEntry("successful", true);
        String lp = (String) lpHandshake.get("clientId");
        assertThat(post("[{\"channel\":\"/chat/room\",\"data\":\"from http\",\"clientId\":\"" + lp + "\"}]").get(0))
                .containsEntry("successful", true);
        assertThat(awaitChannel(socket, "/chat/room")).containsEntry("data", "from http");

        // The WebSocket client publishes; the long-polling client's held poll returns it.
        post("[{\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\",\"clientId\":\"" + lp
                + "\",\"advice\":{\"timeout\":0}}]");
        assertThat(post("[{\"channel\":\"/meta/subscribe\",\"subscription\":\"/chat/*\",\"clientId\":\"" + lp + "\"}]")
                .get(0)).containsEntry("successful", true);
        CompletableFuture<List<Map<String, Object>>> held = CompletableFuture.supplyAsync(() -> {
            try {
                return post("[{\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\",\"clientId\":\""
                        + lp + "\"}]");
            } catch (Exception failure) {
                throw new IllegalStateException(failure);
            }
        }, senders);
        // If the poll is not held yet the message is queued, and the poll returns it at once.
        socket.send("[{\"id\":\"5\",\"channel\":\"/chat/room\",\"data\":\"from websocket\",\"clientId\":\"" + ws + "\"}]");
        List<Map<String, Object>> delivered = held.get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(delivered).extracting(m -> m.get("channel")).containsExactly("/chat/room", "/meta/connect");
        assertThat(delivered.get(0)).containsEntry("data", "from websocket");
        socket.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"jetty", "tomcat"})
    void aBadBatchClosesTheSocketWith1011AndABinaryMessageWith1003(String name) throws Exception {
        container = Container.start(name, WAR);
        Socket bad = open(null);
        bad.send("this is not JSON");
        assertThat(bad.awaitClose()).isEqualTo(1011);

        Socket binary = open(null);
        binary.session.sendBinary(java.nio.ByteBuffer.wrap(new byte[] {1, 2, 3}), Callback.NOOP);
        assertThat(binary.awaitClose()).isEqualTo(1003);

        // The endpoint still serves others.
        Socket good = open(null);
        good.send("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":[\"websocket\"]}]");
        assertThat(awaitChannel(good, "/meta/handshake")).containsEntry("successful", true);
        good.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"jetty", "tomcat"})
    void aForeignOriginIsRefusedAndTheSameOriginAccepted(String name) throws Exception {
        container = Container.start(name, WAR);
        Socket foreign = open("http://elsewhere.example");
        assertThat(foreign.awaitClose()).isEqualTo(1008);

        Socket same = open("http://127.0.0.1:" + container.port());
        same.send("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":[\"websocket\"]}]");
        assertThat(awaitChannel(same, "/meta/handshake")).containsEntry("successful", true);
        same.close();
    }

    /** One client socket: collects text frames and the close code. */
    public static final class Socket implements Session.Listener.AutoDemanding {
        private final LinkedBlockingQueue<String> frames = new LinkedBlockingQueue<>();
        private final CompletableFuture<Integer> closeCode = new CompletableFuture<>();
        private volatile Session session;

        @Override
        public void onWebSocketOpen(Session opened) {
            session = opened;
        }

        @Override
        public void onWebSocketText(String message) {
            frames.add(message);
        }

        @Override
        public void onWebSocketClose(int statusCode, String reason, Callback callback) {
            closeCode.complete(statusCode);
            callback.succeed();
        }

        @Override
        public void onWebSocketError(Throwable cause) {
            closeCode.completeExceptionally(cause);
        }

        void send(String text) {
            session.sendText(text, Callback.NOOP);
        }

        void close() {
            session.close();
        }

        int awaitClose() throws Exception {
            return closeCode.get(WAIT_SECONDS, TimeUnit.SECONDS);
        }

        String nextText() throws InterruptedException {
            String frame = frames.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            if (frame == null) {
                throw new AssertionError("No frame within " + WAIT_SECONDS + "s");
            }
            return frame;
        }
    }
}
