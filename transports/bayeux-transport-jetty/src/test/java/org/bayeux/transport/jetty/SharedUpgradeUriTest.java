package org.bayeux.transport.jetty;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.time.Duration;
import java.util.List;

import org.awaitility.Awaitility;
import org.eclipse.jetty.websocket.client.WebSocketClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Sockets upgraded at the same URI share the one Jetty keeps for each of them ({@link SharedUriRequest}). */
class SharedUpgradeUriTest {
    private HttpTestServer server;
    private WebSocketClient webSockets;

    @BeforeEach
    void startAll() throws Exception {
        server = new HttpTestServer("jetty", engine -> engine.timeout(Duration.ofSeconds(5)), transport -> { });
        webSockets = new WebSocketClient();
        webSockets.start();
    }

    @AfterEach
    void stopAll() throws Exception {
        webSockets.stop();
        server.close();
    }

    private URI uri(String pathAndQuery) {
        return URI.create("ws://127.0.0.1:" + server.connector.getLocalPort() + pathAndQuery);
    }

    private List<URI> requestUrisOfOpenSockets(int expected) {
        WebSocketTransport transport = server.server.getDescendant(BayeuxHandler.class).webSocketTransport();
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> transport.openSockets().size() == expected);
        return transport.openSockets().stream().map(socket -> socket.coreSession().getRequestURI()).toList();
    }

    @Test
    void socketsUpgradedAtTheSameUriShareItAndStillWork() throws Exception {
        WsClient first = WsClient.open(webSockets, uri("/bayeux"), server.codec());
        WsClient second = WsClient.open(webSockets, uri("/bayeux"), server.codec());

        List<URI> uris = requestUrisOfOpenSockets(2);
        assertThat(uris.get(0)).isSameAs(uris.get(1)).isEqualTo(uri("/bayeux"));
        assertThat(first.handshake()).containsEntry("successful", true);
        assertThat(second.handshake()).containsEntry("successful", true);
    }

    @Test
    void aSocketUpgradedAtAnotherUriKeepsItsOwn() throws Exception {
        WsClient.open(webSockets, uri("/bayeux"), server.codec());
        WsClient withQuery = WsClient.open(webSockets, uri("/bayeux?client=2"), server.codec());

        List<URI> uris = requestUrisOfOpenSockets(2);
        assertThat(uris).containsExactlyInAnyOrder(uri("/bayeux"), uri("/bayeux?client=2"));
        assertThat(withQuery.handshake()).containsEntry("successful", true);
    }
}
