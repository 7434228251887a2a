package org.bayeux.client;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.bayeux.api.Message;
import org.bayeux.client.BayeuxClient.State;
import org.bayeux.client.Clients.Received;
import org.bayeux.reference.cometd.CometDReferenceServer;
import org.bayeux.reference.cometd.EchoService;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.bayeux.client.Clients.await;
import static org.bayeux.client.Clients.config;
import static org.bayeux.client.Clients.connected;
import static org.bayeux.client.Clients.subscribe;

/**
 * The client against a real, unmodified CometD 8 server (with its default settings), over each transport: the
 * client follows the protocol, not our server's habits.
 */
class CometDServerTest {
    @ParameterizedTest
    @ValueSource(strings = {"websocket", "long-polling"})
    void handshakesSubscribesPublishesReceivesUnsubscribesAndDisconnects(String transport) throws Exception {
        try (CometDReferenceServer server = CometDReferenceServer.start();
             BayeuxClient alice = connected(config(server.endpoint().toString(), transport).build());
             BayeuxClient bob = connected(config(server.endpoint().toString(), transport).build())) {
            assertThat(alice.getTransportName()).isEqualTo(transport);
            Received aliceRoom = subscribe(alice, "/chat/room");
            Received bobRoom = subscribe(bob, "/chat/room");

            Message reply = await(bob.getChannel("/chat/room").publishAsync(Map.of("text", "hello", "n", 7)));
            assertThat(reply.isSuccessful()).isTrue();
            assertThat(aliceRoom.next().getDataAsMap()).containsEntry("text", "hello").containsEntry("n", 7L);
            assertThat(bobRoom.next().getDataAsMap()).containsEntry("text", "hello");

            assertThat(await(bob.getChannel("/chat/room").unsubscribeAsync(bobRoom)).isSuccessful()).isTrue();
            await(alice.getChannel("/chat/room").publishAsync(Map.of("text", "after")));
            assertThat(aliceRoom.next().getDataAsMap()).containsEntry("text", "after");
            await(bob.getChannel("/chat/fence").publishAsync(Map.of("text", "fence")));
            assertThat(bobRoom.isEmpty()).as("nothing after the unsubscribe").isTrue();

            String aliceId = alice.getId();
            assertThat(await(alice.disconnectAsync()).isSuccessful()).isTrue();
            assertThat(alice.waitFor(Clients.WAIT, State.DISCONNECTED)).isTrue();
            await().atMost(Clients.WAIT).until(() -> server.bayeux().getSession(aliceId) == null);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"websocket", "long-polling"})
    void wildcardsAndRemoteCalls(String transport) throws Exception {
        try (CometDReferenceServer server = CometDReferenceServer.start();
             BayeuxClient client = connected(config(server.endpoint().toString(), transport).build())) {
            Received deep = subscribe(client, "/w/**");

            for (String channel : List.of("/w/a", "/w/a/b", "/w/end")) {
                await(client.getChannel(channel).publishAsync(Map.of("to", channel)));
            }
            Message answer = await(client.remoteCallAsync(EchoService.CHANNEL, Map.of("q", 1), Duration.ofSeconds(10)));

            // Deliveries piggy-backed on publish replies may overtake those of the held connect: any order.
            assertThat(List.of(deep.next().getChannel(), deep.next().getChannel(), deep.next().getChannel()))
                    .containsExactlyInAnyOrder("/w/a", "/w/a/b", "/w/end");
            assertThat(answer.isSuccessful()).isTrue();
            assertThat(answer.getDataAsMap()).isEqualTo(Map.of("q", 1L));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"websocket", "long-polling"})
    void afterARestartTheClientHandshakesAgainAndResubscribes(String transport) throws Exception {
        CometDReferenceServer server = CometDReferenceServer.start();
        int port = server.port();
        try (BayeuxClient client = connected(config(server.endpoint().toString(), transport).build())) {
            Received received = subscribe(client, "/r/a");
            String first = client.getId();

            server.close();
            server = CometDReferenceServer.start("127.0.0.1", port, Map.of());
            await().atMost(Clients.WAIT).until(() -> client.isConnected() && !first.equals(client.getId()));
            CometDReferenceServer restarted = server;
            await().atMost(Clients.WAIT).until(() -> restarted.bayeux().getChannel("/r/a") != null
                    && !restarted.bayeux().getChannel("/r/a").getSubscribers().isEmpty());
            await(client.getChannel("/r/a").publishAsync(Map.of("after", "restart")));

            assertThat(received.next().getDataAsMap()).containsEntry("after", "restart");
        } finally {
            server.close();
        }
    }
}
