package org.bayeux.client;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.bayeux.api.Message;
import org.bayeux.api.server.BayeuxServer;
import org.bayeux.api.server.SecurityPolicy;
import org.bayeux.api.server.ServerExtension;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.client.BayeuxClient.State;
import org.bayeux.client.Clients.Received;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.bayeux.client.Clients.config;
import static org.bayeux.client.Clients.connected;
import static org.bayeux.client.Clients.subscribe;

/**
 * The network and the server misbehave; the client finds its way back by itself: a restarted server, an expired
 * session (402), a cut connection, a server gone for longer than a session lives, a refused handshake.
 */
class ReconnectTest {
    private static final String WEBSOCKET_FIRST = "websocket";
    private static final String LONG_POLLING = "long-polling";

    @ParameterizedTest
    @ValueSource(strings = {WEBSOCKET_FIRST, LONG_POLLING})
    void afterAServerRestartTheClientHandshakesAgainAndResubscribes(String transport) throws Exception {
        List<AtomicInteger> handshakesPerEngine = new CopyOnWriteArrayList<>();
        try (TestServer server = new TestServer(engine -> { }, transports -> { }, engine -> {
            AtomicInteger handshakes = new AtomicInteger();
            handshakesPerEngine.add(handshakes);
            engine.addExtension(countingRemoteHandshakes(handshakes));
        });
             BayeuxClient client = connected(config(server.url(), transport).build())) {
            List<State> states = recordStates(client);
            Received received = subscribe(client, "/r/a");
            String first = client.getId();

            server.restart();
            ServerSession second = await().atMost(Clients.WAIT).until(() -> server.subscribers("/r/a"),
                    subscribers -> subscribers.size() == 1).get(0);
            server.publish("/r/a", Map.of("after", "restart"));

            assertThat(received.next().getDataAsMap()).containsEntry("after", "restart");
            assertThat(second.getId()).isNotEqualTo(first).isEqualTo(client.getId());
            assertThat(states).contains(State.UNCONNECTED, State.REHANDSHAKING);
            assertThat(handshakesPerEngine).hasSize(2);
            assertThat(handshakesPerEngine.get(1).get()).as("handshakes that reached the new server").isEqualTo(1);
            assertThat(client.getTransportName()).isEqualTo(transport);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {WEBSOCKET_FIRST, LONG_POLLING})
    void aSessionThatExpiredIsAnswered402AndTheClientHandshakesAgain(String transport) throws Exception {
        try (TestServer server = new TestServer(TestServer::expiringQuickly, transports -> { }, engine -> { });
             BayeuxClient client = connected(config(server.proxiedUrl(), transport).build())) {
            List<String> connectErrors = new CopyOnWriteArrayList<>();
            client.getChannel(Message.META_CONNECT).addListener((channel, reply) -> {
                if (!reply.isSuccessful()) {
                    connectErrors.add(reply.getError());
                }
            });
            Received received = subscribe(client, "/e/a");
            String first = client.getId();

            server.expireBehindProxy(first);
            ServerSession second = await().atMost(Clients.WAIT).until(() -> server.subscribers("/e/a"),
                    subscribers -> subscribers.size() == 1).get(0);
            server.publish("/e/a", Map.of("after", "expiry"));

            assertThat(received.next().getDataAsMap()).containsEntry("after", "expiry");
            assertThat(second.getId()).isNotEqualTo(first);
            assertThat(connectErrors).contains("402::session_unknown");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {WEBSOCKET_FIRST, LONG_POLLING})
    void aCutConnectionIsOpenedAgainInTheSameSession(String transport) throws Exception {
        try (TestServer server = new TestServer();
             BayeuxClient client = connected(config(server.proxiedUrl(), transport).build())) {
            Received received = subscribe(client, "/c/a");
            String clientId = client.getId();
            List<State> states = recordStates(client);
            server.awaitConnectHeld(clientId);

            server.proxy().dropConnections();
            // Once connected again, the server has the new connect, not the one cut.
            await().atMost(Clients.WAIT).until(() -> states.contains(State.UNCONNECTED)
                    && states.lastIndexOf(State.CONNECTED) > states.indexOf(State.UNCONNECTED));
            server.awaitConnectHeld(clientId);
            server.publish("/c/a", Map.of("after", "cut"));

            assertThat(received.next().getDataAsMap()).containsEntry("after", "cut");
            assertThat(client.getId()).isEqualTo(clientId);
            assertThat(states).doesNotContain(State.REHANDSHAKING);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {WEBSOCKET_FIRST, LONG_POLLING})
    void unconnectedForLongerThanASessionLivesTheClientHandshakesAgainWithoutAsking(String transport)
            throws Exception {
        try (TestServer server = new TestServer(engine -> engine.timeout(Duration.ofMillis(500))
                .maxInterval(Duration.ofMillis(500)), transports -> { }, engine -> { });
             BayeuxClient client = connected(config(server.url(), transport).build())) {
            List<String> connectErrors = new CopyOnWriteArrayList<>();
            client.getChannel(Message.META_CONNECT).addListener((channel, reply) -> {
                if (reply.getError() != null) {
                    connectErrors.add(reply.getError());
                }
            });
            subscribe(client, "/u/a");

            server.stop();
            // Down for longer than timeout + interval + maxInterval: the session is surely gone.
            assertThat(client.waitFor(Clients.WAIT, State.REHANDSHAKING)).isTrue();
            server.startAgain();

            await().atMost(Clients.WAIT).until(() -> server.subscribers("/u/a").size() == 1);
            assertThat(connectErrors).as("no connect was refused: the client did not ask")
                    .doesNotContain("402::session_unknown");
        }
    }

    @Test
    void aHandshakeRefusedWithReconnectNoneStopsTheClient() throws Exception {
        try (TestServer server = new TestServer(engine -> { }, transports -> { },
                engine -> engine.setSecurityPolicy(new SecurityPolicy() {
                    @Override
                    public boolean canHandshake(BayeuxServer bayeux, ServerSession session, ServerMessage message) {
                        return session.isLocalSession();
                    }
                }));
             BayeuxClient client = new BayeuxClient(config(server.url(), WEBSOCKET_FIRST).build())) {
            Message reply = Clients.await(client.handshakeAsync(null));

            assertThat(reply.isSuccessful()).isFalse();
            assertThat(reply.getError()).startsWith("403:");
            assertThat(client.waitFor(Clients.WAIT, State.DISCONNECTED)).isTrue();
        }
    }

    @Test
    void withoutAutoResubscribeTheApplicationSubscribesAgainItself() throws Exception {
        try (TestServer server = new TestServer();
             BayeuxClient client = connected(config(server.url(), LONG_POLLING).autoResubscribe(false).build())) {
            Received received = subscribe(client, "/n/a");
            String first = client.getId();
            client.getChannel(Message.META_HANDSHAKE).addListener((channel, reply) -> {
                if (reply.isSuccessful()) {
                    client.getChannel("/n/b").subscribe(received, null);
                }
            });

            server.restart();
            await().atMost(Clients.WAIT).until(() -> server.subscribers("/n/b").size() == 1);
            server.publish("/n/a", Map.of("to", "a"));
            server.publish("/n/b", Map.of("to", "b"));

            assertThat(received.next().getDataAsMap()).containsEntry("to", "b");
            assertThat(client.getId()).isNotEqualTo(first);
            assertThat(client.getChannel("/n/a").getSubscribers()).isEmpty();
            assertThat(server.subscribers("/n/a")).isEmpty();
        }
    }

    private static List<State> recordStates(BayeuxClient client) {
        List<State> states = new CopyOnWriteArrayList<>();
        client.addStateListener((changed, state) -> states.add(state));
        return states;
    }

    private static ServerExtension countingRemoteHandshakes(AtomicInteger handshakes) {
        return new ServerExtension() {
            @Override
            public boolean rcvMeta(ServerSession session, ServerMessage.Mutable message) {
                Object types = message.get(Message.SUPPORTED_CONNECTION_TYPES_FIELD);
                boolean local = types instanceof List && ((List<?>) types).contains("in-process");
                if (Message.META_HANDSHAKE.equals(message.getChannel()) && !local) {
                    handshakes.incrementAndGet();
                }
                return true;
            }
        };
    }
}
