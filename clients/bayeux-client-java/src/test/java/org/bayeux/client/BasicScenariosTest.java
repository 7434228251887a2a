package org.bayeux.client;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.bayeux.api.Message;
import org.bayeux.api.client.ClientSession;
import org.bayeux.api.server.ServerSession;
import org.bayeux.client.BayeuxClient.State;
import org.bayeux.client.Clients.Received;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.bayeux.client.Clients.await;
import static org.bayeux.client.Clients.config;
import static org.bayeux.client.Clients.connected;
import static org.bayeux.client.Clients.subscribe;

/**
 * The client's everyday life against our server, over each transport: handshake, subscribe, publish, receive,
 * unsubscribe, disconnect, with listeners and extensions.
 */
class BasicScenariosTest {
    private static final String WEBSOCKET_FIRST = "websocket";
    private static final String LONG_POLLING = "long-polling";

    @ParameterizedTest
    @ValueSource(strings = {WEBSOCKET_FIRST, LONG_POLLING})
    void handshakesSubscribesPublishesReceivesUnsubscribesAndDisconnects(String transport) throws Exception {
        try (TestServer server = new TestServer();
             BayeuxClient client = connected(config(server.url(), transport).build())) {
            assertThat(client.getTransportName()).isEqualTo(transport);
            assertThat(client.getId()).matches("[A-Za-z0-9]{20,}");
            assertThat(server.engine().getSession(client.getId())).isNotNull();

            Received room = subscribe(client, "/chat/room");
            assertThat(server.subscribers("/chat/room")).extracting(ServerSession::getId)
                    .containsExactly(client.getId());

            Message reply = await(client.getChannel("/chat/room").publishAsync(Map.of("text", "hello", "n", 42)));
            assertThat(reply.isSuccessful()).isTrue();
            Message delivered = room.next();
            assertThat(delivered.getChannel()).isEqualTo("/chat/room");
            assertThat(delivered.getDataAsMap()).containsEntry("text", "hello").containsEntry("n", 42L);

            server.publish("/chat/room", Map.of("from", "server"));
            assertThat(room.next().getDataAsMap()).containsEntry("from", "server");

            Message unsubscribed = await(client.getChannel("/chat/room").unsubscribeAsync(room));
            assertThat(unsubscribed.isSuccessful()).isTrue();
            assertThat(server.subscribers("/chat/room")).isEmpty();

            String clientId = client.getId();
            Message disconnected = await(client.disconnectAsync());
            assertThat(disconnected.isSuccessful()).isTrue();
            assertThat(client.waitFor(Clients.WAIT, State.DISCONNECTED)).isTrue();
            assertThat(server.engine().getSession(clientId)).isNull();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {WEBSOCKET_FIRST, LONG_POLLING})
    void theJettyCodecWorksAsWellAsJacksons(String transport) throws Exception {
        try (TestServer server = new TestServer();
             BayeuxClient client = connected(config(server.url(), transport).codec("jetty").build())) {
            Received received = subscribe(client, "/codec/a");
            Map<String, Object> data = Map.of("text", "h\u00e9llo \"quoted\"", "list", List.of(1L, "two", true),
                    "nested", Map.of("x", 1.5));

            client.getChannel("/codec/a").publish(data, null);

            assertThat(received.next().getDataAsMap()).isEqualTo(data);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {WEBSOCKET_FIRST, LONG_POLLING})
    void wildcardSubscriptionsMatchOneOrManySegments(String transport) throws Exception {
        try (TestServer server = new TestServer();
             BayeuxClient client = connected(config(server.url(), transport).build())) {
            Received one = subscribe(client, "/w/*");
            Received deep = subscribe(client, "/w/**");

            for (String channel : List.of("/w", "/w/a", "/w/a/b")) {
                server.publish(channel, Map.of("to", channel));
            }
            server.publish("/w/end", Map.of("to", "/w/end"));

            assertThat(channelsUntilEnd(one)).containsExactly("/w/a", "/w/end");
            assertThat(channelsUntilEnd(deep)).containsExactly("/w/a", "/w/a/b", "/w/end");
        }
    }

    /** A client keeps, per channel, the wildcard handles that match it: one subscribed later must still receive. */
    @ParameterizedTest
    @ValueSource(strings = {WEBSOCKET_FIRST, LONG_POLLING})
    void aWildcardSubscribedAfterDeliveriesAlsoReceives(String transport) throws Exception {
        try (TestServer server = new TestServer();
             BayeuxClient client = connected(config(server.url(), transport).build())) {
            Received exact = subscribe(client, "/v/a");
            server.publish("/v/a", Map.of("n", 1));
            assertThat(exact.next().getDataAsMap()).containsEntry("n", 1L);

            Received wildcard = subscribe(client, "/v/*");
            server.publish("/v/a", Map.of("n", 2));

            assertThat(exact.next().getDataAsMap()).containsEntry("n", 2L);
            // The first delivery may still have been on its way through the client's dispatch when the wildcard
            // subscriber was added, and so reach it too.
            Object first = wildcard.next().getDataAsMap().get("n");
            Object second = first.equals(2L) ? first : wildcard.next().getDataAsMap().get("n");
            assertThat(second).isEqualTo(2L);
        }
    }

    private static List<String> channelsUntilEnd(Received received) throws InterruptedException {
        List<String> channels = new java.util.ArrayList<>();
        for (int i = 0; i < 10; i++) {
            String channel = received.next().getChannel();
            channels.add(channel);
            if ("/w/end".equals(channel)) {
                return channels;
            }
        }
        throw new AssertionError("No /w/end among " + channels);
    }

    @ParameterizedTest
    @ValueSource(strings = {WEBSOCKET_FIRST, LONG_POLLING})
    void metaChannelListenersSeeTheSessionsReplies(String transport) throws Exception {
        try (TestServer server = new TestServer();
             BayeuxClient client = new BayeuxClient(config(server.url(), transport).build())) {
            Received handshakes = new Received();
            Received connects = new Received();
            Received subscribes = new Received();
            client.getChannel(Message.META_HANDSHAKE).addListener(handshakes);
            client.getChannel(Message.META_CONNECT).addListener(connects);
            client.getChannel(Message.META_SUBSCRIBE).addListener(subscribes);

            assertThat(client.handshake(Clients.WAIT)).isEqualTo(State.CONNECTED);
            subscribe(client, "/m/a");

            Message handshake = handshakes.next();
            assertThat(handshake.isSuccessful()).isTrue();
            assertThat(handshake.getClientId()).isEqualTo(client.getId());
            assertThat(connects.next().isSuccessful()).isTrue();
            assertThat(subscribes.next().get(Message.SUBSCRIPTION_FIELD)).isEqualTo("/m/a");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {WEBSOCKET_FIRST, LONG_POLLING})
    void aListenerThatThrowsDoesNotStopTheOthers(String transport) throws Exception {
        try (TestServer server = new TestServer();
             BayeuxClient client = connected(config(server.url(), transport).build())) {
            await(client.getChannel("/t/a").subscribeAsync((channel, message) -> {
                throw new IllegalStateException("a listener that fails on purpose");
            }));
            Received received = subscribe(client, "/t/a");

            server.publish("/t/a", Map.of("n", 1));
            server.publish("/t/a", Map.of("n", 2));

            assertThat(received.next().getDataAsMap()).containsEntry("n", 1L);
            assertThat(received.next().getDataAsMap()).containsEntry("n", 2L);
            assertThat(client.getState()).isEqualTo(State.CONNECTED);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {WEBSOCKET_FIRST, LONG_POLLING})
    void extensionsSeeAndChangeMessagesBothWays(String transport) throws Exception {
        try (TestServer server = new TestServer();
             BayeuxClient client = connected(config(server.url(), transport).build())) {
            List<String> sentMeta = new CopyOnWriteArrayList<>();
            client.addExtension(new ClientSession.Extension() {
                @Override
                public boolean send(ClientSession session, Message.Mutable message) {
                    message.getExt(true).put("stamp", "client");
                    return !"drop".equals(message.getDataAsMap().get("text"));
                }

                @Override
                public boolean sendMeta(ClientSession session, Message.Mutable message) {
                    sentMeta.add(message.getChannel());
                    return true;
                }

                @Override
                public boolean rcv(ClientSession session, Message.Mutable message) {
                    message.put("seenBy", "extension");
                    return true;
                }
            });
            Received received = subscribe(client, "/x/a");

            Message dropped = await(client.getChannel("/x/a").publishAsync(Map.of("text", "drop")));
            await(client.getChannel("/x/a").publishAsync(Map.of("text", "keep")));
            Message delivered = received.next();

            assertThat(dropped.isSuccessful()).isFalse();
            assertThat(dropped.getError()).isEqualTo(ClientErrors.MESSAGE_DELETED);
            assertThat(delivered.getDataAsMap()).containsEntry("text", "keep");
            assertThat(delivered.getExt()).containsEntry("stamp", "client");
            assertThat(delivered.get("seenBy")).isEqualTo("extension");
            assertThat(sentMeta).contains(Message.META_SUBSCRIBE);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {WEBSOCKET_FIRST, LONG_POLLING})
    void messagesSentWhileHandshakingGoOnceThereIsASession(String transport) throws Exception {
        try (TestServer server = new TestServer();
             BayeuxClient client = new BayeuxClient(config(server.url(), transport).build())) {
            Received received = new Received();

            client.handshake();
            client.getChannel("/early/a").subscribe(received, null);
            client.getChannel("/early/a").publish(Map.of("early", true), null);

            assertThat(received.next().getDataAsMap()).containsEntry("early", true);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {WEBSOCKET_FIRST, LONG_POLLING})
    void remoteCallsGetTheServiceAnswerOrTimeOut(String transport) throws Exception {
        try (TestServer server = new TestServer();
             BayeuxClient client = connected(config(server.url(), transport).build())) {
            Message answer = await(client.remoteCallAsync("/service/echo", Map.of("q", 1), Duration.ofSeconds(10)));
            Message silence = await(client.remoteCallAsync("/service/nobody", Map.of("q", 2), Duration.ofMillis(300)));

            assertThat(answer.isSuccessful()).isTrue();
            assertThat(answer.getDataAsMap()).isEqualTo(Map.of("echo", Map.of("q", 1L)));
            assertThat(silence.isSuccessful()).isFalse();
            assertThat(silence.getError()).isEqualTo(ClientErrors.TIMEOUT);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {WEBSOCKET_FIRST, LONG_POLLING})
    void aDisconnectFromTheServerStopsTheClient(String transport) throws Exception {
        try (TestServer server = new TestServer();
             BayeuxClient client = connected(config(server.url(), transport).build())) {
            String clientId = client.getId();
            server.awaitConnectHeld(clientId);

            server.engine().getSession(clientId).disconnect();

            assertThat(client.waitFor(Clients.WAIT, State.DISCONNECTED)).isTrue();
            Message refused = await(client.getChannel("/after/a").publishAsync(Map.of("n", 1)));
            assertThat(refused.getError()).isEqualTo(ClientErrors.NOT_CONNECTED);
            assertThat(server.remoteSessions()).isEmpty();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {WEBSOCKET_FIRST, LONG_POLLING})
    void aRefusedSubscriptionFailsAndKeepsNoListener(String transport) throws Exception {
        try (TestServer server = new TestServer();
             BayeuxClient client = connected(config(server.url(), transport).build())) {
            Received received = new Received();

            Message reply = await(client.getChannel("/denied/a").subscribeAsync(received));
            // Subscribing to a service channel always succeeds; a refusal needs the server's authorizer.
            assertThat(reply.isSuccessful()).isTrue();

            server.engine().createChannelIfAbsent("/locked/a", channel -> channel.addAuthorizer(
                    (operation, id, session, message) -> org.bayeux.api.server.Authorizer.Result.deny("locked")));
            Message refused = await(client.getChannel("/locked/a").subscribeAsync(received));

            assertThat(refused.isSuccessful()).isFalse();
            assertThat(refused.getError()).startsWith("403:");
            assertThat(client.getChannel("/locked/a").getSubscribers()).isEmpty();
            await().atMost(Clients.WAIT).until(() -> client.getState() == State.CONNECTED);
        }
    }
}
