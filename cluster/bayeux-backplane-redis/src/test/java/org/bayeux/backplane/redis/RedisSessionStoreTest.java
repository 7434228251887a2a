package org.bayeux.backplane.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.bayeux.backplane.redis.BackplaneFixture.WAIT;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.bayeux.api.Message;
import org.bayeux.api.client.ClientSessionChannel;
import org.bayeux.client.BayeuxClient;
import org.bayeux.client.BayeuxClientConfig;
import org.bayeux.client.ext.AckExtension;
import org.bayeux.client.transport.ClientTransport;
import org.bayeux.server.cluster.ChannelPosition;
import org.bayeux.server.cluster.SessionState;
import org.bayeux.server.config.BayeuxServerConfig;
import org.bayeux.server.ext.AcknowledgedMessagesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Sessions' state in Redis ({@link RedisSessionStore}): what a node writes is what another node reads, exactly;
 * keys of a removed or dead node's session go; a Redis the store cannot reach delays nothing.
 */
class RedisSessionStoreTest {
    private static final String CHANNEL = "/chat/room";

    @RegisterExtension
    final BackplaneFixture fixture = new BackplaneFixture();

    /** A message as the subscriber got it: its data and its position. */
    private record Got(Object data, ChannelPosition position) {
    }

    private RedisBackplaneConfig.Builder storing(String uri) {
        return fixture.config().uri(uri).historyRules("/chat/**").sessionStore(true, Duration.ofMillis(50), Duration.ofSeconds(1))
                .reconnectWindow(Duration.ofSeconds(1));
    }

    private BackplaneFixture.Node node(RedisBackplaneConfig config, Duration maxInterval) throws Exception {
        RedisBackplane backplane = new RedisBackplane(config);
        return fixture.node(BayeuxServerConfig.builder().timeout(Duration.ofSeconds(2))
                .maxInterval(maxInterval).build(), backplane, engine -> {
                    if (backplane.sessionStore() != null) {
                        engine.setSessionStore(backplane.sessionStore());
                    }
                });
    }

    private BayeuxClient client(String url, String transport, boolean ack) throws Exception {
        BayeuxClient client = new BayeuxClient(BayeuxClientConfig.builder(url).transports(transport)
                .backoff(Duration.ofMillis(50), Duration.ofMillis(500)).build());
        if (ack) {
            client.addExtension(new AckExtension());
        }
        fixture.closing(() -> {
            client.disconnect(Duration.ofSeconds(1));
            client.close();
        });
        assertThat(client.handshake(WAIT)).isEqualTo(BayeuxClient.State.CONNECTED);
        return client;
    }

    private static BlockingQueue<Got> subscribe(BayeuxClient client, String channel) throws Exception {
        BlockingQueue<Got> received = new LinkedBlockingQueue<>();
        subscribe(client, channel, received);
        return received;
    }

    private static ClientSessionChannel.MessageListener subscribe(BayeuxClient client, String channel,
            BlockingQueue<Got> received) throws Exception {
        ClientSessionChannel.MessageListener listener = (c, message) -> received.add(
                new Got(message.getData(), ChannelPosition.of(message)));
        Message reply = client.getChannel(channel).subscribeAsync(listener).get(WAIT.toMillis(),
                TimeUnit.MILLISECONDS);
        assertThat(reply.isSuccessful()).isTrue();
        return listener;
    }

    private static void publish(BayeuxClient client, String channel, Object data) throws Exception {
        assertThat(client.getChannel(channel).publishAsync(data).get(WAIT.toMillis(), TimeUnit.MILLISECONDS)
                .isSuccessful()).isTrue();
    }

