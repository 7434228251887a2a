package org.bayeux.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.Message;
import org.bayeux.api.server.LocalSession;
import org.bayeux.client.BayeuxClient;
import org.bayeux.client.BayeuxClientConfig;
import org.bayeux.client.transport.ClientTransport;
import org.bayeux.testsupport.BalancerProxy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * The standalone server's graceful shutdown in one JVM ({@link StandaloneServer#stop()}, which SIGTERM runs): two
 * nodes behind a test balancer; the first one drains while our Java client has messages queued on it. The client
 * gets every queued message, then handshake advice, and ends up on the second node, resubscribed; the drain ends as
 * soon as no client is left. A client that never comes back holds the shutdown no longer than {@code drainTimeout};
 * meanwhile {@code GET /ready} answers 503 draining and handshakes are refused with retry advice.
 */
class StandaloneDrainTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int QUEUED = 20;
    private static final String CHANNEL = "/drain/room";

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
    }

    private StandaloneServer start(String... args) throws Exception {
        StandaloneServer server = new StandaloneServer(StandaloneOptions.parse(Map.of(), args).port(0)
                .host("127.0.0.1"));
        closing.add(server);
        return server;
    }

    @ParameterizedTest(name = "{0}, ack {1}")
    @CsvSource({"long-polling,false", "websocket,false", "long-polling,true", "websocket,true"})
    void queuedMessagesReachTheClientBeforeItMovesToAnotherNode(String transport, boolean ack) throws Exception {
        String extensions = ack ? "ack" : "timestamp";
        StandaloneServer a = start("--set", "drainTimeout=30s", "--set", "maxLazyTimeout=120s", "--extensions",
                extensions);
        StandaloneServer b = start("--extensions", extensions);
        BalancerProxy balancer = new BalancerProxy(a.getPort());
        closing.add(balancer);
        // Lazy for longer than the test: the messages stay queued on A until the drain flushes them.
        a.getEngine().createChannelIfAbsent(CHANNEL, channel -> {
            channel.setLazy(true);
            channel.setLazyTimeout(Duration.ofSeconds(120));
        });
        BlockingQueue<Message> received = new LinkedBlockingQueue<>();
        BayeuxClient client = new BayeuxClient(BayeuxClientConfig.builder("http://127.0.0.1:" + balancer.port()
                + "/bayeux").transports(transport).build());
        closing.add(client);
        if (ack) {
            client.addExtension(new org.bayeux.client.ext.AckExtension());
        }
        assertThat(client.handshake(WAIT)).isEqualTo(BayeuxClient.State.CONNECTED);
        assertThat(client.getChannel(CHANNEL).subscribeAsync((channel, message) -> received.add(message))
                .get(WAIT.toMillis(), TimeUnit.MILLISECONDS).isSuccessful()).isTrue();
        String firstId = client.getId();
        await("the client's connect held on A").atMost(WAIT).pollInterval(Duration.ofMillis(10))
                .until(() -> a.getEngine().getSession(firstId) != null
                        && a.getEngine().isConnectHeld(a.getEngine().getSession(firstId)));

        LocalSession publisher = a.getEngine().newLocalSession("publisher");
        publisher.handshake();
        for (int i = 0; i < QUEUED; i++) {
            publisher.getChannel(CHANNEL).publish(i, null);
        }
        assertThat(received).as("lazy: queued on A, not delivered yet").isEmpty();

        long drainStart = System.nanoTime();
        CompletableFuture<Void> closed = CompletableFuture.runAsync(a::stop);
        // A balancer moves new connections away once the node's readiness fails; the test's does it at once.
        await("A draining").atMost(WAIT).pollInterval(Duration.ofMillis(1)).until(a::isDraining);
        balancer.route(b.getPort());

        List<Object> data = new ArrayList<>();
        for (int i = 0; i < QUEUED; i++) {
            Message message = received.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(message).as("queued message %d", i).isNotNull();
            data.add(((Number) message.getData()).intValue());
        }
        assertThat(data).as("every queued message, once, in order").isEqualTo(
                java.util.stream.IntStream.range(0, QUEUED).boxed().toList());
        closed.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        long drainMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - drainStart);
        assertThat(drainMillis).as("the drain ended when the client left, well before drainTimeout")
                .isLessThan(30_000);

        await("the client handshaken again, on B").atMost(WAIT).pollInterval(Duration.ofMillis(20))
                .until(() -> client.getState() == BayeuxClient.State.CONNECTED && client.getId() != null
                        && b.getEngine().getSession(client.getId()) != null);
        assertThat(client.getId()).isNotEqualTo(firstId);
        LocalSession onB = b.getEngine().newLocalSession("publisher");
        onB.handshake();
        await("resubscribed on B").atMost(WAIT).pollInterval(Duration.ofMillis(20))
                .until(() -> b.getEngine().getChannel(CHANNEL) != null
                        && !b.getEngine().getChannel(CHANNEL).getSubscribers().isEmpty());
        onB.getChannel(CHANNEL).publish("on B", null);
        Message next = received.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(next).isNotNull();
        assertThat(next.getData()).as("nothing twice: the next message is B's").isEqualTo("on B");
    }

    @Test
    void aClientThatNeverComesBackHoldsTheShutdownNoLongerThanTheDeadline() throws Exception {
        StandaloneServer a = start("--set", "drainTimeout=2s", "--set", "drainRetryInterval=3s");
        Map<String, Object> handshake = handshake(a);
        assertThat(handshake.get("successful")).isEqualTo(true);
        // It never sends a connect, nor reads anything again.

        long drainStart = System.nanoTime();
        CompletableFuture<Void> closed = CompletableFuture.runAsync(a::stop);
        await("A draining").atMost(WAIT).pollInterval(Duration.ofMillis(1)).until(a::isDraining);
        HttpResponse<String> ready = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + a.getPort()
                + Readiness.PATH)).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(ready.statusCode()).isEqualTo(503);
        assertThat(ready.body()).isEqualTo("{\"ready\":false,\"reason\":\"draining\"}");
        Map<String, Object> refused = handshake(a);
        assertThat(refused.get("successful")).isEqualTo(false);
        assertThat(refused.get("error")).isEqualTo("503::draining");
        assertThat(refused.get("advice")).isEqualTo(Map.of("reconnect", "handshake", "interval", 3000L));

        closed.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        long drainMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - drainStart);
        assertThat(drainMillis).as("waited for the deadline: the session was still there").isGreaterThanOrEqualTo(2000);
        assertThat(drainMillis).as("and no longer than the deadline, plus time to stop on a loaded machine")
                .isLessThan(2000 + 20_000);
        assertThat(a.getEngine().remoteSessionCount()).as("ended by the stop").isZero();
    }

    /**
     * A WebSocket client that stops reading with megabytes queued for it: its connection and its session cannot
     * hold the stop past the deadline.
     */
    @Test
    void aWebSocketClientThatStopsReadingHoldsTheShutdownNoLongerThanTheDeadline() throws Exception {
        StandaloneServer a = start("--set", "drainTimeout=2s", "--set", "maxQueueBytes=67108864");
        try (RawConnection raw = new RawConnection(a.getPort())) {
            raw.write("GET /bayeux HTTP/1.1\r\nHost: 127.0.0.1:" + a.getPort() + "\r\nUpgrade: websocket\r\n"
                    + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                    + "Sec-WebSocket-Version: 13\r\n\r\n");
            assertThat(raw.readHead(10_000)).startsWith("HTTP/1.1 101");
            raw.writeTextFrame("[{\"id\":\"1\",\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                    + "\"supportedConnectionTypes\":[\"websocket\"]}]");
            java.util.regex.Matcher id = java.util.regex.Pattern.compile("\"clientId\":\"([a-z0-9]+)\"")
                    .matcher(raw.readTextFrame(10_000));
            assertThat(id.find()).isTrue();
            String clientId = id.group(1);
            raw.writeTextFrame("[{\"id\":\"2\",\"channel\":\"/meta/connect\",\"connectionType\":\"websocket\","
                    + "\"clientId\":\"" + clientId + "\",\"advice\":{\"timeout\":0}}]");
            assertThat(raw.readTextFrame(10_000)).contains("\"successful\":true");
            raw.writeTextFrame("[{\"id\":\"3\",\"channel\":\"/meta/subscribe\",\"subscription\":\"" + CHANNEL
                    + "\",\"clientId\":\"" + clientId + "\"}]");
            assertThat(raw.readTextFrame(10_000)).contains("\"successful\":true");
            raw.writeTextFrame("[{\"id\":\"4\",\"channel\":\"/meta/connect\",\"connectionType\":\"websocket\","
                    + "\"clientId\":\"" + clientId + "\"}]");
            await("connect held").atMost(WAIT).pollInterval(Duration.ofMillis(5))
                    .until(() -> a.getEngine().isConnectHeld(a.getEngine().getSession(clientId)));
            // From now on the client reads nothing: 20 MB for it fill the socket's buffers and wait in its queue.
            LocalSession publisher = a.getEngine().newLocalSession("publisher");
            publisher.handshake();
            String blob = "x".repeat(100_000);
            for (int i = 0; i < 200; i++) {
                publisher.getChannel(CHANNEL).publish(blob, null);
            }

            long drainStart = System.nanoTime();
            CompletableFuture.runAsync(a::stop).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            long drainMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - drainStart);
            assertThat(drainMillis).as("no longer than the deadline, plus time to stop on a loaded machine")
                    .isLessThan(2000 + 20_000);
            assertThat(a.getEngine().getSession(clientId)).as("ended").isNull();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {ClientTransport.LONG_POLLING, ClientTransport.WEBSOCKET})
    void aHandshakeRefusedWhileDrainingIsRetriedAndLandsOnAnotherNode(String transport) throws Exception {
        StandaloneServer a = start("--set", "drainTimeout=4s", "--set", "drainRetryInterval=300ms");
        StandaloneServer b = start();
        BalancerProxy balancer = new BalancerProxy(a.getPort());
        closing.add(balancer);
        assertThat(handshake(a).get("successful")).isEqualTo(true); // never comes back: A drains until 4s
        CompletableFuture<Void> closed = CompletableFuture.runAsync(a::stop);
        await("A draining").atMost(WAIT).pollInterval(Duration.ofMillis(1)).until(a::isDraining);

        BlockingQueue<Message> refusals = new LinkedBlockingQueue<>();
        BayeuxClient client = new BayeuxClient(BayeuxClientConfig.builder("http://127.0.0.1:" + balancer.port()
                + "/bayeux").transports(transport).build());
        closing.add(client);
        client.getChannel(Message.META_HANDSHAKE).addListener((channel, message) -> {
            if (!message.isSuccessful()) {
                refusals.add(message);
            }
        });
        client.handshake(null, null);
        Message refused = refusals.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(refused).as("refused by A").isNotNull();
        assertThat(refused.get(Message.ERROR_FIELD)).isEqualTo("503::draining");
        balancer.route(b.getPort());
        await("the client connected to B by itself").atMost(WAIT).pollInterval(Duration.ofMillis(20))
                .until(() -> client.getState() == BayeuxClient.State.CONNECTED && client.getId() != null
                        && b.getEngine().getSession(client.getId()) != null);
        for (Message other : refusals) {
            assertThat(other.get(Message.ERROR_FIELD)).isEqualTo("503::draining");
        }
        closed.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> handshake(StandaloneServer server) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + server.getPort() + "/bayeux")).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                        + "\"supportedConnectionTypes\":[\"long-polling\"]}]")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        return (Map<String, Object>) ((Object[]) new org.eclipse.jetty.util.ajax.JSON().fromJSON(response.body()))[0];
    }
}
