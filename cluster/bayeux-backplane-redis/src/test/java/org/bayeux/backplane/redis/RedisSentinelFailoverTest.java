package org.bayeux.backplane.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import org.bayeux.api.Message;
import org.bayeux.client.BayeuxClient;
import org.bayeux.client.transport.ClientTransport;
import org.bayeux.server.config.BayeuxServerConfig;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The backplane on a master watched by Redis Sentinel ({@link RedisSentinelProcesses}: one master, two replicas, three
 * sentinels): two nodes, a subscriber and a publisher on each, publishes to four channels with history while the
 * master is killed with {@code kill -9} and a replica promoted. Counted per subscriber: every acknowledged publish
 * delivered exactly once, no {@code (channel, epoch, offset)} with two payloads, and every acknowledged publish still
 * in its channel's history on the promoted master. The negative control makes both replicas lag before the kill (what
 * the master sends them is held back, and they are paused with {@code SIGSTOP}: a pause alone loses nothing on
 * loopback, the kernel buffers the replication stream for the paused replica): without {@code minReplicas} the test
 * sees acknowledged publishes lost (so that the checks can fail); with {@code minReplicas 1} the lag shows as
 * {@code 503}s and nothing acknowledged is lost.
 */
class RedisSentinelFailoverTest {
    static final Duration WAIT = Duration.ofSeconds(90);
    static final int CHANNELS = 4;
    /** Acknowledged publishes before the kill, and again after the failover. */
    private static final int ROUND = 100;
    /** The most publishes one publisher makes: a bound on the loop, never reached by a passing test. */
    private static final int MAX_PUBLISHES = 5_000;

    @RegisterExtension
    final BackplaneFixture fixture = new BackplaneFixture(WAIT);
    private RedisSentinelProcesses redis;
    private final List<RedisBackplane> backplanes = new ArrayList<>();

    @BeforeEach
    void startRedis() throws Exception {
        redis = fixture.closing(RedisSentinelProcesses.start());
    }

    @Test
    void aKilledMasterLosesNoAcknowledgedPublishAndReusesNoPosition() throws Exception {
        Outcome outcome = run(1, false);
        outcome.assertExactlyOnce();
        assertThat(outcome.missingFromHistory).as("acknowledged publishes missing on the promoted master").isZero();
        assertThat(backplanes.stream().mapToLong(backplane -> backplane.promotions().masterChanges()).sum())
                .as("master changes seen by the readers").isPositive();
    }

    @Test
    void withoutMinReplicasPausedReplicasLoseAcknowledgedPublishes() throws Exception {
        Outcome outcome = run(0, true);
        assertThat(outcome.acknowledgedWhilePaused).as("acknowledged while the replicas were paused").isPositive();
        assertThat(outcome.missingFromHistory).as("the negative control sees acknowledged publishes lost")
                .isPositive();
        // The promoted replica's offsets go on below those delivered: the readers see them reused, and the channels
        // get a new epoch instead of a silent reuse.
        assertThat(backplanes.stream().mapToLong(backplane -> backplane.promotions().reusedOffsets()).sum())
                .as("reused offsets seen").isPositive();
        assertThat(backplanes.stream().mapToLong(backplane -> backplane.promotions().newEpochs()).sum())
                .as("channels given a new epoch (a client's old position is then not recovered)").isPositive();
        assertThat(backplanes.stream().mapToLong(backplane -> backplane.promotions().masterChanges()).sum())
                .as("master changes seen by the readers").isPositive();
        assertThat(outcome.positionsWithTwoPayloads).as("(channel, epoch, offset) with two payloads").isEmpty();
    }

    @Test
    void withMinReplicasPausedReplicasShowAs503sAndLoseNothingAcknowledged() throws Exception {
        Outcome outcome = run(1, true);
        assertThat(outcome.failedWhilePaused).as("publishes refused while the replicas were paused").isPositive();
        outcome.assertExactlyOnce();
        assertThat(outcome.missingFromHistory).as("acknowledged publishes missing on the promoted master").isZero();
    }

