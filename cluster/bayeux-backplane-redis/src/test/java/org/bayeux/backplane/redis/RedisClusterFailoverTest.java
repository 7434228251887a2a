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

/**
 * The backplane on a Redis Cluster of three masters with a replica each ({@link RedisClusterProcess#start(int)}): a
 * manual {@code CLUSTER FAILOVER} of the master of a channel's slot mid-stream (the replica takes over once it holds
 * everything its master wrote) loses nothing and reuses no position: every acknowledged publish delivered exactly
 * once to every subscriber, no {@code (channel, epoch, offset)} with two payloads, no reused offset seen.
 * ({@code minReplicas} is refused on a Redis Cluster: a killed master's acknowledged writes may be lost there.)
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
        assertThat(RedisClusterProcess.cli(promoted, "CLUSTER", "FAILOVER")).contains("OK");
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
        for (int i = 0; i < subscribers.size(); i++) {
            RedisSentinelFailoverTest.Subscriber subscriber = subscribers.get(i);
            long lost = acknowledged.stream().filter(each -> !subscriber.times
                    .containsKey(each.substring(each.indexOf(' ') + 1))).count();
            long duplicated = subscriber.times.values().stream().filter(n -> n > 1).count();
            assertThat(lost).as("subscriber %d: acknowledged publishes lost", i).isZero();
            assertThat(duplicated).as("subscriber %d: payloads delivered twice", i).isZero();
        }
        Map<String, Set<String>> payloadsAt = new HashMap<>();
        for (RedisSentinelFailoverTest.Subscriber subscriber : subscribers) {
            subscriber.payloadsAt.forEach((position, payloads) -> payloadsAt
                    .computeIfAbsent(position, key -> new HashSet<>()).addAll(payloads));
        }
        assertThat(payloadsAt.values()).as("(channel, epoch, offset) with two payloads")
                .allMatch(payloads -> payloads.size() == 1);
        assertThat(backplanes.stream().mapToLong(backplane -> backplane.promotions().reusedOffsets()).sum())
                .as("reused offsets").isZero();
    }
}
