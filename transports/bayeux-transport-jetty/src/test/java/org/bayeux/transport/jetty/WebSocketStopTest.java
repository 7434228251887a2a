package org.bayeux.transport.jetty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.awaitility.Awaitility;
import org.bayeux.api.Promise;
import org.bayeux.api.server.BayeuxServer;
import org.bayeux.api.server.SecurityPolicy;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.eclipse.jetty.websocket.api.StatusCode;
import org.eclipse.jetty.websocket.client.ClientUpgradeRequest;
import org.eclipse.jetty.websocket.client.WebSocketClient;
import org.eclipse.jetty.websocket.core.WebSocketCoreSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Stopping a server never fails because one of its sockets already died: {@code bin/bayeux test} once failed with
 * "Cannot stop the server" caused by {@code IllegalStateException: Flusher is failed}, thrown by Jetty's
 * {@code permessage-deflate} extension when the transport closed a socket whose connection Jetty had just failed
 * (its extensions closed, the handler not yet told).
 */
class WebSocketStopTest {
    private HttpTestServer server;
    private WebSocketClient webSockets;

    @AfterEach
    void stopAll() throws Exception {
        if (webSockets != null) {
            webSockets.stop();
        }
        if (server != null && !server.server.isStopped()) {
            server.close();
        }
    }

    @Test
    void anEndpointWithASocketWhoseConnectionFailedStopsAndClosesTheOthers() throws Exception {
        server = new HttpTestServer("jetty", engine -> { }, transport -> { });
        CountDownLatch handshakeHeld = new CountDownLatch(1);
        // Holds every handshake, so that the server is processing a message from the socket (no read pending) when
        // that socket's connection fails, as when a client's last message and its going away cross a stop.
        server.engine.setSecurityPolicy(new SecurityPolicy() {
            @Override
            public void canHandshake(BayeuxServer bayeux, ServerSession session, ServerMessage message,
                    Promise<Boolean> promise) {
                handshakeHeld.countDown();
            }
        });
        webSockets = new WebSocketClient();
        webSockets.start();
        URI uri = URI.create("ws://127.0.0.1:" + server.connector.getLocalPort() + "/bayeux");
        WsClient healthy = WsClient.open(webSockets, uri, server.codec());
        ClientUpgradeRequest deflate = new ClientUpgradeRequest(uri);
        deflate.addExtensions("permessage-deflate");
        WsClient dying = WsClient.open(webSockets, deflate, server.codec());
        dying.send("[{\"id\":\"1\",\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"supportedConnectionTypes\":[\"websocket\"]}]");
        assertThat(handshakeHeld.await(10, TimeUnit.SECONDS)).isTrue();

        // What Jetty does first when a connection fails: it closes the connection's extensions, then tells the
        // handler, possibly on another thread. Here the second step has not happened yet when the endpoint stops.
        BayeuxHandler endpoint = server.server.getDescendant(BayeuxHandler.class);
        WebSocketTransport transport = endpoint.webSocketTransport();
        int dyingPort = ((InetSocketAddress) dying.session().getLocalSocketAddress()).getPort();
        JettySocket failed = transport.openSockets().stream()
                .filter(socket -> ((InetSocketAddress) socket.coreSession().getRemoteAddress()).getPort() == dyingPort)
                .findFirst().orElseThrow();
        ((WebSocketCoreSession) failed.coreSession()).getExtensionStack().close();

        // The endpoint alone (as when its context is stopped or redeployed): Jetty's connectors stay up, so the
        // transport itself closes every socket it has.
        assertThatCode(endpoint::stop).doesNotThrowAnyException();
        assertThat(endpoint.isStopped()).isTrue();
        assertThat(healthy.awaitClose()).as("the other socket is told the server goes away")
                .isEqualTo(StatusCode.SHUTDOWN);
        assertThatCode(() -> server.server.stop()).doesNotThrowAnyException();
        assertThat(server.server.isStopped()).isTrue();
    }
}
