package org.bayeux.client.example;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.Message;
import org.bayeux.client.BayeuxClient;
import org.bayeux.client.BayeuxClientConfig;
import org.bayeux.client.ClientResources;
import org.bayeux.client.ext.AckExtension;
import org.bayeux.client.transport.ClientTransport;

/**
 * The examples of {@code docs/java-client.md}: each block between {@code BEGIN} and {@code END} comments appears
 * in the guide word for word ({@code ExamplesTest} checks it), and the build compiles them. {@link #main} runs the
 * first against a server: {@code bin/bayeux demo}, then run this class with {@code http://localhost:8080/bayeux}.
 */
public final class ClientExamples {
    private ClientExamples() {
    }

    /**
     * @param args the server's URL, by default {@code http://localhost:8080/bayeux}
     * @throws Exception if the example fails
     */
    public static void main(String[] args) throws Exception {
        Object received = chat(args.length > 0 ? args[0] : "http://localhost:8080/bayeux");
        System.out.println("Received " + received);
    }

    /**
     * Connects, subscribes, publishes, receives its own message, and disconnects.
     *
     * @param url the server's Bayeux endpoint
     * @return the data received
     * @throws Exception if the server cannot be reached or answers wrongly
     */
    public static Object chat(String url) throws Exception {
        // BEGIN chat
        BayeuxClientConfig config = BayeuxClientConfig.builder(url)
                .transports(ClientTransport.WEBSOCKET, ClientTransport.LONG_POLLING)
                .build();
        try (BayeuxClient client = new BayeuxClient(config)) {
            client.addExtension(new AckExtension());
            if (client.handshake(Duration.ofSeconds(10)) != BayeuxClient.State.CONNECTED) {
                throw new IllegalStateException("Cannot connect to " + url + ": " + client.getState());
            }

            CompletableFuture<Object> received = new CompletableFuture<>();
            Message subscribed = client.getChannel("/chat/room")
                    .subscribeAsync((channel, message) -> received.complete(message.getData()))
                    .get(10, TimeUnit.SECONDS);
            if (!subscribed.isSuccessful()) {
                throw new IllegalStateException("Subscription refused: " + subscribed.getError());
            }

            client.getChannel("/chat/room").publish(Map.of("text", "hello"), (channel, reply) -> {
                if (!reply.isSuccessful()) {
                    System.err.println("Publish failed: " + reply.getError());
                }
            });
            return received.get(10, TimeUnit.SECONDS);
        }   // close() disconnects, then stops the client's threads
        // END chat
    }

    /**
     * Calls a service.
     *
     * @param client a connected client
     * @return the service's answer
     * @throws Exception if the call is interrupted
     */
    public static Object remoteCall(BayeuxClient client) throws Exception {
        // BEGIN remote-call
        Message answer = client.remoteCallAsync("/service/echo", Map.of("question", 42), Duration.ofSeconds(5))
                .get();
        if (!answer.isSuccessful()) {
            // ClientErrors.TIMEOUT when no answer came in time
            throw new IllegalStateException("The service failed: " + answer.getError());
        }
        return answer.getData();
        // END remote-call
    }

    /**
     * Starts many clients on shared resources, each subscribed to one channel.
     *
     * @param url the server's Bayeux endpoint
     * @param count how many clients
     * @param received counted down once per message a client receives
     * @return the resources and clients, to close
     * @throws Exception if the clients cannot connect
     */
    public static AutoCloseable manyClients(String url, int count, CountDownLatch received) throws Exception {
        // BEGIN many-clients
        ClientResources shared = ClientResources.builder().maxThreads(16).build();
        BayeuxClientConfig config = BayeuxClientConfig.builder(url).build();
        List<BayeuxClient> clients = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            BayeuxClient client = new BayeuxClient(config, shared);
            clients.add(client);
            client.handshake();   // returns at once; messages sent meanwhile wait for the session
            client.getChannel("/news").subscribe((channel, message) -> received.countDown(), null);
        }
        // ... later: disconnect each client, then close the shared resources
        // END many-clients
        return () -> {
            for (BayeuxClient client : clients) {
                client.disconnect(Duration.ofSeconds(5));
            }
            shared.close();
        };
    }

    /**
     * A configuration whose credentials are fetched afresh before every handshake.
     *
     * @param url the server's Bayeux endpoint
     * @param tokens where tokens come from
     * @return the configuration
     */
    public static BayeuxClientConfig credentials(String url, TokenSource tokens) {
        // BEGIN credentials
        return BayeuxClientConfig.builder(url)
                .requestHeader("X-Client", "inventory-service")
                .handshakeHook(request -> tokens.fetch().thenAccept(token -> {
                    request.header("Authorization", "Bearer " + token);   // HTTP requests and WebSocket upgrades
                    request.ext("auth", Map.of("token", token));          // the handshake message itself
                }))
                .build();
        // END credentials
    }

    /**
     * Asks for acknowledged delivery: no message lost with a connection, none twice.
     *
     * @param url the server's Bayeux endpoint (with the server's {@code ack} extension)
     * @return the client, connected if the server answered in time; the caller closes it
     * @throws InterruptedException if interrupted while waiting for the handshake
     */
    public static BayeuxClient acknowledged(String url) throws InterruptedException {
        BayeuxClient client = new BayeuxClient(BayeuxClientConfig.builder(url).build());
        // BEGIN ack
        AckExtension ack = new AckExtension();
        client.addExtension(ack);   // before the handshake
        client.handshake(Duration.ofSeconds(10));
        // ack.isServerSupportingAcks() is now true if the server has its ack extension too
        // END ack
        return client;
    }

    /** Where an application gets its tokens, for {@link #credentials}. */
    @FunctionalInterface
    public interface TokenSource {
        /** @return a fresh token, later */
        CompletionStage<String> fetch();
    }
}
