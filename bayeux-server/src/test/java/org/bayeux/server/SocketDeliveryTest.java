package org.bayeux.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;

import org.bayeux.server.test.EngineHarness;
import org.bayeux.server.test.TestClient;
import org.bayeux.server.test.TestResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Delivery on a carrier that may push while a connect is held, as WebSocket does. */
class SocketDeliveryTest {
    private static final long TIMEOUT_MS = 1500;
    private final EngineHarness engine = EngineHarness.start(config -> config.timeout(Duration.ofMillis(TIMEOUT_MS))
            .maxInterval(Duration.ofSeconds(5)));

    @AfterEach
    void stop() {
        engine.close();
    }

    @Test
    void c36DeliveriesArePushedWhileTheConnectStaysHeld() throws Exception {
        TestClient a = engine.newSocketClient();
        a.handshake();
        a.call("[" + a.connectMessage(",\"advice\":{\"timeout\":0}") + "]");
        a.call("[{\"channel\":\"/meta/subscribe\",\"subscription\":\"/chat/a\",\"clientId\":\"" + a.clientId() + "\"}]");
        java.util.concurrent.CompletableFuture<TestResponse> nextFrame = a.send("[" + a.connectMessage("") + "]");
        long heldAt = System.nanoTime();
        TestClient b = engine.newClient();
        b.handshake();
        b.publish("/chat/a", "\"hi\"");
        TestResponse push = nextFrame.get(5, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(push.messages()).hasSize(1);
        assertThat(push.messages().get(0)).containsEntry("channel", "/chat/a").containsEntry("data", "hi");
        TestResponse heartbeat = a.nextFrame();
        assertThat(heartbeat.single("/meta/connect")).containsEntry("successful", true);
        assertThat((System.nanoTime() - heldAt) / 1_000_000).isGreaterThanOrEqualTo(TIMEOUT_MS - 50);
    }

    @Test
    void c37NewSocketMayCarryASessionHandshakenOverHttp() {
        TestClient http = engine.newClient();
        http.handshake();
        TestClient socket = engine.newSocketClient();
        socket.clientId(http.clientId());
        TestResponse subscribed = socket.call("[{\"channel\":\"/meta/subscribe\",\"subscription\":\"/x\",\"clientId\":\""
                + socket.clientId() + "\"}]");
        assertThat(subscribed.single("/meta/subscribe")).containsEntry("successful", true);
        TestResponse connected = socket.call("[" + socket.connectMessage(",\"advice\":{\"timeout\":0}") + "]");
        assertThat(connected.single("/meta/connect")).containsEntry("successful", true);
    }

    @Test
    void c38AfterASocketDropsANewSocketResumesTheSession() throws Exception {
        TestClient a = engine.newSocketClient();
        a.handshake();
        a.call("[" + a.connectMessage(",\"advice\":{\"timeout\":0}") + "]");
        a.call("[{\"channel\":\"/meta/subscribe\",\"subscription\":\"/chat/a\",\"clientId\":\"" + a.clientId() + "\"}]");
        a.send("[" + a.connectMessage("") + "]");
        a.dropSocket();
        TestClient b = engine.newClient();
        b.handshake();
        b.publish("/chat/a", "1");
        TestClient resumed = a.reopenSocket();
        TestResponse answer = resumed.call("[" + resumed.connectMessage(",\"advice\":{\"timeout\":0}") + "]");
        assertThat(answer.messages()).extracting(m -> m.get("channel")).containsExactly("/chat/a", "/meta/connect");
        java.util.concurrent.CompletableFuture<TestResponse> push = resumed.send("[" + resumed.connectMessage("") + "]");
        b.publish("/chat/a", "2");
        Map<String, Object> pushed = push.get(5, java.util.concurrent.TimeUnit.SECONDS).messages().get(0);
        assertThat(pushed).containsEntry("data", 2L);
    }

    @Test
    void droppedSocketStartsExpiry() {
        try (EngineHarness quick = EngineHarness.start(config -> config.timeout(Duration.ofSeconds(5))
                .maxInterval(Duration.ofMillis(300)).sweepPeriod(Duration.ofMillis(50)))) {
            TestClient a = quick.newSocketClient();
            a.handshake();
            a.call("[" + a.connectMessage(",\"advice\":{\"timeout\":0}") + "]");
            a.send("[" + a.connectMessage("") + "]");
            a.dropSocket();
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(3))
                    .until(() -> quick.server().getSession(a.clientId()) == null);
        }
    }
}
