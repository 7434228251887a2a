package org.bayeux.backplane.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import org.bayeux.api.Message;
import org.bayeux.backplane.redis.BackplaneFixture.Node;
import org.bayeux.client.BayeuxClient;
import org.bayeux.client.transport.ClientTransport;
import org.bayeux.server.config.BayeuxServerConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The backplane on a three-master Redis Cluster started by the test ({@link RedisClusterProcess}): two nodes (Jetty on
 * 127.0.0.1, port 0) and clients of ours over WebSocket. One cluster for the class; each test writes under a key
 * prefix of its own.
 */
class RedisClusterTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final AtomicInteger PREFIXES = new AtomicInteger();
    private static RedisClusterProcess cluster;
    @RegisterExtension
    final BackplaneFixture fixture = new BackplaneFixture(WAIT);
    private final String prefix = "cluster" + PREFIXES.incrementAndGet();
    private TcpProxy proxy;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = RedisClusterProcess.start();
    }

    @AfterAll
    static void stopCluster() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    private Node node() throws Exception {
        // A short maxInterval: a client cut off for a couple of seconds loses its session and handshakes again.
        return fixture.node(BayeuxServerConfig.builder().timeout(Duration.ofSeconds(2))
                .maxInterval(Duration.ofSeconds(1)).sweepPeriod(Duration.ofMillis(100)).build(),
                new RedisBackplane(RedisBackplaneConfig.builder().uri(cluster.uri()).historyRules("/chat/**")
                        .historyLookBack(Duration.ofMinutes(10)).set(RedisBackplaneConfig.KEY_PREFIX, prefix).operationTimeout(Duration.ofSeconds(5)).build()));
    }

    private BayeuxClient client(String url) throws Exception {
        return fixture.client(url, ClientTransport.WEBSOCKET, Duration.ofMillis(300));
    }

    /** @return channels whose shards' hash tags fall on every master of the cluster */
    private static List<String> channels(int count) {
        return IntStream.range(0, count).mapToObj(i -> "/chat/room" + i).collect(Collectors.toList());
    }

    @Test
    void twoNodesDeliverEveryPublishOnceInOneOrderPerChannelWithChannelsOnEveryMaster() throws Exception {
        Node a = node();
        Node b = node();
        List<String> channels = channels(24);
        Map<String, List<String>> onA = new HashMap<>();
        Map<String, List<String>> onB = new HashMap<>();
        BayeuxClient subscriberA = client(a.url());
        BayeuxClient subscriberB = client(b.url());
        for (String channel : channels) {
            onA.put(channel, new CopyOnWriteArrayList<>());
            onB.put(channel, new CopyOnWriteArrayList<>());
        }
        assertThat(subscriberA.getChannel("/chat/**").subscribeAsync((c, m) -> onA.get(m.getChannel())
                .add((String) m.getData())).get(WAIT.toMillis(), TimeUnit.MILLISECONDS).isSuccessful()).isTrue();
        assertThat(subscriberB.getChannel("/chat/**").subscribeAsync((c, m) -> onB.get(m.getChannel())
                .add((String) m.getData())).get(WAIT.toMillis(), TimeUnit.MILLISECONDS).isSuccessful()).isTrue();

        int perChannel = 20;
        BayeuxClient publisherA = client(a.url());
        BayeuxClient publisherB = client(b.url());
        // Both publishers at once, each in windows of unacknowledged publishes, every one acknowledged in the end.
        CompletableFuture<Void> fromA = CompletableFuture.runAsync(() -> publishAll(publisherA, "a", channels,
                perChannel));
        CompletableFuture<Void> fromB = CompletableFuture.runAsync(() -> publishAll(publisherB, "b", channels,
                perChannel));
        fromA.get(WAIT.toMillis() * 2, TimeUnit.MILLISECONDS);
        fromB.get(WAIT.toMillis() * 2, TimeUnit.MILLISECONDS);

        int total = channels.size() * perChannel * 2;
        await("every publish on both nodes").atMost(WAIT).until(() -> count(onA) >= total && count(onB) >= total);
        // One more acknowledged publish per channel, delivered last: nothing else may arrive after it.
        for (String channel : channels) {
            assertThat(publisherA.getChannel(channel).publishAsync("end").get(WAIT.toMillis(), TimeUnit.MILLISECONDS)
                    .isSuccessful()).isTrue();
        }
        await("the ends on both nodes").atMost(WAIT).until(() -> channels.stream()
                .allMatch(channel -> onA.get(channel).contains("end") && onB.get(channel).contains("end")));
        for (String channel : channels) {
            List<String> seenA = onA.get(channel);
            List<String> seenB = onB.get(channel);
            assertThat(seenA).as("one order on both nodes for %s", channel).isEqualTo(seenB);
            assertThat(seenA).as("exactly once on %s", channel).doesNotHaveDuplicates().hasSize(perChannel * 2 + 1);
            assertThat(seenA.get(seenA.size() - 1)).isEqualTo("end");
            for (String publisher : List.of("a", "b")) {
                assertThat(seenA.stream().filter(data -> data.startsWith(publisher + ":")).collect(Collectors.toList()))
                        .as("%s's publishing order on %s", publisher, channel)
                        .isEqualTo(IntStream.range(0, perChannel).mapToObj(i -> publisher + ":" + i)
                                .collect(Collectors.toList()));
            }
        }
        // The fan-out streams and histories of these channels live on every master (16 shards over 3 masters).
        Set<Integer> mastersWithStreams = new HashSet<>();
        int histories = 0;
        for (int port : cluster.ports()) {
            List<String> fanout = cluster.keys(port, prefix + ":fanout:*");
            histories += cluster.keys(port, prefix + ":history:*").size();
            if (!fanout.isEmpty()) {
                mastersWithStreams.add(port);
            }
        }
        assertThat(mastersWithStreams).as("masters holding fan-out streams").hasSize(3);
        assertThat(histories).as("one history per channel, over all masters").isEqualTo(channels.size());
    }

    private static void publishAll(BayeuxClient publisher, String name, List<String> channels, int perChannel) {
        try {
            for (int i = 0; i < perChannel; i++) {
                List<CompletableFuture<Message>> replies = new ArrayList<>();
                for (String channel : channels) {
                    replies.add(publisher.getChannel(channel).publishAsync(name + ":" + i));
                }
                // Each round acknowledged before the next: the publishing order per channel is i's order.
                for (CompletableFuture<Message> reply : replies) {
                    assertThat(reply.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).isSuccessful()).isTrue();
                }
            }
        } catch (Exception failed) {
            throw new IllegalStateException(failed);
        }
    }

    private static int count(Map<String, List<String>> received) {
        return received.values().stream().mapToInt(List::size).sum();
    }

    @Test
    void aNodeReadsOnlyTheShardOfItsSubscriptionOnTheCluster() throws Exception {
        Node a = node();
        Node b = node();
        String channel = "/solo/one";
        List<String> onB = new CopyOnWriteArrayList<>();
        BayeuxClient subscriber = client(b.url());
        assertThat(b.backplane().shardsRead()).isZero();

        assertThat(subscriber.getChannel(channel).subscribeAsync((c, m) -> onB.add((String) m.getData()))
                .get(WAIT.toMillis(), TimeUnit.MILLISECONDS).isSuccessful()).isTrue();

        assertThat(b.backplane().shardsReadNow()).containsExactly(b.backplane().shardOf(channel));
        BayeuxClient publisher = client(a.url());
        assertThat(publisher.getChannel(channel).publishAsync("right after").get(WAIT.toMillis(),
                TimeUnit.MILLISECONDS).isSuccessful()).isTrue();
        await("the publish on b").atMost(WAIT).until(() -> onB.contains("right after"));
        assertThat(onB).containsExactly("right after");
        assertThat(a.backplane().shardsRead()).as("a has no subscriber").isZero();
    }

    @Test
    void aPublishIsAcknowledgedOnlyOnceTheClusterStoredIt() throws Exception {
        Node a = node();
        BayeuxClient publisher = client(a.url());
        StreamShards shards = new StreamShards(prefix, a.backplane().config().shards());
        RedisClusterClient reader = RedisClusterClient.create(RedisLink.clusterSeeds(cluster.uri()));
        try (StatefulRedisClusterConnection<String, String> connection = reader.connect()) {
            for (String channel : channels(6)) {
                for (int i = 1; i <= 5; i++) {
                    Message reply = publisher.getChannel(channel).publishAsync(i).get(WAIT.toMillis(),
                            TimeUnit.MILLISECONDS);
                    assertThat(reply.isSuccessful()).isTrue();
                    // Read at once after the acknowledgement, on the master that holds the channel's slot.
                    assertThat(connection.sync().hget(shards.metaKeyOf(channel), "o")).as("%s's offset", channel)
                            .isEqualTo(Integer.toString(i));
                    assertThat(connection.sync().xlen(shards.historyKeyOf(channel))).isEqualTo(i);
                }
            }
        } finally {
            reader.shutdown();
        }
    }

    @Test
    void aClientCutOffLongerThanItsSessionRecoversEverythingFromTheCluster() throws Exception {
        Node a = node();
        Node b = node();
        String channel = "/chat/recovered";
        proxy = fixture.closing(new TcpProxy(a.port()));
        BayeuxClient subscriber = client("http://127.0.0.1:" + proxy.port() + "/bayeux");
        List<Integer> received = new CopyOnWriteArrayList<>();
        assertThat(subscriber.getChannel(channel).subscribeAsync((c, m) -> received.add(((Number) m.getData())
                .intValue())).get(WAIT.toMillis(), TimeUnit.MILLISECONDS).isSuccessful()).isTrue();
        BayeuxClient publisher = client(b.url());
        assertThat(subscriber.getRecovery().orElseThrow().isOffered()).isTrue();

        publish(publisher, channel, 0, 20);
        await("first messages").atMost(WAIT).until(() -> received.size() == 20);
        String firstSession = subscriber.getId();
        proxy.cut();
        publish(publisher, channel, 20, 120);
        await("session expired on its node").atMost(WAIT).until(() -> a.engine().getSession(firstSession) == null);
        proxy.resume(a.port());
        publish(publisher, channel, 120, 150);
        await("everything received").atMost(WAIT).until(() -> received.size() >= 150);
        publish(publisher, channel, 150, 151);
        await("the last one received").atMost(WAIT).until(() -> received.contains(150));

        assertThat(received).as("all, once, in order")
                .isEqualTo(IntStream.range(0, 151).boxed().collect(Collectors.toList()));
        assertThat(subscriber.getId()).as("a new session").isNotEqualTo(firstSession);
        assertThat(subscriber.getRecovery().orElseThrow().recovered(channel)).contains(true);
    }

    private static void publish(BayeuxClient publisher, String channel, int from, int to) throws Exception {
        for (int i = from; i < to; i++) {
            Message reply = publisher.getChannel(channel).publishAsync(i).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(reply.isSuccessful()).as("publish %d acknowledged", i).isTrue();
        }
    }
}
