package org.bayeux.backplane.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.LongStream;

import org.bayeux.api.Message;
import org.bayeux.backplane.redis.BackplaneFixture.Node;
import org.bayeux.api.client.ClientSession;
import org.bayeux.api.server.HistoryAccess;
import org.bayeux.api.server.HistoryAuthorizer;
import org.bayeux.client.BayeuxClient;
import org.bayeux.client.ext.RecoveryExtension;
import org.bayeux.client.transport.ClientTransport;
import org.bayeux.server.config.BayeuxServerConfig;
import org.cometd.client.http.jetty.JettyHttpClientTransport;
import org.eclipse.jetty.client.HttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Recovery across real servers: two nodes (Jetty on 127.0.0.1, port 0) on one redis-server, a subscriber of ours that
 * reaches its node through a {@link TcpProxy} (which cuts it off, or sends it to the other node, as a load balancer
 * would), and a publisher of ours on the other node that goes on publishing meanwhile. Every publish is acknowledged
 * before the next, so the expected order is the publishing order.
 */
class RecoveryTest {
    private static final Duration WAIT = BackplaneFixture.WAIT;
    private static final String CHANNEL = "/chat/room";
    @RegisterExtension
    final BackplaneFixture fixture = new BackplaneFixture();
    private final List<Node> nodes = new ArrayList<>();
    /** Per node, what its readers run before each live delivery (the backplane's test seam); empty outside one test. */
    private final Map<Node, AtomicReference<Runnable>> beforeLiveDelivery = new HashMap<>();
    private TcpProxy proxy;

    @AfterEach
    void letReadersGo() {
        for (AtomicReference<Runnable> hook : beforeLiveDelivery.values()) {
            hook.set(null);
        }
    }

    private Node node(RedisBackplaneConfig.Builder backplaneConfig) throws Exception {
        // A short maxInterval: a client cut off for a couple of seconds loses its session and handshakes again.
        RedisBackplaneConfig config = withHistory(backplaneConfig).uri(fixture.redis().uri())
                .operationTimeout(Duration.ofSeconds(2)).build();
        AtomicReference<Runnable> hook = new AtomicReference<>();
        Node node = fixture.node(BayeuxServerConfig.builder().timeout(Duration.ofSeconds(2))
                .maxInterval(Duration.ofSeconds(1)).sweepPeriod(Duration.ofMillis(100)).build(),
                new RedisBackplane(config, HistoryAuthorizer.always(HistoryAccess.lookBack(config.historyLookBack())),
                        () -> {
                            Runnable held = hook.get();
                            if (held != null) {
                                held.run();
                            }
                        }));
        nodes.add(node);
        beforeLiveDelivery.put(node, hook);
        return node;
    }

    /**
     * History is opt-in: on for /chat/** unless the test names its own rules; and a client that comes back after its
     * session expired recovers what was published while it was away (a look-back longer than any outage here).
     */
    private static RedisBackplaneConfig.Builder withHistory(RedisBackplaneConfig.Builder config) {
        if (config.build().historyRules().isBlank()) {
            config.historyRules("/chat/**");
        }
        return config.historyLookBack(Duration.ofMinutes(10));
    }

    private Node node() throws Exception {
        return node(RedisBackplaneConfig.builder());
    }

    private BayeuxClient client(String url, String transport) throws Exception {
        return fixture.client(url, transport, Duration.ofMillis(300));
    }

    private BayeuxClient viaProxy(Node node, String transport) throws Exception {
        proxy = fixture.closing(new TcpProxy(node.port()));
        return client("http://127.0.0.1:" + proxy.port() + "/bayeux", transport);
    }

    private static List<Integer> subscribe(BayeuxClient client) throws Exception {
        List<Integer> received = new CopyOnWriteArrayList<>();
        Message reply = client.getChannel(CHANNEL)
                .subscribeAsync((c, message) -> received.add(((Number) message.getData()).intValue()))
                .get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(reply.isSuccessful()).isTrue();
        return received;
    }

    private static void publish(BayeuxClient publisher, int from, int to) throws Exception {
        for (int i = from; i < to; i++) {
            Message reply = publisher.getChannel(CHANNEL).publishAsync(i).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(reply.isSuccessful()).as("publish %d acknowledged", i).isTrue();
        }
    }

    private static List<Integer> range(int from, int to) {
        return IntStream.range(from, to).boxed().collect(Collectors.toList());
    }

    private static Optional<Boolean> recovered(BayeuxClient client) {
        return client.getRecovery().orElseThrow().recovered(CHANNEL);
    }