    private static List<Got> take(BlockingQueue<Got> queue, int count) throws InterruptedException {
        List<Got> got = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Got next = queue.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(next).as("message " + i + " within " + WAIT).isNotNull();
            got.add(next);
        }
        return got;
    }

    @Test
    void anotherNodeFindsTheSubscriptionsAndPositionsOfASessionExactly() throws Exception {
        for (String transport : List.of(ClientTransport.WEBSOCKET, ClientTransport.LONG_POLLING)) {
            BackplaneFixture.Node a = node(storing(fixture.redis().uri()).build(), Duration.ofSeconds(10));
            BackplaneFixture.Node b = node(storing(fixture.redis().uri()).build(), Duration.ofSeconds(10));
            BayeuxClient subscriber = client(a.url(), transport, false);
            String channel = CHANNEL + "-" + transport;
            BlockingQueue<Got> received = new LinkedBlockingQueue<>();
            ClientSessionChannel.MessageListener listener = subscribe(subscriber, channel, received);
            subscribe(subscriber, "/other");
            BayeuxClient publisher = client(b.url(), ClientTransport.WEBSOCKET, false);
            for (int i = 0; i < 20; i++) {
                publish(publisher, channel, "m" + i);
            }
            List<Got> got = take(received, 20);
            ChannelPosition last = got.get(19).position();
            assertThat(last.offset()).isEqualTo(20);

            SessionState live = (SessionState) a.engine().getSession(subscriber.getId());
            assertThat(live.positions()).as("the live session, " + transport).isEqualTo(Map.of(channel, last));
            RedisSessionStore onB = b.backplane().sessionStore();
            await("node B reads A's session as it is, " + transport).atMost(WAIT)
                    .pollInterval(Duration.ofMillis(50)).ignoreExceptions().untilAsserted(() -> {
                        SessionState found = onB.find(subscriber.getId());
                        assertThat(found).isNotNull();
                        assertThat(found.positions()).isEqualTo(Map.of(channel, last));
                    });
            SessionState found = onB.find(subscriber.getId());
            assertThat(found.sessionId()).isEqualTo(subscriber.getId());
            assertThat(found.subscriptions()).isEqualTo(Set.of(channel, "/other"));
            assertThat(found.ackBatch()).isEqualTo(-1);
            assertThat(found.maxInterval()).isEqualTo(Duration.ofSeconds(10));
            assertThat(((RedisSessionStore.StoredSession) found).node()).isNotEmpty();

            // Unsubscribed: gone from the stored subscriptions and positions.
            assertThat(subscriber.getChannel(channel).unsubscribeAsync(listener).get(WAIT.toMillis(), TimeUnit.MILLISECONDS)
                    .isSuccessful()).isTrue();
            await("the unsubscribe is written").atMost(WAIT).pollInterval(Duration.ofMillis(50)).ignoreExceptions()
                    .untilAsserted(() -> assertThat(onB.find(subscriber.getId()).subscriptions())
                            .isEqualTo(Set.of("/other")));
            assertThat(onB.find(subscriber.getId()).positions()).isEmpty();

            // Disconnected: its key is deleted (the client forgets its id as it disconnects).
            String id = subscriber.getId();
            subscriber.disconnect(Duration.ofSeconds(5));
            await("a removed session's key is deleted").atMost(WAIT).pollInterval(Duration.ofMillis(50)).ignoreExceptions()
                    .until(() -> onB.find(id) == null);
            fixture.redis().flushAll();
        }
    }

    @Test
    void withTheAckExtensionThePositionsAreThoseOfTheAcknowledgedBatches() throws Exception {
        BackplaneFixture.Node a = node(storing(fixture.redis().uri()).build(), Duration.ofSeconds(10));
        a.engine().addExtension(new AcknowledgedMessagesExtension());
        BayeuxClient subscriber = client(a.url(), ClientTransport.WEBSOCKET, true);
        BlockingQueue<Got> received = subscribe(subscriber, CHANNEL);
        BayeuxClient publisher = client(a.url(), ClientTransport.LONG_POLLING, false);
        for (int i = 0; i < 15; i++) {
            publish(publisher, CHANNEL, "m" + i);
        }
        ChannelPosition last = take(received, 15).get(14).position();
        assertThat(last.offset()).isEqualTo(15);
        // The client acknowledges a batch with its next connect: the positions follow, and so does ackBatch.
        RedisSessionStore store = a.backplane().sessionStore();
        await("the acknowledged position is written").atMost(WAIT).pollInterval(Duration.ofMillis(50)).ignoreExceptions()
                .untilAsserted(() -> assertThat(store.find(subscriber.getId()).positions())
                        .isEqualTo(Map.of(CHANNEL, last)));
        assertThat(store.find(subscriber.getId()).ackBatch()).isPositive();
        // The client's next connect may acknowledge one more batch between two reads: the store follows it.
        await("the acknowledged batch is written").atMost(WAIT).pollInterval(Duration.ofMillis(20)).ignoreExceptions()
                .untilAsserted(() -> assertThat(store.find(subscriber.getId()).ackBatch())
                        .isEqualTo(((SessionState) a.engine().getSession(subscriber.getId())).ackBatch()));
    }

    @Test
    void theKeyOfADeadNodesSessionExpiresAfterMaxIntervalAndTheRefreshes() throws Exception {
        TcpProxy toRedis = fixture.closing(new TcpProxy(fixture.redis().port()));
        Duration maxInterval = Duration.ofSeconds(4);
        BackplaneFixture.Node a = node(storing("redis://127.0.0.1:" + toRedis.port()).build(), maxInterval);
        RedisSessionStore reader = fixture.closing(new RedisSessionStore(storing(fixture.redis().uri()).build(),
                "reader"));
        reader.start();
        BayeuxClient subscriber = client(a.url(), ClientTransport.WEBSOCKET, false);
        subscribe(subscriber, CHANNEL);
        String key = reader.key(subscriber.getId());
        assertThat(key).matches("bayeux:session:\\{[A-Za-z0-9_-]{22}}").doesNotContain(subscriber.getId());
        await("written").atMost(WAIT).pollInterval(Duration.ofMillis(50)).ignoreExceptions()
                .until(() -> reader.find(subscriber.getId()) != null);
        long left;
        long readAt;
        try (Redis redis = new Redis(fixture.redis().uri())) {
            // Written with maxInterval + 2 × sessionRefresh, then renewed (every second) back up to it.
            long first = redis.connection.sync().pttl(key);
            assertThat(first).isBetween(1L, maxInterval.plusSeconds(2).toMillis());
            await("renewed").atMost(WAIT).pollInterval(Duration.ofMillis(20))
                    .until(() -> redis.connection.sync().pttl(key) > first);
            // Taken before the command is sent: Redis counts the TTL from when it runs it, which is later, so the
            // key cannot be gone sooner than readAt + left (a renewal before the cut only makes it later).
            readAt = System.nanoTime();
            left = redis.connection.sync().pttl(key);
            assertThat(left).isBetween(1L, maxInterval.plusSeconds(2).toMillis());
            toRedis.cut();
        }
        assertThat(left).isPositive();
        await("the dead node's session expires").atMost(WAIT).pollInterval(Duration.ofMillis(100))
                .until(() -> reader.find(subscriber.getId()) == null);
        long gone = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - readAt);
        assertThat(gone).as("the key outlived its TTL as read before the cut (%d ms)", left)
                .isGreaterThanOrEqualTo(left - 1);
    }

    @Test
    void aStoreThatCannotReachRedisDelaysNoDeliveryAndCatchesUpWhenItCan() throws Exception {
        TcpProxy toRedis = fixture.closing(new TcpProxy(fixture.redis().port()));
        // The backplane reaches Redis directly; only the session store goes through the proxy.
        RedisBackplaneConfig config = fixture.config().historyRules("/chat/**").build();
        RedisSessionStore store = fixture.closing(new RedisSessionStore(
                storing("redis://127.0.0.1:" + toRedis.port()).build(), "a"));
        RedisBackplane backplane = new RedisBackplane(config);
        BackplaneFixture.Node a = fixture.node(BayeuxServerConfig.builder().timeout(Duration.ofSeconds(2)).build(),
                backplane, engine -> engine.setSessionStore(store));
        store.start();
        RedisSessionStore reader = fixture.closing(new RedisSessionStore(storing(fixture.redis().uri()).build(),
                "reader"));
        reader.start();
        BayeuxClient subscriber = client(a.url(), ClientTransport.WEBSOCKET, false);
        BlockingQueue<Got> received = subscribe(subscriber, CHANNEL);
        BayeuxClient publisher = client(a.url(), ClientTransport.WEBSOCKET, false);
        await("written").atMost(WAIT).pollInterval(Duration.ofMillis(50)).ignoreExceptions()
                .until(() -> reader.find(subscriber.getId()) != null);

        toRedis.cut();
        long failuresBefore = store.failures();
        for (int i = 0; i < 50; i++) {
            publish(publisher, CHANNEL, "m" + i);
        }
        List<Got> got = take(received, 50);
        assertThat(got).extracting(Got::data).containsExactlyElementsOf(
                java.util.stream.IntStream.range(0, 50).mapToObj(i -> "m" + i).toList());
        ChannelPosition last = got.get(49).position();
        await("the store failed to write meanwhile").atMost(WAIT).until(() -> store.failures() > failuresBefore);
        assertThat(reader.find(subscriber.getId()).positions()).as("Redis still has the old state")
                .isNotEqualTo(Map.of(CHANNEL, last));

        toRedis.resume(fixture.redis().port());
        await("the store catches up with the latest state").atMost(WAIT).pollInterval(Duration.ofMillis(50)).ignoreExceptions()
                .untilAsserted(() -> assertThat(reader.find(subscriber.getId()).positions())
                        .isEqualTo(Map.of(CHANNEL, last)));
    }

    /**
     * Redis trusted less: what it holds of a session names no clientId (a clientId alone carries a cookie-less
     * session), in its key or its fields; the store still finds the session by its id, and with a key file (the
     * same on every node) the digest is keyed, so that it cannot be computed from a known clientId without the key.
     */
    @Test
    void redisHoldsNoClientIdOfAStoredSession(@TempDir Path directory) throws Exception {
        Path keyFile = directory.resolve("session-key");
        Files.writeString(keyFile, "k".repeat(SessionDigest.MIN_KEY_BYTES));
        Files.setPosixFilePermissions(keyFile, PosixFilePermissions.fromString("rw-------"));
        BackplaneFixture.Node a = node(storing(fixture.redis().uri()).sessionKeyFile(keyFile.toString()).build(),
                Duration.ofSeconds(10));
        BayeuxClient subscriber = client(a.url(), ClientTransport.WEBSOCKET, false);
        subscribe(subscriber, CHANNEL);
        String id = subscriber.getId();
        RedisSessionStore store = a.backplane().sessionStore();
        await("written").atMost(WAIT).pollInterval(Duration.ofMillis(50)).ignoreExceptions()
                .until(() -> store.find(id) != null);
        assertThat(store.find(id).subscriptions()).contains(CHANNEL);
        RedisSessionStore unkeyed = new RedisSessionStore(storing(fixture.redis().uri()).build(), "other");
        assertThat(store.key(id)).isNotEqualTo(unkeyed.key(id));
        try (Redis redis = new Redis(fixture.redis().uri())) {
            List<String> keys = redis.connection.sync().keys("bayeux:session:*");
            assertThat(keys).containsExactly(store.key(id));
            Map<String, String> fields = redis.connection.sync().hgetall(keys.get(0));
            assertThat(fields).isNotEmpty();
            fields.forEach((field, value) -> assertThat(field + "=" + value).doesNotContain(id));
        }
    }

    /** A plain connection to the test's Redis, to look at keys. */
    private static final class Redis implements AutoCloseable {
        private final RedisClient client;
        private final StatefulRedisConnection<String, String> connection;

        Redis(String uri) {
            client = RedisClient.create(uri);
            connection = client.connect();
        }

        @Override
        public void close() {
            connection.close();
            client.shutdown();
        }
    }
}