    private String node(int minReplicas) throws Exception {
        RedisBackplane backplane = new RedisBackplane(RedisBackplaneConfig.builder().uri(redis.uri())
                .historyRules("/ha/**").minReplicas(minReplicas).operationTimeout(Duration.ofSeconds(2)).build());
        backplanes.add(backplane);
        return fixture.node(BayeuxServerConfig.defaults(), backplane).url();
    }

    private BayeuxClient client(String url) throws Exception {
        return fixture.client(url, ClientTransport.WEBSOCKET, Duration.ofMillis(300));
    }

    /** What one subscriber got: per payload how many times, and per position its payload. */
    static final class Subscriber {
        final Map<String, Integer> times = new ConcurrentHashMap<>();
        final Map<String, Set<String>> payloadsAt = new ConcurrentHashMap<>();

        @SuppressWarnings("unchecked")
        void got(Message message) {
            String data = (String) message.getData();
            times.merge(data, 1, Integer::sum);
            Map<String, Object> ext = message.getExt();
            Object position = ext == null ? null : ext.get(Positions.POSITION_FIELD);
            if (position instanceof Map) {
                Map<String, Object> at = (Map<String, Object>) position;
                payloadsAt.computeIfAbsent(message.getChannel() + " " + at.get(Positions.EPOCH_FIELD) + " "
                        + at.get(Positions.OFFSET_FIELD), key -> ConcurrentHashMap.newKeySet()).add(data);
            }
        }
    }

    /** A publisher's loop on its own thread, paced, bounded. */
    static final class Publisher {
        final List<String> acknowledged = new CopyOnWriteArrayList<>();
        final List<String> failed = new CopyOnWriteArrayList<>();
        final AtomicBoolean stop = new AtomicBoolean();
        final Thread thread;

        Publisher(BayeuxClient client, String name) {
            thread = new Thread(() -> {
                for (int seq = 0; seq < MAX_PUBLISHES && !stop.get(); seq++) {
                    String channel = "/ha/" + (seq % CHANNELS);
                    String data = name + "-" + seq;
                    try {
                        Message reply = client.getChannel(channel).publishAsync(data)
                                .get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                        (reply.isSuccessful() ? acknowledged : failed).add(channel + " " + data);
                    } catch (Exception noReply) {
                        failed.add(channel + " " + data);
                    }
                    // Pacing of the load (about 200 publishes a second at most), not a wait for an event.
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
                }
            }, "publisher-" + name);
            thread.setDaemon(true);
        }
    }

    private final class Outcome {
        final List<Subscriber> subscribers;
        final List<String> acknowledged = new ArrayList<>();
        final List<String> failed = new ArrayList<>();
        int acknowledgedWhilePaused;
        int failedWhilePaused;
        long missingFromHistory;
        final List<String> positionsWithTwoPayloads = new ArrayList<>();

        Outcome(List<Subscriber> subscribers) {
            this.subscribers = subscribers;
        }

        void assertExactlyOnce() {
            for (int i = 0; i < subscribers.size(); i++) {
                Subscriber subscriber = subscribers.get(i);
                long lost = acknowledged.stream().filter(each -> !subscriber.times.containsKey(data(each))).count();
                long duplicated = subscriber.times.values().stream().filter(n -> n > 1).count();
                assertThat(lost).as("subscriber %d: acknowledged publishes lost", i).isZero();
                assertThat(duplicated).as("subscriber %d: payloads delivered twice", i).isZero();
                assertThat(subscriber.times.keySet()).as("subscriber %d: only what was published", i)
                        .allMatch(data -> data.startsWith("end-") || acknowledged.stream()
                                .anyMatch(each -> data(each).equals(data)) || failed.stream()
                                .anyMatch(each -> data(each).equals(data)));
            }
            assertThat(positionsWithTwoPayloads).as("(channel, epoch, offset) with two payloads").isEmpty();
        }
    }

    private static String data(String channelAndData) {
        return channelAndData.substring(channelAndData.indexOf(' ') + 1);
    }