    /**
     * Cut off, publishes continue on the other node, the session expires, the proxy lets the client back (to
     * {@code back}): it handshakes again, subscribes again with its position, and gets everything, once, in order,
     * while the publisher keeps publishing through its resubscription.
     */
    private void cutOffThenBack(Node subscriberNode, Node publisherNode, boolean stopSubscriberNode, Node back,
            String transport) throws Exception {
        BayeuxClient subscriber = viaProxy(subscriberNode, transport);
        List<Integer> received = subscribe(subscriber);
        BayeuxClient publisher = client(publisherNode.url(), ClientTransport.LONG_POLLING);
        assertThat(subscriber.getRecovery().orElseThrow().isOffered()).as("offered in the handshake reply").isTrue();

        publish(publisher, 0, 20);
        await("first messages").atMost(WAIT).until(() -> received.size() == 20);
        String firstSession = subscriber.getId();

        proxy.cut();
        if (stopSubscriberNode) {
            subscriberNode.server().stop();
        }
        publish(publisher, 20, 120);
        if (!stopSubscriberNode) {
            await("session expired on its node").atMost(WAIT)
                    .until(() -> subscriberNode.engine().getSession(firstSession) == null);
        }
        proxy.resume(back.port());
        // Publishes go on while the client comes back, handshakes and recovers.
        publish(publisher, 120, 220);
        await("everything received").atMost(WAIT).until(() -> received.size() >= 220);
        publish(publisher, 220, 221);
        await("the last one received").atMost(WAIT).until(() -> received.contains(220));

        assertThat(received).as("all, once, in order").isEqualTo(range(0, 221));
        assertThat(subscriber.getId()).as("a new session").isNotEqualTo(firstSession);
        assertThat(recovered(subscriber)).contains(true);
        assertThat(subscriber.getRecovery().orElseThrow().position(CHANNEL).orElseThrow().offset()).isEqualTo(221);
    }

    @Test
    void aClientCutOffLongerThanItsSessionRecoversEverythingOnItsNode() throws Exception {
        Node a = node();
        Node b = node();
        cutOffThenBack(a, b, false, a, ClientTransport.WEBSOCKET);
    }

    @Test
    void aClientWhoseNodeStopsRecoversEverythingOnTheOtherNode() throws Exception {
        Node a = node();
        Node b = node();
        cutOffThenBack(a, b, true, b, ClientTransport.LONG_POLLING);
    }

