package org.bayeux.transport.jetty;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.awaitility.Awaitility;
import org.bayeux.transport.http.TransportConfig;
import org.bayeux.transport.websocket.SocketCarrier;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.client.WebSocketClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@code wsHandshakeTimeout}: an upgraded WebSocket that carries no Bayeux session is closed on time. */
class WebSocketHandshakeTimeoutTest {
    private static final Duration HANDSHAKE_TIMEOUT = Duration.ofMillis(500);
    private HttpTestServer server;
    private WebSocketClient webSockets;

    @AfterEach
    void stopAll() throws Exception {
        if (webSockets != null) {
            webSockets.stop();
        }
        if (server != null) {
            server.close();
        }
    }

    private void start(Duration handshakeTimeout) throws Exception {
        server = new HttpTestServer("jetty", engine -> engine.timeout(Duration.ofSeconds(5)),
                transport -> transport.set(TransportConfig.WS_HANDSHAKE_TIMEOUT, handshakeTimeout));
        webSockets = new WebSocketClient();
        webSockets.start();
    }

    private WsClient open() throws Exception {
        return WsClient.open(webSockets, URI.create("ws://127.0.0.1:" + server.connector.getLocalPort() + "/bayeux"),
                server.codec());
    }

    private WebSocketTransport transport() {
        return server.server.getDescendant(BayeuxHandler.class).webSocketTransport();
    }

    @Test
    void aSocketThatNeverHandshakesIsClosedOnTimeEvenIfItPings() throws Exception {
        start(HANDSHAKE_TIMEOUT);
        WsClient silent = open();
        WsClient pinging = open();
        long start = System.nanoTime();
        // Pings reset the idle timeout; they must not keep a socket without a session open.
        for (int i = 0; i < 3; i++) {
            pinging.session().sendPing(ByteBuffer.wrap(new byte[] {1}), Callback.NOOP);
        }

        assertThat(silent.awaitClose()).isEqualTo(SocketCarrier.CLOSE_POLICY);
        assertThat(pinging.awaitClose()).isEqualTo(SocketCarrier.CLOSE_POLICY);
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(elapsedMs).as("closed after the timeout, well before the idle timeout")
                .isGreaterThanOrEqualTo(HANDSHAKE_TIMEOUT.toMillis() - 100).isLessThan(5_000);
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> transport().openSockets().isEmpty());
        assertThat(server.server.getDescendant(BayeuxHandler.class).getWebSocketHandshakeTimeouts()).isEqualTo(2);
    }

    @Test
    void aSocketThatHandshookStaysOpen() throws Exception {
        start(HANDSHAKE_TIMEOUT);
        WsClient handshaken = open();
        assertThat(handshaken.handshake()).containsEntry("successful", true);
        WsClient silent = open();

        assertThat(silent.awaitClose()).isEqualTo(SocketCarrier.CLOSE_POLICY);
        // Well past the timeout, the handshaken socket still answers.
        assertThat(handshaken.connectNow().get(0)).containsEntry("successful", true);
        assertThat(handshaken.isOpen()).isTrue();
    }
}
