package org.bayeux.backplane.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.bayeux.api.Message;
import org.bayeux.api.server.LocalSession;
import org.bayeux.server.BayeuxEngine;
import org.bayeux.server.cluster.ChannelPosition;
import org.bayeux.server.cluster.SessionState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code minReplicas} on a Redis with one replica of its own: publishes sent together share one {@code WAIT} (group
 * commit) and are all acknowledged and delivered; asking for more replicas than there are fails every publish with
 * {@code 503::backplane_unavailable} and delivers nothing (what a reader read is not replicated enough).
 */
class MinReplicasTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final int PUBLISHES = 200;

    @RegisterExtension
    final BackplaneFixture fixture = new BackplaneFixture();

    private void startReplica() throws Exception {
        RedisProcess master = fixture.redis();
        fixture.closing(RedisProcess.start(List.of("--replicaof", "127.0.0.1", Integer.toString(master.port())),
                null));
        RedisClient client = RedisClient.create(master.uri());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            await("the replica in sync").atMost(WAIT).pollInterval(Duration.ofMillis(100)).until(() -> connection
                    .sync().info("replication").contains("state=online"));
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    private static List<CompletableFuture<Message>> publishAll(LocalSession publisher, String channel) {
        List<CompletableFuture<Message>> replies = new ArrayList<>();
        for (int i = 0; i < PUBLISHES; i++) {
            CompletableFuture<Message> reply = new CompletableFuture<>();
            publisher.getChannel(channel).publish("m" + i, (c, message) -> reply.complete(message));
            replies.add(reply);
        }
        return replies;
    }

    private static List<Object> subscribe(LocalSession session, String channel) throws Exception {
        List<Object> received = new CopyOnWriteArrayList<>();
        CompletableFuture<Message> reply = new CompletableFuture<>();
        session.getChannel(channel).subscribe((c, message) -> received.add(message.getData()),
                (c, message) -> reply.complete(message));
        assertThat(reply.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).isSuccessful()).isTrue();
        return received;
    }

    @Test
    void publishesSentTogetherShareOneWaitAndAreDeliveredOnce() throws Exception {
        startReplica();
        RedisBackplane backplane = new RedisBackplane(fixture.config().historyRules("/r/**").minReplicas(1).build());
        BayeuxEngine engine = fixture.engine(backplane);
        List<Object> received = subscribe(BackplaneFixture.connected(engine, "subscriber"), "/r/a");
        List<CompletableFuture<Message>> replies = publishAll(BackplaneFixture.connected(engine, "publisher"), "/r/a");
        for (CompletableFuture<Message> reply : replies) {
            assertThat(reply.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).isSuccessful()).isTrue();
        }
        await("every publish delivered").atMost(WAIT).until(() -> received.size() >= PUBLISHES);
        assertThat(received).doesNotHaveDuplicates().hasSize(PUBLISHES);
        long waits = backplane.historyCalls().replicaAcknowledgement().waits();
        assertThat(waits).as("WAITs for %d publishes sent together", PUBLISHES).isPositive().isLessThan(PUBLISHES);
        assertThat(backplane.historyCalls().replicaAcknowledgement().shortfalls()).isZero();
    }

    @Test
    void tooFewReplicasFailEveryPublishWith503AndDeliverNothing() throws Exception {
        startReplica();
        RedisBackplane backplane = new RedisBackplane(fixture.config().historyRules("/r/**").minReplicas(2)
                .operationTimeout(Duration.ofMillis(400)).build());
        BayeuxEngine engine = fixture.engine(backplane);
        List<Object> received = subscribe(BackplaneFixture.connected(engine, "subscriber"), "/r/a");
        LocalSession publisher = BackplaneFixture.connected(engine, "publisher");
        for (int i = 0; i < 3; i++) {
            CompletableFuture<Message> reply = new CompletableFuture<>();
            publisher.getChannel("/r/a").publish("m" + i, (c, message) -> reply.complete(message));
            Message answer = reply.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(answer.isSuccessful()).isFalse();
            assertThat(answer.get(Message.ERROR_FIELD)).isEqualTo("503::backplane_unavailable");
        }
        await("the reader held a batch back").atMost(WAIT).until(() -> backplane.unreplicatedBatches() > 0);
        assertThat(received).as("stored but on too few replicas: not delivered").isEmpty();
    }

    /** The session store's written-through state and journal entries wait for the replicas as publishes do. */
    @Test
    void theSessionStoresWritesWaitForTheReplicas() throws Exception {
        startReplica();
        for (int replicas : new int[] {1, 2}) {
            String id = "s" + replicas;
            SessionState session = new SessionState() {
                @Override
                public String sessionId() {
                    return id;
                }

                @Override
                public java.util.Set<String> subscriptions() {
                    return java.util.Set.of("/r/a");
                }

                @Override
                public long deliveryPosition() {
                    return 0;
                }

                @Override
                public long ackBatch() {
                    return -1;
                }
            };
            RedisBackplaneConfig config = fixture.config().sessionStore(true, Duration.ofMillis(50),
                    Duration.ofSeconds(1)).minReplicas(replicas).operationTimeout(Duration.ofSeconds(2)).build();
            try (RedisSessionStore store = new RedisSessionStore(config, "n" + replicas)) {
                store.start();
                await("serving").atMost(WAIT).until(store::serving);
                store.created(session);
                CompletableFuture<Void> written = store.writeNow(session).toCompletableFuture();
                CompletableFuture<Void> journaled = store.journal(session, 1,
                        java.util.Map.of("/r/a", new ChannelPosition("e", 1)), "1").toCompletableFuture();
                if (replicas == 1) {
                    written.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                    journaled.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                } else {
                    org.assertj.core.api.Assertions.assertThatThrownBy(() -> written.get(WAIT.toMillis(),
                            TimeUnit.MILLISECONDS)).hasRootCauseInstanceOf(
                                    ReplicaAcknowledgement.NotReplicatedException.class);
                    org.assertj.core.api.Assertions.assertThatThrownBy(() -> journaled.get(WAIT.toMillis(),
                            TimeUnit.MILLISECONDS)).hasRootCauseInstanceOf(
                                    ReplicaAcknowledgement.NotReplicatedException.class);
                }
                store.removed(id);
            }
        }
    }
}