    /** Publishes in windows of {@code window} unacknowledged publishes (pipelined), each acknowledged in the end. */
    private static void publishPipelined(BayeuxClient publisher, int from, int to, int window) throws Exception {
        for (int start = from; start < to; start += window) {
            List<CompletableFuture<Message>> replies = new ArrayList<>();
            for (int i = start; i < Math.min(to, start + window); i++) {
                replies.add(publisher.getChannel(CHANNEL).publishAsync(i));
            }
            for (CompletableFuture<Message> reply : replies) {
                assertThat(reply.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).isSuccessful()).isTrue();
            }
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void aClientRecoversWhileAFastPublisherKeepsGoingWithoutGapOrDuplicateAtTheSeam() throws Exception {
        RedisBackplaneConfig.Builder config = RedisBackplaneConfig.builder().history(10_000, Duration.ofMinutes(10))
                .recoveryMaxMessages(10_000);
        Node a = node(config);
        Node b = node(RedisBackplaneConfig.builder().history(10_000, Duration.ofMinutes(10)).recoveryMaxMessages(10_000));
        BayeuxClient subscriber = viaProxy(a, ClientTransport.WEBSOCKET);
        List<long[]> received = new CopyOnWriteArrayList<>();
        Message subscribed = subscriber.getChannel(CHANNEL).subscribeAsync((c, message) -> {
            Map<String, Object> position = (Map<String, Object>) message.getExt().get("position");
            received.add(new long[] {((Number) message.getData()).longValue(),
                ((Number) position.get("offset")).longValue()});
        }).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(subscribed.isSuccessful()).isTrue();
        BayeuxClient publisher = client(b.url(), ClientTransport.WEBSOCKET);
        publish(publisher, 0, 20);
        await("first messages").atMost(WAIT).until(() -> received.size() == 20);
        String firstSession = subscriber.getId();

        proxy.cut();
        publishPipelined(publisher, 20, 520, 100);
        await("session expired").atMost(WAIT).until(() -> a.engine().getSession(firstSession) == null);
        CompletableFuture<Void> meanwhile = CompletableFuture.runAsync(() -> {
            try {
                publishPipelined(publisher, 520, 2520, 100);
            } catch (Exception failed) {
                throw new IllegalStateException(failed);
            }
        });
        proxy.resume(a.port());
        meanwhile.get(WAIT.toMillis() * 4, TimeUnit.MILLISECONDS);
        await("everything received").atMost(WAIT).until(() -> received.size() >= 2520);
        publish(publisher, 2520, 2521);
        await("the last one").atMost(WAIT).until(() -> received.size() >= 2521);

        assertThat(received.stream().map(r -> r[1]).collect(Collectors.toList()))
                .as("offsets 1..2521: none missing, none twice, in order").isEqualTo(IntStream.rangeClosed(1, 2521)
                        .mapToObj(i -> (long) i).collect(Collectors.toList()));
        assertThat(received.stream().map(r -> r[0]).sorted().collect(Collectors.toList()))
                .as("every publish once").isEqualTo(LongStream.range(0, 2521).boxed().collect(Collectors.toList()));
        assertThat(recovered(subscriber)).contains(true);
    }

    @Test
    void aClientAwayLongerThanTheHistoryIsToldRecoveredFalseAndGoesOnLive() throws Exception {
        awayTooLong(RedisBackplaneConfig.builder().historyRules("/chat/**=10/10m"));
    }

    @Test
    void aClientThatMissedMoreThanOneRecoveryTakesIsToldRecoveredFalse() throws Exception {
        awayTooLong(RedisBackplaneConfig.builder().recoveryMaxMessages(10));
    }

    /** Misses 30 messages where 10 at most can be recovered: none of them comes, live ones do. */
    private void awayTooLong(RedisBackplaneConfig.Builder config) throws Exception {
        Node a = node(config);
        Node b = node(config);
        BayeuxClient subscriber = viaProxy(a, ClientTransport.WEBSOCKET);
        List<Integer> received = subscribe(subscriber);
        BayeuxClient publisher = client(b.url(), ClientTransport.LONG_POLLING);
        publish(publisher, 0, 5);
        await("first messages").atMost(WAIT).until(() -> received.size() == 5);
        String firstSession = subscriber.getId();

        proxy.cut();
        publish(publisher, 5, 35);
        await("session expired").atMost(WAIT).until(() -> a.engine().getSession(firstSession) == null);
        proxy.resume(a.port());
        await("told it did not recover").atMost(WAIT).until(() -> recovered(subscriber).isPresent());
        assertThat(recovered(subscriber)).contains(false);
        assertThat(subscriber.getRecovery().orElseThrow().position(CHANNEL).orElseThrow().offset())
                .as("the server's position taken").isEqualTo(35);
        publish(publisher, 35, 36);
        await("live again").atMost(WAIT).until(() -> received.contains(35));
        assertThat(received).isEqualTo(List.of(0, 1, 2, 3, 4, 35));
    }

    @Test
    void aClientWhoseChannelChangedEpochIsToldRecoveredFalse() throws Exception {
        Node a = node();
        Node b = node();
        BayeuxClient subscriber = viaProxy(a, ClientTransport.WEBSOCKET);
        List<Integer> received = subscribe(subscriber);
        BayeuxClient publisher = client(b.url(), ClientTransport.LONG_POLLING);
        publish(publisher, 0, 5);
        await("first messages").atMost(WAIT).until(() -> received.size() == 5);
        String oldEpoch = subscriber.getRecovery().orElseThrow().position(CHANNEL).orElseThrow().epoch();
        String firstSession = subscriber.getId();

        proxy.cut();
        fixture.redis().flushAll();
        publish(publisher, 5, 8);
        await("session expired").atMost(WAIT).until(() -> a.engine().getSession(firstSession) == null);
        proxy.resume(a.port());
        await("told it did not recover").atMost(WAIT).until(() -> recovered(subscriber).isPresent());
        assertThat(recovered(subscriber)).contains(false);
        RecoveryExtension.Position position = subscriber.getRecovery().orElseThrow().position(CHANNEL).orElseThrow();
        assertThat(position.epoch()).isNotEqualTo(oldEpoch);
        assertThat(position.offset()).isEqualTo(3);
        publish(publisher, 8, 9);
        await("live again").atMost(WAIT).until(() -> received.contains(8));
        assertThat(received).isEqualTo(List.of(0, 1, 2, 3, 4, 8));
    }

    @Test
    void anUnmodifiedCometDClientGetsMessagesWithPositionsAndPublishesAsBefore() throws Exception {
        Node a = node();
        Node b = node();
        HttpClient http = new HttpClient();
        http.start();
        fixture.closing(http::stop);
        org.cometd.client.BayeuxClient cometd = new org.cometd.client.BayeuxClient(a.url(),
                new JettyHttpClientTransport(new HashMap<>(), http));
        fixture.closing(() -> cometd.disconnect(1000));
        CompletableFuture<org.cometd.bayeux.Message> handshake = new CompletableFuture<>();
        cometd.handshake(handshake::complete);
        assertThat(handshake.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).isSuccessful()).isTrue();
        List<org.cometd.bayeux.Message> atCometD = new CopyOnWriteArrayList<>();
        CompletableFuture<org.cometd.bayeux.Message> subscribed = new CompletableFuture<>();
        cometd.getChannel(CHANNEL).subscribe((channel, message) -> atCometD.add(message), subscribed::complete);
        assertThat(subscribed.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).isSuccessful()).isTrue();

