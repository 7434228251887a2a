package org.bayeux.backplane.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.bayeux.server.cluster.ChannelPosition;
import org.bayeux.server.cluster.SessionState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link RedisSessionStore} on a three-master Redis Cluster of the test's own: each session's hash is one key, tagged
 * with the session's id, so sessions spread over the masters and every write, renewal, delete and read works.
 */
class RedisSessionStoreClusterTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private final List<AutoCloseable> started = new ArrayList<>();

    /** A session's state as an engine would give it. */
    private record Fixed(String sessionId, Set<String> subscriptions, long deliveryPosition, long ackBatch,
            Map<String, ChannelPosition> positions, Duration maxInterval) implements SessionState {
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = started.size() - 1; i >= 0; i--) {
            started.get(i).close();
        }
    }

    @Test
    void sessionsSpreadOverTheMastersAndAreReadExactlyFromAnotherStore() throws Exception {
        RedisClusterProcess cluster = RedisClusterProcess.start();
        started.add(cluster);
        RedisBackplaneConfig config = RedisBackplaneConfig.builder().uri(cluster.uri()).historyRules("/chat/**")
                .operationTimeout(Duration.ofSeconds(5))
                .sessionStore(true, Duration.ofMillis(50), Duration.ofSeconds(1)).build();
        RedisSessionStore writer = new RedisSessionStore(config, "writer");
        started.add(writer);
        RedisSessionStore reader = new RedisSessionStore(config, "reader");
        started.add(reader);
        writer.start();
        reader.start();

        List<Fixed> sessions = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            Fixed session = new Fixed("session" + i, Set.of("/chat/" + i, "/chat/*"), 10 + i, i,
                    Map.of("/chat/" + i, new ChannelPosition("epoch" + i, 100 + i)), Duration.ofSeconds(20));
            sessions.add(session);
            writer.created(session);
        }
        for (Fixed session : sessions) {
            await("written: " + session.sessionId()).atMost(WAIT).pollInterval(Duration.ofMillis(100))
                    .ignoreExceptions().until(() -> reader.find(session.sessionId()) != null);
            SessionState found = reader.find(session.sessionId());
            assertThat(found.subscriptions()).isEqualTo(session.subscriptions());
            assertThat(found.positions()).isEqualTo(session.positions());
            assertThat(found.ackBatch()).isEqualTo(session.ackBatch());
            assertThat(found.deliveryPosition()).isEqualTo(session.deliveryPosition());
            assertThat(found.maxInterval()).isEqualTo(session.maxInterval());
            assertThat(((RedisSessionStore.StoredSession) found).node()).isEqualTo("writer");
        }
        Set<Integer> holding = new HashSet<>();
        for (int port : cluster.ports()) {
            if (!cluster.keys(port, "bayeux:session:*").isEmpty()) {
                holding.add(port);
            }
        }
        assertThat(holding).as("30 sessions' keys spread over the three masters").hasSize(3);

        for (Fixed session : sessions) {
            writer.removed(session.sessionId());
        }
        for (Fixed session : sessions) {
            await("deleted: " + session.sessionId()).atMost(WAIT).pollInterval(Duration.ofMillis(100))
                    .ignoreExceptions().until(() -> reader.find(session.sessionId()) == null);
        }
    }
}
