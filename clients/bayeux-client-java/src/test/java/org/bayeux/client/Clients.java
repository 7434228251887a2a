package org.bayeux.client;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.Message;
import org.bayeux.api.client.ClientSessionChannel;
import org.bayeux.client.transport.ClientTransport;

/**
 * Helpers for the client tests: configurations with short back-offs, and queues that collect what listeners get.
 */
final class Clients {
    /** The longest any test waits for one event. */
    static final Duration WAIT = Duration.ofSeconds(15);

    private Clients() {
    }

    /** The client transport preferences the scenarios run with, by label. */
    static List<String> transportLabels() {
        return List.of(ClientTransport.WEBSOCKET, ClientTransport.LONG_POLLING);
    }

    /**
     * @param url the server
     * @param label {@code websocket}: WebSocket first, long-polling as fallback; {@code long-polling}: only that
     * @return a configuration that backs off briefly
     */
    static BayeuxClientConfig.Builder config(String url, String label) {
        BayeuxClientConfig.Builder builder = BayeuxClientConfig.builder(url)
                .backoff(Duration.ofMillis(50), Duration.ofMillis(500))
                .maxNetworkDelay(Duration.ofSeconds(5));
        if (ClientTransport.LONG_POLLING.equals(label)) {
            builder.transports(ClientTransport.LONG_POLLING);
        } else {
            builder.transports(ClientTransport.WEBSOCKET, ClientTransport.LONG_POLLING);
        }
        return builder;
    }

    /** @return a handshaken, connected client */
    static BayeuxClient connected(BayeuxClientConfig config) throws InterruptedException {
        return connected(new BayeuxClient(config));
    }

    /** @return the client, handshaken and connected */
    static BayeuxClient connected(BayeuxClient client) throws InterruptedException {
        if (client.handshake(WAIT) != BayeuxClient.State.CONNECTED) {
            client.close();
            throw new AssertionError("Not connected: " + client);
        }
        return client;
    }

    /** A listener that queues what it gets. */
    static final class Received implements ClientSessionChannel.MessageListener {
        final BlockingQueue<Message> messages = new LinkedBlockingQueue<>();

        @Override
        public void onMessage(ClientSessionChannel channel, Message message) {
            messages.add(message);
        }

        Message next() throws InterruptedException {
            Message message = messages.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            if (message == null) {
                throw new AssertionError("Nothing received within " + WAIT);
            }
            return message;
        }

        boolean isEmpty() {
            return messages.isEmpty();
        }
    }

    /** Subscribes a new queue and waits for the server's reply. */
    static Received subscribe(BayeuxClient client, String channel) throws Exception {
        Received received = new Received();
        Message reply = await(client.getChannel(channel).subscribeAsync(received));
        if (!reply.isSuccessful()) {
            throw new AssertionError("Subscribe to " + channel + " failed: " + reply);
        }
        return received;
    }

    static Message await(CompletableFuture<Message> reply) throws Exception {
        return reply.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }
}