        BayeuxClient ours = client(b.url(), ClientTransport.WEBSOCKET);
        List<Integer> atOurs = subscribe(ours);
        publish(ours, 0, 3);
        // Received before CometD publishes: a long-polling client that publishes while messages wait for it may get
        // some on the publish's reply and others on the connect's, two responses its client dispatches on two
        // threads, in either order (seen once: 0, 2, 1, 3). The order asserted here is the server's, not that race's.
        await("CometD received the first three").atMost(WAIT).until(() -> atCometD.size() == 3);
        CompletableFuture<org.cometd.bayeux.Message> published = new CompletableFuture<>();
        cometd.getChannel(CHANNEL).publish(3, published::complete);
        assertThat(published.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).isSuccessful()).isTrue();

        await("CometD received all").atMost(WAIT).until(() -> atCometD.size() == 4);
        await("ours received all").atMost(WAIT).until(() -> atOurs.size() == 4);
        assertThat(atCometD.stream().map(m -> ((Number) m.getData()).intValue())).containsExactly(0, 1, 2, 3);
        assertThat(atOurs).containsExactly(0, 1, 2, 3);
        for (int i = 0; i < 4; i++) {
            Map<String, Object> ext = atCometD.get(i).getExt();
            assertThat(ext).as("position in ext").containsKey("position");
            assertThat(((Map<?, ?>) ext.get("position")).get("offset")).isEqualTo((long) i + 1);
        }
    }

    /**
     * The seam when the node's stream reader is behind the history read: the missed messages are read from the history
     * and delivered while their live copies are still on their way through this node's reader, held back here by the
     * test seam given to its {@link RedisBackplane}. When they arrive (after the recovery has ended), they are
     * not delivered again; nor to a subscriber that asked only for the position ({@code recovery: {}}).
     */
    @Test
    void liveMessagesArrivingAfterTheRecoveryThatTheHistoryHadAreNotDeliveredTwice() throws Exception {
        Node a = node();
        Node b = node();
        BayeuxClient publisher = client(b.url(), ClientTransport.LONG_POLLING);
        List<Integer> atPublisher = subscribe(publisher);
        // Node a reads the channel's shard only while one of its sessions subscribes to it (ShardReads).
        subscribe(client(a.url(), ClientTransport.LONG_POLLING));
        publish(publisher, 0, 5);
        await("first messages").atMost(WAIT).until(() -> atPublisher.size() == 5);
        String epoch = publisher.getRecovery().orElseThrow().position(CHANNEL).orElseThrow().epoch();

        CountDownLatch readerHeld = new CountDownLatch(1);
        CountDownLatch letGo = new CountDownLatch(1);
        beforeLiveDelivery.get(a).set(() -> {
            readerHeld.countDown();
            try {
                letGo.await(WAIT.toMillis() * 2, TimeUnit.MILLISECONDS);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
        });
        List<Integer> recovered;
        List<Integer> fresh;
        try {
            publish(publisher, 5, 8);
            assertThat(readerHeld.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).as("node a's reader held").isTrue();
            // A client that received offsets 1..5 (0..4) resubscribes on node a: 6..8 come from the history.
            BayeuxClient recovering = client(a.url(), ClientTransport.LONG_POLLING);
            recovering.addExtension(new ClientSession.Extension() {
                @Override
                public boolean sendMeta(ClientSession session, Message.Mutable message) {
                    if (Message.META_SUBSCRIBE.equals(message.getChannel())) {
                        message.getExt(true).put("recovery", Map.of("offset", 5L, "epoch", epoch));
                    }
                    return true;
                }
            });
            recovered = subscribe(recovering);
            assertThat(recovered(recovering)).contains(true);
            await("missed messages from the history").atMost(WAIT).until(() -> recovered.size() >= 3);
            BayeuxClient positionOnly = client(a.url(), ClientTransport.LONG_POLLING);
            fresh = subscribe(positionOnly);
            assertThat(positionOnly.getRecovery().orElseThrow().position(CHANNEL).orElseThrow().offset())
                    .isEqualTo(8);
        } finally {
            letGo.countDown();
        }
        publish(publisher, 8, 9);
        await("the next live one").atMost(WAIT).until(() -> recovered.contains(8) && fresh.contains(8));
        assertThat(recovered).as("missed once, then live").isEqualTo(List.of(5, 6, 7, 8));
        assertThat(fresh).as("only what came after its position").isEqualTo(List.of(8));
    }
}
