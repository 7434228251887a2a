package org.bayeux.backplane.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.LongStream;

import org.bayeux.api.Message;
import org.bayeux.api.Promise;
import org.bayeux.api.client.ClientSession;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.api.server.SessionExtension;
import org.bayeux.client.BayeuxClient;
import org.bayeux.client.ext.RecoveryExtension;
import org.bayeux.client.transport.ClientTransport;
import org.bayeux.server.BayeuxEngine;
import org.bayeux.server.config.BayeuxServerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Gaps while the session lives: a real server (Jetty on 127.0.0.1, port 0) on a redis-server of the test's own, a
 * subscriber of ours, and a publisher of ours whose every publish is acknowledged before the next. A session extension
 * on the subscriber's server session plays the connection that died with a message in it: it drops one chosen
 * delivery (or sends one twice), for that session only and once, so the client sees offsets 1, 2, 4, ... while its
 * session goes on.
 */
class GapRecoveryTest {
    private static final Duration WAIT = BackplaneFixture.WAIT;
    private static final String CHANNEL = "/chat/room";
    @RegisterExtension
    final BackplaneFixture fixture = new BackplaneFixture();
    private TcpProxy proxy;
    private BackplaneFixture.Node node;
    private BayeuxEngine engine;

    private String start(RedisBackplaneConfig.Builder config) throws Exception {
        return start(config, BayeuxServerConfig.builder().build());
    }

    private String start(RedisBackplaneConfig.Builder config, BayeuxServerConfig serverConfig) throws Exception {
        // History is opt-in: on for /chat/** unless the test names its own rules.
        if (config.build().historyRules().isBlank()) {
            config.historyRules("/chat/**");
        }
        node = fixture.node(serverConfig, new RedisBackplane(config.uri(fixture.redis().uri())
                .operationTimeout(Duration.ofSeconds(2)).build()));
        engine = node.engine();
        return node.url();
    }

