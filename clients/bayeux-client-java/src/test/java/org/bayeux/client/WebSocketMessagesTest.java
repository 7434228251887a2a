package org.bayeux.client;

import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.Message;
import org.bayeux.client.Clients.Received;
import org.bayeux.client.transport.ClientTransport;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.bayeux.client.Clients.config;
import static org.bayeux.client.Clients.connected;
import static org.bayeux.client.Clients.subscribe;

/**
 * Messages over the WebSocket transport at the edges of their size: larger than one frame, and larger than the
 * client accepts.
 */
class WebSocketMessagesTest {

    @Test
    void aMessageOfManyFramesArrivesWholeWithItsMultiByteCharacters() throws Exception {
        // Jetty splits what it reads into frames of at most 64 KB; two- and three-byte characters straddle the cuts.
        String text = "é€a".repeat(100_000);
        try (TestServer server = new TestServer();
             BayeuxClient client = connected(config(server.url(), ClientTransport.WEBSOCKET).build())) {
            assertThat(client.getTransportName()).isEqualTo(ClientTransport.WEBSOCKET);
            Received room = subscribe(client, "/big");

            server.publish("/big", Map.of("text", text));

            assertThat(room.next().getDataAsMap().get("text")).isEqualTo(text);
        }
    }

    @Test
    void aMessageOverTheClientsLimitIsRefusedAndTheClientCarriesOn() throws Exception {
        try (TestServer server = new TestServer();
             BayeuxClient client = connected(config(server.url(), ClientTransport.WEBSOCKET)
                     .maxIncomingMessageBytes(16 * 1024).build())) {
            Received room = subscribe(client, "/big");
            LinkedBlockingQueue<Message> connects = new LinkedBlockingQueue<>();
            client.getChannel(Message.META_CONNECT).addListener((channel, reply) -> connects.add(reply));

            server.publish("/big", Map.of("text", "x".repeat(20 * 1024)));

            // The socket is closed with the message unread: the held connect fails, and the client connects again.
            Message failed = poll(connects);
            assertThat(failed.isSuccessful()).isFalse();
            Message again = poll(connects);
            for (int retries = 0; retries < 10 && !again.isSuccessful(); retries++) {
                again = poll(connects);
            }
            assertThat(again.isSuccessful()).isTrue();
            assertThat(client.getTransportName()).isEqualTo(ClientTransport.WEBSOCKET);
            server.publish("/big", Map.of("text", "small"));
            assertThat(room.next().getDataAsMap()).containsEntry("text", "small");
            assertThat(room.isEmpty()).isTrue();
        }
    }

    @Test
    void theWebSocketRunsOnTheSharedThreadsOnly() throws Exception {
        try (TestServer server = new TestServer();
             ClientResources shared = ClientResources.builder().maxThreads(8).build();
             BayeuxClient client = connected(new BayeuxClient(config(server.url(), ClientTransport.WEBSOCKET).build(),
                     shared))) {
            Received room = subscribe(client, "/threads");
            server.publish("/threads", Map.of("n", 1));
            room.next();

            assertThat(client.getTransportName()).isEqualTo(ClientTransport.WEBSOCKET);
            // Not a thread pool of Jetty's own next to the shared one.
            assertThat(shared.webSocketClient().getWebSocketComponents().getExecutor()).isSameAs(shared.executor());
            assertThat(shared.webSocketClient().getWebSocketComponents().getByteBufferPool())
                    .isSameAs(shared.httpClient().getByteBufferPool());
        }
    }

    private static Message poll(LinkedBlockingQueue<Message> queue) throws InterruptedException {
        Message message = queue.poll(Clients.WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(message).as("a /meta/connect reply within " + Clients.WAIT).isNotNull();
        return message;
    }
}
