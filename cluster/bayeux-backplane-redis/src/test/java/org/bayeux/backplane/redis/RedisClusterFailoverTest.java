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
import java.util.concurrent.TimeUnit;

import org.bayeux.client.BayeuxClient;
import org.bayeux.client.transport.ClientTransport;
import org.bayeux.server.config.BayeuxServerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * The backplane on a Redis Cluster of three masters with a replica each ({@link RedisClusterProcess#start(int)}): a
 * manual {@code CLUSTER FAILOVER} of the master of a channel's slot mid-stream (the replica takes over once it holds
 * everything its master wrote) loses nothing and reuses no position: every acknowledged publish delivered exactly
 * once to every subscriber, no {@code (channel, epoch, offset)} with two payloads, no reused offset seen. A master
 * killed with {@code kill -9}: nothing twice, no position with two payloads ({@code minReplicas} is refused on a
 * Redis Cluster: a killed master's acknowledged writes may be lost there, and are counted).
 */
class RedisClusterFailoverTest {
    private static final Duration WAIT = RedisSentinelFailoverTest.WAIT;
    private static final int CHANNELS = RedisSentinelFailoverTest.CHANNELS;
    private static final int ROUND = 100;

    @RegisterExtension
    final BackplaneFixture fixture = new BackplaneFixture(WAIT);
    private final List<RedisBackplane> backplanes = new ArrayList<>();

    private String node(RedisClusterProcess cluster) throws Exception {
        RedisBackplane backplane = new RedisBackplane(RedisBackplaneConfig.builder().uri(cluster.uri())
                .historyRules("/ha/**").operationTimeout(Duration.ofSeconds(2)).build());
        backplanes.add(backplane);
        return fixture.node(BayeuxServerConfig.defaults(), backplane).url();
    }

    private BayeuxClient client(String url) throws Exception {
        return fixture.client(url, ClientTransport.WEBSOCKET, Duration.ofMillis(300));
    }

    private static int acknowledged(List<RedisSentinelFailoverTest.Publisher> publishers) {
        return publishers.stream().mapToInt(publisher -> publisher.acknowledged.size()).sum();
    }

    @Test
    void aManualFailoverMidStreamLosesNothingAndReusesNoPosition() throws Exception {
        Counts counts = run(false);
        assertThat(counts.lost).as("acknowledged publishes lost").isZero();
        assertThat(counts.duplicated).as("payloads delivered twice").isZero();
        assertThat(counts.positionsWithTwoPayloads).as("(channel, epoch, offset) with two payloads").isZero();
        assertThat(counts.reusedOffsets).as("reused offsets").isZero();
    }

    /**
     * A master killed with {@code kill -9}: its replica is promoted after the node timeout. Without {@code WAIT} on a
     * cluster an acknowledged publish the replica had not received yet is lost (counted, not asserted: on loopback
     * the replica is rarely behind); what must hold whatever the replica got: nothing twice, and no position with two
     * payloads (reused offsets give the channel a new epoch).
     */
    @Test
    void aKilledMasterMidStreamDeliversNothingTwiceAndReusesNoPosition() throws Exception {
        Counts counts = run(true);
        assertThat(counts.duplicated).as("payloads delivered twice").isZero();
        assertThat(counts.positionsWithTwoPayloads).as("(channel, epoch, offset) with two payloads").isZero();
    }

    /** What the subscribers got, summed over them. */
    private record Counts(long lost, long duplicated, long positionsWithTwoPayloads, long reusedOffsets) {
    }

    private Counts run(boolean kill) throws Exception {
        RedisClusterProcess cluster = fixture.closing(RedisClusterProcess.start(1));
        String a = node(cluster);
        String b = node(cluster);
        List<RedisSentinelFailoverTest.Subscriber> subscribers = List.of(new RedisSentinelFailoverTest.Subscriber(),
                new RedisSentinelFailoverTest.Subscriber());
        List<BayeuxClient> subscriberClients = List.of(client(a), client(b));
        for (int i = 0; i < subscribers.size(); i++) {
            RedisSentinelFailoverTest.Subscriber subscriber = subscribers.get(i);
            assertThat(subscriberClients.get(i).getChannel("/ha/*").subscribeAsync((channel, message) ->
                    subscriber.got(message)).get(WAIT.toMillis(), TimeUnit.MILLISECONDS).isSuccessful()).isTrue();
        }
        List<RedisSentinelFailoverTest.Publisher> publishers = List.of(
                new RedisSentinelFailoverTest.Publisher(client(a), "pa"),
                new RedisSentinelFailoverTest.Publisher(client(b), "pb"));
        publishers.forEach(publisher -> publisher.thread.start());
        await("a first round acknowledged").atMost(WAIT).until(() -> acknowledged(publishers) >= ROUND);

        // The master of /ha/0's slot (it holds the channel's history), and its replica.
        StreamShards shards = new StreamShards(backplanes.get(0).config().keyPrefix(),
                backplanes.get(0).config().shards());
        String history = shards.historyKeyOf("/ha/0");
        int master = -1;
        for (int port : cluster.ports()) {
            if (cluster.masterOf(port) == port && cluster.keys(port, history).contains(history)) {
                master = port;
            }
        }
        assertThat(master).as("the master of /ha/0").isPositive();
        List<Integer> replicas = cluster.replicasOf(master);
        assertThat(replicas).hasSize(1);
        int promoted = replicas.get(0);
        if (kill) {
            cluster.kill(master);
        } else {
            assertThat(RedisClusterProcess.cli(promoted, "CLUSTER", "FAILOVER")).contains("OK");
        }
        await("the replica took over").atMost(WAIT).pollInterval(Duration.ofMillis(100))
                .until(() -> cluster.masterOf(promoted) == promoted);
        int acknowledgedAtFailover = acknowledged(publishers);
        await("a round acknowledged after the failover").atMost(WAIT)
                .until(() -> acknowledged(publishers) >= acknowledgedAtFailover + ROUND);
        for (RedisSentinelFailoverTest.Publisher publisher : publishers) {
            publisher.stop.set(true);
            publisher.thread.join(WAIT.toMillis());
            assertThat(publisher.thread.isAlive()).isFalse();
        }
        BayeuxClient last = client(a);
        for (int channel = 0; channel < CHANNELS; channel++) {
            String name = "/ha/" + channel;
            int[] attempt = {0};
            await("the last publish to " + name).atMost(WAIT).pollInterval(Duration.ofMillis(100)).until(() ->
                    last.getChannel(name).publishAsync("end-" + name + "-" + attempt[0]++)
                            .get(WAIT.toMillis(), TimeUnit.MILLISECONDS).isSuccessful());
        }
        await("every subscriber has the last publishes").atMost(WAIT).until(() -> subscribers.stream()
                .allMatch(subscriber -> subscriber.times.keySet().stream().filter(data -> data.startsWith("end-"))
                        .map(data -> data.substring(0, data.lastIndexOf('-'))).distinct().count() == CHANNELS));

        List<String> acknowledged = new ArrayList<>();
        publishers.forEach(publisher -> acknowledged.addAll(publisher.acknowledged));
        long lost = 0;
        long duplicated = 0;
        for (RedisSentinelFailoverTest.Subscriber subscriber : subscribers) {
            lost += acknowledged.stream().filter(each -> !subscriber.times
                    .containsKey(each.substring(each.indexOf(' ') + 1))).count();
            duplicated += subscriber.times.values().stream().filter(n -> n > 1).count();
        }
        Map<String, Set<String>> payloadsAt = new HashMap<>();
        for (RedisSentinelFailoverTest.Subscriber subscriber : subscribers) {
            subscriber.payloadsAt.forEach((position, payloads) -> payloadsAt
                    .computeIfAbsent(position, key -> new HashSet<>()).addAll(payloads));
        }
        long twoPayloads = payloadsAt.values().stream().filter(payloads -> payloads.size() > 1).count();
        long reused = backplanes.stream().mapToLong(backplane -> backplane.promotions().reusedOffsets()).sum();
        LoggerFactory.getLogger(RedisClusterFailoverTest.class).info("{}: {} acknowledged, {} lost, {} twice, {} "
                + "positions with two payloads, {} reused offsets", kill ? "kill -9" : "CLUSTER FAILOVER",
                acknowledged.size(), lost, duplicated, twoPayloads, reused);
        return new Counts(lost, duplicated, twoPayloads, reused);
    }
}