    private Outcome run(int minReplicas, boolean pauseReplicas) throws Exception {
        String a = node(minReplicas);
        String b = node(minReplicas);
        List<Subscriber> subscribers = List.of(new Subscriber(), new Subscriber());
        List<BayeuxClient> subscriberClients = List.of(client(a), client(b));
        for (int i = 0; i < subscribers.size(); i++) {
            Subscriber subscriber = subscribers.get(i);
            assertThat(subscriberClients.get(i).getChannel("/ha/*").subscribeAsync((channel, message) ->
                    subscriber.got(message)).get(WAIT.toMillis(), TimeUnit.MILLISECONDS).isSuccessful()).isTrue();
        }
        List<Publisher> publishers = List.of(new Publisher(client(a), "pa"), new Publisher(client(b), "pb"));
        publishers.forEach(publisher -> publisher.thread.start());
        await("a first round acknowledged").atMost(WAIT).until(() -> acknowledged(publishers) >= ROUND);

        List<RedisProcess> replicas = redis.replicas();
        assertThat(replicas).hasSize(2);
        int acknowledgedAtPause = acknowledged(publishers);
        int failedAtPause = failed(publishers);
        int acknowledgedWhilePaused = 0;
        int failedWhilePaused = 0;
        if (pauseReplicas) {
            redis.holdReplication();
            for (RedisProcess replica : replicas) {
                redis.pause(replica);
            }
            // Counts, not time: publishes acknowledged by the master alone (minReplicas 0), or refused (1).
            await("publishes answered while the replicas are paused").atMost(WAIT).until(() ->
                    acknowledged(publishers) >= acknowledgedAtPause + 30 || failed(publishers) >= failedAtPause + 2);
        }
        int oldMaster = redis.killMaster();
        if (pauseReplicas) {
            acknowledgedWhilePaused = acknowledged(publishers) - acknowledgedAtPause;
            failedWhilePaused = failed(publishers) - failedAtPause;
            for (RedisProcess replica : replicas) {
                redis.resume(replica);
            }
        }
        int newMaster = redis.awaitFailover(oldMaster);
        int acknowledgedAtFailover = acknowledged(publishers);
        await("a round acknowledged after the failover").atMost(WAIT)
                .until(() -> acknowledged(publishers) >= acknowledgedAtFailover + ROUND);
        for (Publisher publisher : publishers) {
            publisher.stop.set(true);
            publisher.thread.join(WAIT.toMillis());
            assertThat(publisher.thread.isAlive()).isFalse();
        }
        // One last acknowledged publish per channel: once every subscriber has it, it has everything before it.
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

        Outcome outcome = new Outcome(subscribers);
        publishers.forEach(publisher -> {
            outcome.acknowledged.addAll(publisher.acknowledged);
            outcome.failed.addAll(publisher.failed);
        });
        outcome.acknowledgedWhilePaused = acknowledgedWhilePaused;
        outcome.failedWhilePaused = failedWhilePaused;
        Map<String, Set<String>> payloadsAt = new HashMap<>();
        for (Subscriber subscriber : subscribers) {
            subscriber.payloadsAt.forEach((position, payloads) -> payloadsAt
                    .computeIfAbsent(position, key -> new java.util.HashSet<>()).addAll(payloads));
        }
        payloadsAt.forEach((position, payloads) -> {
            if (payloads.size() > 1) {
                outcome.positionsWithTwoPayloads.add(position + " " + payloads);
            }
        });
        StreamShards shards = new StreamShards(backplanes.get(0).config().keyPrefix(),
                backplanes.get(0).config().shards());
        Set<String> kept = new java.util.HashSet<>();
        for (int channel = 0; channel < CHANNELS; channel++) {
            String key = shards.historyKeyOf("/ha/" + channel);
            List<StreamMessage<String, String>> history = redis.onServer(newMaster,
                    commands -> commands.xrange(key, Range.create("-", "+")));
            for (StreamMessage<String, String> entry : history) {
                kept.add(entry.getBody().get(RedisBackplane.MESSAGE_FIELD));
            }
        }
        outcome.missingFromHistory = outcome.acknowledged.stream().filter(each -> kept.stream()
                .noneMatch(json -> json.contains("\"" + data(each) + "\""))).count();
        return outcome;
    }

    private static int acknowledged(List<Publisher> publishers) {
        return publishers.stream().mapToInt(publisher -> publisher.acknowledged.size()).sum();
    }

    private static int failed(List<Publisher> publishers) {
        return publishers.stream().mapToInt(publisher -> publisher.failed.size()).sum();
    }
}
