package org.bayeux.backplane.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.AppenderBase;
import org.bayeux.server.BayeuxEngine;
import org.bayeux.server.config.BayeuxServerConfig;
import org.bayeux.server.config.InvalidConfigurationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Redis as a guarded dependency: the backplane authenticates to a real {@code redis-server} with {@code requirepass}
 * or an ACL user, the password read from a file only its owner may read, a wrong password refused with a clear error,
 * and the password never in a log line or an error, even one Lettuce cannot parse.
 */
class RedisCredentialsTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    /** A password with the characters a URI gives meaning to. */
    private static final String PASSWORD = "Zq7x/Kp4w@Vr8m/Tn2%Lsj3";
    private static final String PERCENT_ENCODED = "Zq7x%2FKp4w%40Vr8m%2FTn2%25Lsj3";

    @TempDir
    Path directory;

    private final List<AutoCloseable> started = new ArrayList<>();
    private int files;
    /** Every event logged, from any thread (a ListAppender's list is not safe to read while others log). */
    private final List<ILoggingEvent> events = new CopyOnWriteArrayList<>();
    private final AppenderBase<ILoggingEvent> captured = new AppenderBase<>() {
        @Override
        protected void append(ILoggingEvent event) {
            events.add(event);
        }
    };
    private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    private Level rootLevel;

    @BeforeEach
    void capture() {
        rootLevel = root.getLevel();
        // Everything, Lettuce's DEBUG lines included: the password must be in none of them.
        root.setLevel(Level.DEBUG);
        captured.start();
        root.addAppender(captured);
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = started.size() - 1; i >= 0; i--) {
            started.get(i).close();
        }
        root.detachAppender(captured);
        root.setLevel(rootLevel);
    }

    private RedisProcess redis(List<String> arguments, String auth) throws IOException {
        RedisProcess redis = RedisProcess.start(arguments, auth);
        started.add(redis);
        return redis;
    }

    private String logs() {
        return events.stream().map(event -> event.getFormattedMessage()
                + (event.getThrowableProxy() == null ? "" : ThrowableProxyUtil.asString(event.getThrowableProxy())))
                .collect(Collectors.joining("\n"));
    }

    private Path passwordFile(String password, String permissions) throws IOException {
        Path file = directory.resolve("redis-password-" + files++);
        Files.writeString(file, password + "\n", StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(permissions));
        return file;
    }

    /** @return an engine clustered on the backplane, started; stopped after the test */
    private BayeuxEngine engine(RedisBackplane backplane) {
        BayeuxEngine engine = BayeuxEngine.create(BayeuxServerConfig.builder().build());
        engine.setCluster(backplane);
        engine.start();
        started.add(engine::stop);
        return engine;
    }

    private static void assertNoPart(String text, String password) {
        assertThat(text).doesNotContain(password).doesNotContain(PERCENT_ENCODED);
        for (String part : password.split("[/@%]")) {
            if (part.length() >= 3) {
                assertThat(text).as("a part of the password: %s", part).doesNotContain(part);
            }
        }
    }

    /** The finding: a password with a {@code /} written in the URI showed in full (or in part) in errors and logs. */
    @Test
    void aPasswordWithASlashInTheUriAppearsInNoErrorAndNoLog() throws Exception {
        RedisProcess redis = redis(List.of("--requirepass", PASSWORD), PASSWORD);
        String raw = "redis://:" + PASSWORD + "@127.0.0.1:" + redis.port();
        String error = null;
        try {
            RedisBackplane backplane = new RedisBackplane(RedisBackplaneConfig.fromMap(Map.of("redisUri", raw)));
            engine(backplane);
            await().atMost(Duration.ofSeconds(5)).until(() -> !logs().isEmpty());
        } catch (RuntimeException refused) {
            error = refused.toString() + " " + refused.getCause();
        }
        // Refused at start, naming the key and the value with the password masked...
        assertThat(error).contains("redisUri=redis://***@127.0.0.1:" + redis.port())
                .contains("percent-encoded");
        assertNoPart(error, PASSWORD);
        assertNoPart(logs(), PASSWORD);

        // ...and, percent-encoded, taken: the backplane connects, and nothing it or Lettuce logs holds the password.
        RedisBackplaneConfig config = RedisBackplaneConfig.fromMap(Map.of("redisUri",
                "redis://:" + PERCENT_ENCODED + "@127.0.0.1:" + redis.port()));
        assertNoPart(config.toString(), PASSWORD);
        RedisBackplane backplane = new RedisBackplane(config);
        engine(backplane);
        await("connected with the URI's password").atMost(WAIT).until(backplane::isConnected);
        assertThat(logs()).contains("127.0.0.1:" + redis.port());
        assertNoPart(logs(), PASSWORD);
        // The dump names where Redis is, never its password.
        assertThat(backplane.dump()).contains("127.0.0.1:" + redis.port());
        assertNoPart(backplane.dump(), PASSWORD);
    }

    @Test
    void theBackplaneAuthenticatesWithThePasswordFileAndRefusesAWrongOneClearly() throws Exception {
        RedisProcess redis = redis(List.of("--requirepass", PASSWORD), PASSWORD);
        RedisBackplane backplane = new RedisBackplane(RedisBackplaneConfig.builder().uri(redis.uri())
                .credentials("", passwordFile(PASSWORD, "rw-------").toString()).build());
        engine(backplane);
        await("connected with the file's password").atMost(WAIT).until(backplane::isConnected);

        String wrong = "not-the-password-51c3";
        RedisBackplane refused = new RedisBackplane(RedisBackplaneConfig.builder().uri(redis.uri())
                .credentials("", passwordFile(wrong, "r--------").toString()).build());
        engine(refused);
        await("the refusal logged").atMost(WAIT).until(() -> events.stream().anyMatch(event ->
                event.getLevel() == Level.ERROR && event.getFormattedMessage().contains("refused the backplane's "
                        + "credentials")));
        assertThat(refused.isConnected()).isFalse();
        assertThat(events.stream().map(ILoggingEvent::getFormattedMessage)
                .filter(line -> line.contains("refused the backplane's credentials"))).first().asString()
                .contains("Redis 127.0.0.1:" + redis.port()).contains("WRONGPASS").contains("redisPasswordFile");
        assertNoPart(logs(), PASSWORD);
        assertThat(logs()).doesNotContain(wrong);
    }

    @Test
    void theBackplaneAuthenticatesAsAnAclUser() throws Exception {
        // An ACL user that may do what the backplane does on its keys, and nothing else; the default user is off.
        RedisProcess redis = redis(List.of("--user", "default", "off", "--user", "bayeux", "on", ">" + PASSWORD,
                "~bayeux:*", "&*", "+@all", "-@dangerous", "+client|id", "+client|unblock", "+info"),
                "bayeux " + PASSWORD);
        RedisBackplane backplane = new RedisBackplane(RedisBackplaneConfig.builder().uri(redis.uri())
                .credentials("bayeux", passwordFile(PASSWORD, "r--------").toString()).build());
        engine(backplane);
        await("connected as the ACL user").atMost(WAIT).until(backplane::isConnected);

        RedisBackplane stranger = new RedisBackplane(RedisBackplaneConfig.builder().uri(redis.uri())
                .credentials("someone", passwordFile(PASSWORD, "r--------").toString()).build());
        engine(stranger);
        await("the unknown user refused").atMost(WAIT).until(() -> events.stream().anyMatch(event ->
                event.getLevel() == Level.ERROR && event.getFormattedMessage().contains("WRONGPASS")));
        assertThat(stranger.isConnected()).isFalse();
        assertNoPart(logs(), PASSWORD);
    }

    @Test
    void aPasswordFileOthersMayReadIsRefusedAtStartNamingTheKey() throws Exception {
        Path readable = passwordFile(PASSWORD, "rw-r--r--");
        RedisBackplaneConfig config = RedisBackplaneConfig.builder().uri("redis://127.0.0.1:1")
                .credentials("", readable.toString()).build();
        assertThatThrownBy(() -> new RedisBackplane(config)).isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("redisPasswordFile=" + readable).hasMessageContaining("only its owner")
                .hasMessageContaining("chmod 600");
        Path empty = passwordFile("", "rw-------");
        Files.writeString(empty, "");
        assertThatThrownBy(() -> new RedisBackplane(RedisBackplaneConfig.builder().uri("redis://127.0.0.1:1")
                .credentials("", empty.toString()).build())).hasMessageContaining("empty");
        assertThatThrownBy(() -> new RedisBackplane(RedisBackplaneConfig.builder().uri("redis://127.0.0.1:1")
                .credentials("", directory.resolve("missing").toString()).build()))
                .hasMessageContaining("redisPasswordFile=").hasMessageContaining("a readable file");
        // The password given twice, or a user without a password: refused rather than guessed.
        assertThatThrownBy(() -> new RedisBackplane(RedisBackplaneConfig.builder()
                .uri("redis://:" + PERCENT_ENCODED + "@127.0.0.1:1")
                .credentials("", passwordFile(PASSWORD, "rw-------").toString()).build()))
                .hasMessageContaining("give the password once").hasMessageContaining("redis://***@127.0.0.1:1");
        assertThatThrownBy(() -> new RedisBackplane(RedisBackplaneConfig.builder().uri("redis://127.0.0.1:1")
                .credentials("bayeux", "").build())).hasMessageContaining("redisUsername=bayeux");
        // The session store's key file: the same rules, and at least 32 bytes.
        Path shortKey = passwordFile("k".repeat(SessionDigest.MIN_KEY_BYTES - 1), "rw-------");
        RedisBackplaneConfig withShortKey = RedisBackplaneConfig.builder().uri("redis://127.0.0.1:1")
                .sessionStore(true, Duration.ofMillis(200), Duration.ofSeconds(5)).sessionKeyFile(shortKey.toString())
                .build();
        assertThatThrownBy(withShortKey::checkCredentials).hasMessageContaining("sessionKeyFile=" + shortKey)
                .hasMessageContaining("at least 32 bytes");
        assertThatThrownBy(() -> new RedisBackplane(withShortKey)).hasMessageContaining("sessionKeyFile=");
        Path sharedKey = passwordFile("k".repeat(SessionDigest.MIN_KEY_BYTES), "rw-rw----");
        assertThatThrownBy(() -> RedisBackplaneConfig.builder().uri("redis://127.0.0.1:1")
                .sessionStore(true, Duration.ofMillis(200), Duration.ofSeconds(5))
                .sessionKeyFile(sharedKey.toString()).build().checkCredentials())
                .hasMessageContaining("sessionKeyFile=" + sharedKey).hasMessageContaining("only its owner");
    }

    @Test
    void urisAreParsedByLettuceAndMaskedInErrors() {
        for (String bad : new String[] {"redis://", "redis://h:x", "redis://h:70000", "redis://h1:1,h2:2",
            "redis://:" + PASSWORD + "@h:1", "rediss-cluster://u:" + PASSWORD + "@h:1,h:x", "redis-socket:///tmp/r"}) {
            assertThatThrownBy(() -> RedisBackplaneConfig.fromMap(Map.of("redisUri", bad))).as(bad)
                    .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("redisUri=")
                    .satisfies(failure -> assertNoPart(failure.getMessage(), PASSWORD));
        }
        assertThatThrownBy(() -> RedisBackplaneConfig.builder().uri("redis://u:" + PASSWORD + "@h:1"))
                .hasMessageContaining("redisUri=redis://u:***@h:1");
        RedisBackplaneConfig cluster = RedisBackplaneConfig.fromMap(Map.of("redisUri",
                "rediss-cluster://bayeux:" + PERCENT_ENCODED + "@127.0.0.1:7000,localhost:7001"));
        RedisEndpoint endpoint = RedisEndpoint.resolve(cluster);
        assertThat(endpoint.cluster()).isTrue();
        assertThat(endpoint.tls()).isTrue();
        assertThat(endpoint.description()).isEqualTo("Redis Cluster 127.0.0.1:7000,localhost:7001 (TLS)");
        assertThat(endpoint.seeds()).allSatisfy(seed -> {
            assertThat(seed.isSsl()).isTrue();
            var credentials = seed.getCredentialsProvider().resolveCredentials().block();
            assertThat(credentials.getUsername()).isEqualTo("bayeux");
            assertThat(new String(credentials.getPassword())).isEqualTo(PASSWORD);
        });
        assertNoPart(cluster.toString(), PASSWORD);
        assertThat(RedisEndpoint.mask("redis-cluster://u:p/a@ss@h:1,h:2")).isEqualTo("redis-cluster://u:***@h:1,h:2");
    }

    /** @return a self-signed certificate for 127.0.0.1 and localhost, and its key, as PEM files (openssl CLI) */
    private Path[] selfSigned(String name) throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/openssl")), "openssl not found");
        Path certificate = directory.resolve(name + "-cert.pem");
        Path key = directory.resolve(name + "-key.pem");
        Process openssl = new ProcessBuilder("/usr/bin/openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
                "-keyout", key.toString(), "-out", certificate.toString(), "-days", "1", "-subj", "/CN=127.0.0.1",
                "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost").redirectErrorStream(true)
                .redirectOutput(directory.resolve(name + "-openssl.log").toFile()).start();
        assertThat(openssl.waitFor(60, TimeUnit.SECONDS)).as("openssl finished").isTrue();
        assertThat(openssl.exitValue()).as("openssl: %s", Files.readString(directory.resolve(name + "-openssl.log")))
                .isZero();
        return new Path[] {certificate, key};
    }

    /**
     * TLS: a redis-server with a TLS port (and a plain one on 127.0.0.1 for its readiness check only), its certificate
     * self-signed for the run; the backplane connects over rediss:// trusting that certificate (redisTlsCaFile), with
     * the password from its file, and does not connect when it trusts another one.
     */
    @Test
    void theBackplaneConnectsOverTlsTrustingTheGivenCertificateOnly() throws Exception {
        Path[] server = selfSigned("redis");
        Path[] other = selfSigned("other");
        int tlsPort = RedisProcess.freePort();
        RedisProcess redis = redis(List.of("--tls-port", Integer.toString(tlsPort), "--tls-cert-file",
                server[0].toString(), "--tls-key-file", server[1].toString(), "--tls-auth-clients", "no",
                "--requirepass", PASSWORD), PASSWORD);
        String password = passwordFile(PASSWORD, "rw-------").toString();
        RedisBackplane backplane = new RedisBackplane(RedisBackplaneConfig.builder()
                .uri("rediss://127.0.0.1:" + tlsPort).credentials("", password)
                .tls(server[0].toString(), RedisBackplaneConfig.TlsVerify.FULL).build());
        engine(backplane);
        await("connected over TLS").atMost(WAIT).until(backplane::isConnected);
        assertThat(logs()).contains("Redis 127.0.0.1:" + tlsPort + " (TLS)");

        RedisBackplane untrusting = new RedisBackplane(RedisBackplaneConfig.builder()
                .uri("rediss://127.0.0.1:" + tlsPort).credentials("", password)
                .tls(other[0].toString(), RedisBackplaneConfig.TlsVerify.FULL).build());
        engine(untrusting);
        await("the untrusted certificate refused").atMost(WAIT).until(() -> events.stream().anyMatch(event ->
                event.getThrowableProxy() != null && ThrowableProxyUtil.asString(event.getThrowableProxy())
                        .contains("SSLHandshakeException")));
        assertThat(untrusting.isConnected()).isFalse();
        assertThat(redis.isAlive()).isTrue();
        assertNoPart(logs(), PASSWORD);

        // A CA file is for TLS only.
        assertThatThrownBy(() -> new RedisBackplane(RedisBackplaneConfig.builder().uri(redis.uri())
                .tls(server[0].toString(), RedisBackplaneConfig.TlsVerify.FULL).build()))
                .hasMessageContaining("redisTlsCaFile=");
    }
}