    private BayeuxClient client(String url, String transport) throws Exception {
        // A short back-off: a client cut off comes back within a second of the proxy letting it through.
        return fixture.client(url, transport, Duration.ofMillis(300));
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

    private static long offsetOf(ServerMessage message) {
        Object position = message.getExt() == null ? null : message.getExt().get("position");
        return position instanceof Map && ((Map<?, ?>) position).get("offset") instanceof Number
                ? ((Number) ((Map<?, ?>) position).get("offset")).longValue() : -1;
    }

    /**
     * On one server session: drops the first delivery of one offset, sends others twice, and counts the
     * deliveries per offset and the subscribes that come in.
     */
    private static final class Network implements SessionExtension {
        final long lose;
        final Set<Long> twice;
        final Map<Long, Long> sendTwiceLater;
        final Map<Long, ServerMessage> sent = new ConcurrentHashMap<>();
        final Map<Long, AtomicInteger> deliveries = new ConcurrentHashMap<>();
        final AtomicInteger subscribes = new AtomicInteger();
        final AtomicInteger lost = new AtomicInteger();
        final Set<Long> doubled = ConcurrentHashMap.newKeySet();
        /** Run when the first subscribe comes in (the client's recovery of the gap), before it is handled. */
        volatile Runnable onSubscribe;

        /**
         * @param lose the offset whose first delivery is dropped, or -1
         * @param twice offsets delivered twice in a row
         * @param sendTwiceLater offset k to offset j: a copy of j goes again just before k
         */
        Network(long lose, Set<Long> twice, Map<Long, Long> sendTwiceLater) {
            this.lose = lose;
            this.twice = twice;
            this.sendTwiceLater = sendTwiceLater;
        }

        @Override
        public boolean rcvMeta(ServerSession session, ServerMessage.Mutable message) {
            if (Message.META_SUBSCRIBE.equals(message.getChannel()) && subscribes.incrementAndGet() == 1
                    && onSubscribe != null) {
                onSubscribe.run();
            }
            return true;
        }

        @Override
        public ServerMessage send(ServerSession session, ServerMessage message) {
            long offset = offsetOf(message);
            if (!CHANNEL.equals(message.getChannel()) || offset < 0) {
                return message;
            }
            if (offset == lose && lost.getAndIncrement() == 0) {
                return null;
            }
            deliveries.computeIfAbsent(offset, o -> new AtomicInteger()).incrementAndGet();
            sent.putIfAbsent(offset, message);
            if (twice.contains(offset) && doubled.add(offset)) {
                session.deliver(null, message.copy(), Promise.noop());
            }
            Long earlier = sendTwiceLater.get(offset);
            if (earlier != null && doubled.add(-offset)) {
                session.deliver(null, sent.get(earlier).copy(), Promise.noop());
            }
            return message;
        }
    }

    private Network network(BayeuxClient subscriber, long lose, Set<Long> twice, Map<Long, Long> later) {
        Network network = new Network(lose, twice, later);
        ServerSession session = engine.getSession(subscriber.getId());
        assertThat(session).isNotNull();
        session.addExtension(network);
        return network;
    }

    @ParameterizedTest
    @ValueSource(strings = {ClientTransport.WEBSOCKET, ClientTransport.LONG_POLLING})
    void aMessageLostWhileTheSessionLivesIsRecoveredOnceInOrder(String transport) throws Exception {
        String url = start(RedisBackplaneConfig.builder());
        BayeuxClient subscriber = client(url, transport);
        List<Integer> received = subscribe(subscriber);
        Network network = network(subscriber, 3, Set.of(), Map.of());
        // An extension of the application's, after the recovery extension: it sees what is let through, once each.
        List<Long> seenByLaterExtension = new CopyOnWriteArrayList<>();
        subscriber.addExtension(new ClientSession.Extension() {
            @Override
            public boolean rcv(ClientSession session, Message.Mutable message) {
                Map<?, ?> position = (Map<?, ?>) message.getExt().get("position");
                seenByLaterExtension.add(((Number) position.get("offset")).longValue());
                return true;
            }
        });
        BayeuxClient publisher = client(url, ClientTransport.WEBSOCKET);
        RecoveryExtension recovery = subscriber.getRecovery().orElseThrow();

        publish(publisher, 0, 20);
        await("all twenty").atMost(WAIT).until(() -> received.size() >= 20);
        assertThat(received).as("each once, in order").isEqualTo(range(0, 20));
        assertThat(seenByLaterExtension).as("later extensions see each once, in order")
                .isEqualTo(LongStream.rangeClosed(1, 20).boxed().collect(Collectors.toList()));
        assertThat(network.lost.get()).as("offset 3 dropped once").isGreaterThanOrEqualTo(1);
        assertThat(recovery.gapsDetected()).isEqualTo(1);
        assertThat(recovery.gapsRecovered()).isEqualTo(1);
        assertThat(recovery.gapsLost()).isZero();
        assertThat(recovery.recovered(CHANNEL)).contains(true);
        assertThat(network.subscribes.get()).as("one subscribe to recover").isEqualTo(1);
        assertThat(engine.getChannel(CHANNEL).getSubscribers()).as("one subscription").hasSize(1);

        // The subscription is not doubled: each later message reaches the session once.
        publish(publisher, 20, 40);
        await("all forty").atMost(WAIT).until(() -> received.size() >= 40);
        assertThat(received).isEqualTo(range(0, 40));
        for (long offset = 21; offset <= 40; offset++) {
            assertThat(network.deliveries.get(offset).get()).as("deliveries of offset %d", offset).isEqualTo(1);
        }
        assertThat(recovery.position(CHANNEL).orElseThrow().offset()).isEqualTo(40);
        assertThat(recovery.gapsDetected()).isEqualTo(1);
    }

    /**
     * The gap's subscribe is lost with its connection (the proxy cuts it as the subscribe reaches the server) and the
     * session expires meanwhile: the held messages wait, and the resubscribe after the re-handshake, which carries the
     * position of the last one let through, fills the gap. The two recoveries do not fight.
     */
    @Test
    void aGapStillOpenWhenTheSessionIsLostIsFilledByTheResubscribeAfterTheReHandshake() throws Exception {
        // The resubscribe comes from a new session: it may read what was published before it subscribed only with a
        // look-back (history access counts from a session's own first subscription).
        String url = start(RedisBackplaneConfig.builder().historyLookBack(Duration.ofMinutes(10)),
                BayeuxServerConfig.builder().timeout(Duration.ofSeconds(2))
                .maxInterval(Duration.ofSeconds(1)).sweepPeriod(Duration.ofMillis(100)).build());
        int port = node.port();
        proxy = fixture.closing(new TcpProxy(port));
        BayeuxClient subscriber = client("http://127.0.0.1:" + proxy.port() + "/bayeux", ClientTransport.WEBSOCKET);
        List<Integer> received = subscribe(subscriber);
        Network network = network(subscriber, 3, Set.of(), Map.of());
        network.onSubscribe = proxy::cut;
        String firstSession = subscriber.getId();
        BayeuxClient publisher = client(url, ClientTransport.WEBSOCKET);
        RecoveryExtension recovery = subscriber.getRecovery().orElseThrow();

        publish(publisher, 0, 6);
        await("the gap's subscribe reached the server").atMost(WAIT).until(() -> network.subscribes.get() == 1);
        await("session expired").atMost(WAIT).until(() -> engine.getSession(firstSession) == null);
        publish(publisher, 6, 10);
        proxy.resume(port);
        await("all ten").atMost(WAIT).until(() -> received.size() >= 10);
        publish(publisher, 10, 12);
        await("live ones after it").atMost(WAIT).until(() -> received.size() >= 12);

        assertThat(received).as("each once, in order").isEqualTo(range(0, 12));
        assertThat(subscriber.getId()).as("a new session").isNotEqualTo(firstSession);
        assertThat(recovery.gapsDetected()).isEqualTo(1);
        assertThat(recovery.gapsRecovered()).isEqualTo(1);
        assertThat(recovery.gapsLost()).isZero();
        assertThat(recovery.recovered(CHANNEL)).contains(true);
    }

    @ParameterizedTest
    @ValueSource(strings = {ClientTransport.WEBSOCKET, ClientTransport.LONG_POLLING})
    void aGapTheHistoryNoLongerCoversIsAcceptedAndTheHeldMessagesGoInOrder(String transport) throws Exception {
        // A history of one message: when the client asks for offset 3 (after 4 arrived), it is gone.
        String url = start(RedisBackplaneConfig.builder().historyRules("/chat/**=1/10m"));
        BayeuxClient subscriber = client(url, transport);
        List<Integer> received = subscribe(subscriber);
        Network network = network(subscriber, 3, Set.of(), Map.of());
        BayeuxClient publisher = client(url, ClientTransport.WEBSOCKET);
        RecoveryExtension recovery = subscriber.getRecovery().orElseThrow();

        publish(publisher, 0, 10);
        await("all but the lost one").atMost(WAIT).until(() -> received.size() >= 9);
        await("the gap given up").atMost(WAIT).until(() -> recovery.gapsLost() == 1);
        publish(publisher, 10, 12);
        await("live ones after it").atMost(WAIT).until(() -> received.size() >= 11);
        List<Integer> expected = range(0, 12);
        expected.remove(Integer.valueOf(2));
        assertThat(received).as("every other one once, in order").isEqualTo(expected);
        assertThat(recovery.recovered(CHANNEL)).contains(false);
        assertThat(recovery.gapsDetected()).isEqualTo(1);
        assertThat(recovery.gapsRecovered()).isZero();
        assertThat(network.subscribes.get()).isEqualTo(1);
        assertThat(recovery.position(CHANNEL).orElseThrow().offset()).isEqualTo(12);
    }

    @ParameterizedTest
    @ValueSource(strings = {ClientTransport.WEBSOCKET, ClientTransport.LONG_POLLING})
    void aMessageDeliveredTwiceReachesTheApplicationOnce(String transport) throws Exception {
        String url = start(RedisBackplaneConfig.builder());
        BayeuxClient subscriber = client(url, transport);
        List<Integer> received = subscribe(subscriber);
        // Offset 3 twice in a row, and offset 2 again just before offset 6.
        Network network = network(subscriber, -1, Set.of(3L), Map.of(6L, 2L));
        BayeuxClient publisher = client(url, ClientTransport.WEBSOCKET);
        RecoveryExtension recovery = subscriber.getRecovery().orElseThrow();

        publish(publisher, 0, 10);
        await("all ten").atMost(WAIT).until(() -> received.size() >= 10);
        await("both duplicates seen").atMost(WAIT).until(() -> recovery.duplicatesDropped() >= 2);
        publish(publisher, 10, 11);
        await("the last one").atMost(WAIT).until(() -> received.contains(10));
        assertThat(received).as("each once, in order").isEqualTo(range(0, 11));
        assertThat(recovery.duplicatesDropped()).isEqualTo(2);
        assertThat(network.deliveries.get(3L).get()).as("offset 3 sent twice").isEqualTo(2);
        assertThat(recovery.gapsDetected()).isZero();
        assertThat(network.subscribes.get()).as("no recovery").isZero();
    }
}
