package org.bayeux.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.Message;
import org.bayeux.backplane.redis.RedisProcess;
import org.bayeux.client.BayeuxClient;
import org.bayeux.client.transport.ClientTransport;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.junit.jupiter.api.io.TempDir;

/** {@code bin/bayeux server --backplane redis://…}: two standalone servers joined by a redis-server of the test's own. */
class StandaloneBackplaneTest {
    private static final Duration WAIT = Duration.ofSeconds(15);

    @Test
    void backplaneOptionsAreParsedWithTheirSettings() {
        StandaloneOptions options = StandaloneOptions.parse("--backplane", "redis://127.0.0.1:7001",
                "--set", "operationTimeout=700ms", "--set", "streamMaxLength=5000", "--set", "timeout=5s");
        assertThat(options.backplaneConfig.uri()).isEqualTo("redis://127.0.0.1:7001");
        assertThat(options.backplaneConfig.operationTimeout()).isEqualTo(Duration.ofMillis(700));
        assertThat(options.backplaneConfig.streamMaxLength()).isEqualTo(5000);
        assertThat(options.engineConfig.timeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(StandaloneOptions.parse().backplaneConfig).as("a single node by default").isNull();
        assertThat(StandaloneOptions.parse("--backplane", "redis-cluster://127.0.0.1:7001,127.0.0.1:7002")
                .backplaneConfig.uri()).as("a Redis Cluster").isEqualTo("redis-cluster://127.0.0.1:7001,127.0.0.1:7002");
    }

    @Test
    void badBackplaneOptionsFailNamingWhatIsWrong() {
        assertThatThrownBy(() -> StandaloneOptions.parse("--backplane", "http://127.0.0.1:7001"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--backplane http://127.0.0.1:7001: expected redis://HOST:PORT");
        assertThatThrownBy(() -> StandaloneOptions.parse("--backplane", "redis-cluster://127.0.0.1:7001,oops"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(
                        "--backplane redis-cluster://127.0.0.1:7001,oops: expected redis://HOST:PORT or "
                                + "redis-cluster://HOST:PORT,HOST:PORT,...");
        assertThatThrownBy(() -> StandaloneOptions.parse("--set", "shards=4"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--set shards: a backplane option");
        assertThatThrownBy(() -> StandaloneOptions.parse("--backplane", "redis://127.0.0.1:7001",
                "--set", "operationTimeout=forever"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("operationTimeout=forever");
        assertThatThrownBy(() -> StandaloneOptions.parse("--backplane", "redis://127.0.0.1:7001",
                "--set", "redisUri=redis://127.0.0.1:7002"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("give the URI with --backplane");
    }

    @Test
    void twoServersWithTheSameBackplaneDeliverEachOthersPublishes() throws Exception {
        try (RedisProcess redis = RedisProcess.start();
                StandaloneServer a = server(redis);
                StandaloneServer b = server(redis)) {
            await("both nodes read from Redis").atMost(WAIT)
                    .until(() -> a.getBackplane().isConnected() && b.getBackplane().isConnected());
            BayeuxClient onA = ChatRoomClients.connect(a, ClientTransport.WEBSOCKET);
            BayeuxClient onB = ChatRoomClients.connect(b, ClientTransport.LONG_POLLING);
            try {
                BlockingQueue<Object> receivedOnA = ChatRoomClients.subscribe(onA);
                BlockingQueue<Object> receivedOnB = ChatRoomClients.subscribe(onB);
                Message reply = onA.getChannel("/chat/room").publishAsync("hello")
                        .get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                assertThat(reply.isSuccessful()).isTrue();
                assertThat(receivedOnB.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("hello");
                assertThat(receivedOnA.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("hello");
            } finally {
                onA.close();
                onB.close();
            }
        }
    }

    @Test
    void withSessionStoreOnEachNodeWritesItsSessionsWhereTheOtherReadsThem() throws Exception {
        try (RedisProcess redis = RedisProcess.start();
                StandaloneServer a = server(redis, "--set", "sessionStore=true", "--set", "sessionWriteDelay=50ms");
                StandaloneServer b = server(redis, "--set", "sessionStore=true")) {
            assertThat(a.getEngine().getSessionStore()).isSameAs(a.getBackplane().sessionStore()).isNotNull();
            assertThat(a.getBackplane().config().sessionWriteDelay()).isEqualTo(Duration.ofMillis(50));
            await("both nodes read from Redis").atMost(WAIT)
                    .until(() -> a.getBackplane().isConnected() && b.getBackplane().isConnected());
            BayeuxClient onA = ChatRoomClients.connect(a, ClientTransport.WEBSOCKET);
            try {
                ChatRoomClients.subscribe(onA);
                await("B reads A's session").atMost(WAIT).pollInterval(Duration.ofMillis(50)).ignoreExceptions()
                        .untilAsserted(() -> assertThat(b.getBackplane().sessionStore().find(onA.getId())
                                .subscriptions()).containsExactly("/chat/room"));
            } finally {
                onA.close();
            }
        }
        assertThat(StandaloneOptions.parse("--backplane", "redis://127.0.0.1:7001").backplaneConfig.sessionStore())
                .as("off by default").isFalse();
    }

    @Test
    void sentinelUrisAndMinReplicasAreTakenFromTheFlagsAndValidatedAtStart() {
        var config = StandaloneOptions.parse("--backplane",
                "redis-sentinel://127.0.0.1:26379,127.0.0.1:26380/mymaster", "--backplane-min-replicas", "1")
                .backplaneConfig;
        assertThat(config.uri()).isEqualTo("redis-sentinel://127.0.0.1:26379,127.0.0.1:26380/mymaster");
        assertThat(config.minReplicas()).isEqualTo(1);
        assertThat(StandaloneOptions.parse("--backplane", "redis://127.0.0.1:7001").backplaneConfig.minReplicas())
                .as("no wait by default").isZero();
        assertThat(StandaloneOptions.parse("--backplane", "redis://127.0.0.1:7001", "--set", "minReplicas=2")
                .backplaneConfig.minReplicas()).isEqualTo(2);
        assertThatThrownBy(() -> StandaloneOptions.parse("--backplane", "redis://127.0.0.1:7001",
                "--backplane-min-replicas", "-2")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("minReplicas=-2");
        assertThatThrownBy(() -> StandaloneOptions.parse("--backplane", "redis-cluster://127.0.0.1:7001",
                "--backplane-min-replicas", "1")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("minReplicas=1").hasMessageContaining("Redis Cluster");
        assertThatThrownBy(() -> StandaloneOptions.parse("--backplane", "rediss-sentinel://127.0.0.1:26379/m"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not supported");
    }

    /**
     * The finding: a Redis password with a {@code /} in {@code --backplane}'s URI was shown in full in the start's
     * error. Now it is masked, and the password goes in a file only its owner may read, never in a key.
     */
    @Test
    void theRedisPasswordIsMaskedInErrorsAndTakenFromAnOwnerOnlyFile(@TempDir Path directory) throws Exception {
        String password = "Hq3z/Wm8t@Lp5v";
        assertThatThrownBy(() -> StandaloneOptions.parse("--backplane", "redis://:" + password + "@127.0.0.1:7001"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--backplane redis://***@127.0.0.1:7001: expected redis://HOST:PORT")
                .hasMessageContaining("percent-encoded")
                .satisfies(failure -> assertThat(failure.toString() + failure.getCause()).doesNotContain("Hq3z")
                        .doesNotContain("Wm8t").doesNotContain("Lp5v"));
        assertThatThrownBy(() -> StandaloneOptions.parse("--backplane", "redis://127.0.0.1:7001",
                "--set", "redisPassword=" + password)).hasMessageContaining("--backplane-password-file")
                .satisfies(failure -> assertThat(failure.getMessage()).doesNotContain("Hq3z"));
        assertThatThrownBy(() -> StandaloneOptions.parse(Map.of("BAYEUX_REDIS_PASSWORD", password),
                "--backplane", "redis://127.0.0.1:7001")).hasMessageContaining("--backplane-password-file");

        Path readable = directory.resolve("readable");
        Files.writeString(readable, password);
        Files.setPosixFilePermissions(readable, PosixFilePermissions.fromString("rw-r-----"));
        assertThatThrownBy(() -> StandaloneOptions.parse("--backplane", "redis://127.0.0.1:7001",
                "--backplane-password-file", readable.toString())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("redisPasswordFile=" + readable).hasMessageContaining("only its owner");

        Path file = directory.resolve("redis.password");
        Files.writeString(file, password + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        try (RedisProcess redis = RedisProcess.start(List.of("--requirepass", password), password);
                StandaloneServer a = new StandaloneServer(StandaloneOptions.parse("--backplane", redis.uri(),
                        "--backplane-password-file", file.toString(), "--set", "timeout=5s")
                        .port(0).host("127.0.0.1"))) {
            assertThat(a.getBackplane().config().passwordFile()).isEqualTo(file.toString());
            await("the node reads from a Redis that requires the password").atMost(WAIT)
                    .until(() -> a.getBackplane().isConnected());

            // The password in the URI, percent-encoded: taken, and in no log line (the start line masks it).
            List<String> lines = new CopyOnWriteArrayList<>();
            AppenderBase<ILoggingEvent> appender = new AppenderBase<>() {
                @Override
                protected void append(ILoggingEvent event) {
                    lines.add(event.getFormattedMessage());
                }
            };
            Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
            appender.start();
            root.addAppender(appender);
            try (StandaloneServer b = new StandaloneServer(StandaloneOptions.parse("--backplane",
                    "redis://:Hq3z%2FWm8t%40Lp5v@127.0.0.1:" + redis.port(), "--set", "timeout=5s")
                    .port(0).host("127.0.0.1"))) {
                await("the node reads from Redis with the URI's password").atMost(WAIT)
                        .until(() -> b.getBackplane().isConnected());
            } finally {
                root.detachAppender(appender);
            }
            assertThat(lines).anyMatch(line -> line.contains("redis://***@127.0.0.1:" + redis.port()));
            assertThat(String.join("\n", lines)).doesNotContain("Hq3z").doesNotContain("Wm8t")
                    .doesNotContain("Lp5v");
        }
    }

    private static StandaloneServer server(RedisProcess redis, String... more) throws Exception {
        String[] args = new String[4 + more.length];
        args[0] = "--backplane";
        args[1] = redis.uri();
        args[2] = "--set";
        args[3] = "timeout=5s";
        System.arraycopy(more, 0, args, 4, more.length);
        return new StandaloneServer(StandaloneOptions.parse(args).port(0).host("127.0.0.1"));
    }

    private static StandaloneServer server(RedisProcess redis) throws Exception {
        return new StandaloneServer(StandaloneOptions.parse("--backplane", redis.uri(), "--set", "timeout=5s")
                .port(0).host("127.0.0.1"));
    }
}
