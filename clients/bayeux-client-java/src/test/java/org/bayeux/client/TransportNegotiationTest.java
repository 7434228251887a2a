package org.bayeux.client;

import java.util.List;
import java.util.Map;

import org.bayeux.api.Message;
import org.bayeux.api.client.ClientSession;
import org.bayeux.client.Clients.Received;
import org.bayeux.client.transport.ClientTransport;
import org.bayeux.transport.http.TransportConfig;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.bayeux.client.Clients.connected;
import static org.bayeux.client.Clients.subscribe;

/**
 * The transport is the client's most preferred one that the server offers; WebSocket falls back to long-polling
 * where the server (or a proxy before it) does not upgrade.
 */
class TransportNegotiationTest {
    @Test
    void webSocketFallsBackToLongPollingWhenTheServerDoesNotUpgrade() throws Exception {
        try (TestServer server = new TestServer(engine -> { }, transports -> transports.set(TransportConfig.WEBSOCKET,
                false), engine -> { });
             BayeuxClient client = connected(BayeuxClientConfig.builder(server.url())
                     .transports(ClientTransport.WEBSOCKET, ClientTransport.LONG_POLLING).build())) {
            Received received = subscribe(client, "/f/a");
            server.publish("/f/a", Map.of("over", "long-polling"));

            assertThat(received.next().getDataAsMap()).containsEntry("over", "long-polling");
            assertThat(client.getTransportName()).isEqualTo(ClientTransport.LONG_POLLING);
            assertThat(server.engine().getSession(client.getId()).getTransportName())
                    .isEqualTo(ClientTransport.LONG_POLLING);
        }
    }

    @Test
    void aServerThatOffersNoneOfTheClientsTransportsStopsIt() throws Exception {
        try (TestServer server = new TestServer();
             BayeuxClient client = new BayeuxClient(BayeuxClientConfig.builder(server.url())
                     .transports(ClientTransport.LONG_POLLING).build())) {
            // As if the server offered only a transport this client does not have.
            client.addExtension(new ClientSession.Extension() {
                @Override
                public boolean rcvMeta(ClientSession session, Message.Mutable message) {
                    if (Message.META_HANDSHAKE.equals(message.getChannel())) {
                        message.put(Message.SUPPORTED_CONNECTION_TYPES_FIELD, List.of("flash"));
                    }
                    return true;
                }
            });

            Message reply = Clients.await(client.handshakeAsync(null));

            assertThat(reply.isSuccessful()).isFalse();
            assertThat(reply.getError()).isEqualTo(ClientErrors.NO_COMMON_TRANSPORT);
            assertThat(client.waitFor(Clients.WAIT, BayeuxClient.State.DISCONNECTED)).isTrue();
        }
    }

    @Test
    void theClientsPreferenceWinsAmongWhatTheServerOffers() throws Exception {
        try (TestServer server = new TestServer();
             BayeuxClient webSocket = connected(BayeuxClientConfig.builder(server.url())
                     .transports(ClientTransport.WEBSOCKET).build());
             BayeuxClient longPolling = connected(BayeuxClientConfig.builder(server.url())
                     .transports(ClientTransport.LONG_POLLING, ClientTransport.WEBSOCKET).build())) {
            assertThat(webSocket.getTransportName()).isEqualTo(ClientTransport.WEBSOCKET);
            assertThat(longPolling.getTransportName()).isEqualTo(ClientTransport.LONG_POLLING);
            server.awaitConnectHeld(webSocket.getId());
            server.awaitConnectHeld(longPolling.getId());
            assertThat(server.engine().getSession(webSocket.getId()).getTransportName())
                    .isEqualTo(ClientTransport.WEBSOCKET);
            assertThat(server.engine().getSession(longPolling.getId()).getTransportName())
                    .isEqualTo(ClientTransport.LONG_POLLING);
        }
    }
}
