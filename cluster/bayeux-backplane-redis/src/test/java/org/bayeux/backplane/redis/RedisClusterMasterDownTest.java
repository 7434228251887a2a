package org.bayeux.backplane.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.Message;
import org.bayeux.client.BayeuxClient;
import org.bayeux.client.transport.ClientTransport;
import org.bayeux.server.config.BayeuxServerConfig;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One master of a three-master Redis Cluster (no replicas) killed with {@code kill -9} and started again: publishes
 * to its channels fail with {@code 503::backplane_unavailable} meanwhile, and once it is back both nodes deliver again,
 * every acknowledged publish once and in order, without a restart of either node.
 */
class RedisClusterMasterDownTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    @RegisterExtension
    final BackplaneFixture fixture = new BackplaneFixture(WAIT);
    private final List<RedisBackplane> backplanes = new ArrayList<>();
    private RedisClusterProcess cluster;

    @BeforeEach
    void startCluster() throws Exception {
        cluster = fixture.closing(RedisClusterProcess.start());
    }

    private String node() throws Exception {
        // History on: the test finds a channel's master by its history key.
        RedisBackplane backplane = new RedisBackplane(RedisBackplaneConfig.builder().uri(cluster.uri())
                .historyRules("/chat/**").operationTimeout(Duration.ofSeconds(2)).build());
        backplanes.add(backplane);
        return fixture.node(BayeuxServerConfig.defaults(), backplane).url();
    }

    private BayeuxClient client(String url) throws Exception {
        return fixture.client(url, ClientTransport.WEBSOCKET, Duration.ofMillis(300));
    }

    private static Message publish(BayeuxClient publisher, String channel, String data) throws Exception {
        return publisher.getChannel(channel).publishAsync(data).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Test
    void aKilledMasterFailsItsPublishesWith503AndDeliveryResumesWhenItIsBack() throws Exception {
        String a = node();
        String b = node();
        BayeuxClient subscriber = client(b);
        BayeuxClient publisher = client(a);
        Map<String, List<String>> received = new HashMap<>();
        List<String> channels = new ArrayList<>();
        for (int i = 0; i < 24; i++) {
            channels.add("/chat/room" + i);
            received.put("/chat/room" + i, new CopyOnWriteArrayList<>());
        }
        assertThat(subscriber.getChannel("/chat/**").subscribeAsync((c, m) -> received.get(m.getChannel())
                .add((String) m.getData())).get(WAIT.toMillis(), TimeUnit.MILLISECONDS).isSuccessful()).isTrue();
        Map<String, List<String>> acknowledged = new HashMap<>();
        for (String channel : channels) {
            assertThat(publish(publisher, channel, "before").isSuccessful()).isTrue();
            acknowledged.computeIfAbsent(channel, key -> new ArrayList<>()).add("before");
        }
        await("the first round").atMost(WAIT).until(() -> channels.stream()
                .allMatch(channel -> received.get(channel).contains("before")));

        // The master holding the first channel's history, and a channel of it.
        StreamShards shards = new StreamShards(backplanes.get(0).config().keyPrefix(),
                backplanes.get(0).config().shards());
        String channel = channels.get(0);
        int victim = -1;
        for (int port : cluster.ports()) {
            if (cluster.keys(port, shards.historyKeyOf(channel)).contains(shards.historyKeyOf(channel))) {
                victim = port;
            }
        }
        assertThat(victim).as("the master of %s", channel).isPositive();

        cluster.kill(victim);
        long start = System.nanoTime();
        Message refused = publish(publisher, channel, "refused");
        assertThat(refused.isSuccessful()).isFalse();
        assertThat(refused.get(Message.ERROR_FIELD)).isEqualTo("503::backplane_unavailable");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("failed within the operation timeout and margin")
                .isLessThan(Duration.ofSeconds(20));
        await("node B reports the backplane down").atMost(WAIT)
                .until(() -> !backplanes.get(1).isConnected());

        cluster.restart(victim);
        cluster.awaitClusterOk();
        await("both nodes connected again").atMost(WAIT)
                .until(() -> backplanes.stream().allMatch(RedisBackplane::isConnected));
        // Publishes may still fail while the links come back: each channel is retried until one is acknowledged.
        // A publish that failed by timeout may still have been stored, so such attempts may be delivered too.
        List<String> attempts = new ArrayList<>();
        for (String each : channels) {
            int[] attempt = {0};
            await("a publish to " + each + " acknowledged").atMost(WAIT).pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        String data = "after-" + attempt[0]++;
                        attempts.add(each + " " + data);
                        if (publish(publisher, each, data).isSuccessful()) {
                            acknowledged.get(each).add(data);
                            return true;
                        }
                        return false;
                    });
        }
        await("the last round").atMost(WAIT).until(() -> channels.stream().allMatch(each -> received.get(each)
                .contains(acknowledged.get(each).get(acknowledged.get(each).size() - 1))));
        for (String each : channels) {
            List<String> seen = received.get(each);
            assertThat(seen).as("no duplicate on %s", each).doesNotHaveDuplicates().doesNotContain("refused");
            assertThat(seen.stream().filter(acknowledged.get(each)::contains)).as("acknowledged ones, in order")
                    .containsExactlyElementsOf(acknowledged.get(each));
            assertThat(seen).as("nothing else than attempts").allMatch(data -> data.equals("before")
                    || attempts.contains(each + " " + data));
        }
    }
}
