package org.bayeux.backplane.redis;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;

/**
 * A master, two replicas and three sentinels of the test's own, all Debian's {@code redis-server} (the sentinels run
 * it with {@code --sentinel}), on free ports of 127.0.0.1 in a temporary directory (never 6379, never the system
 * service), the sentinels with {@code down-after-milliseconds 1000} and a quorum of 2. Every process is stopped by its
 * PID; {@link #pause} and {@link #resume} send {@code SIGSTOP} and {@code SIGCONT} to one by its PID. The first
 * master is reached by everyone through a {@link ReplicationHoldProxy} (the sentinels know it by the proxy's port), so
 * that a test can make its replicas lag ({@link #holdReplication}).
 */
public final class RedisSentinelProcesses implements AutoCloseable {
    /** The name the sentinels know the master by. */
    public static final String MASTER_NAME = "bayeux-master";
    private static final Duration STARTUP = Duration.ofSeconds(60);
    private static final Duration STOP_GRACE = Duration.ofSeconds(5);

    private final Path directory;
    private final List<RedisProcess> servers = new ArrayList<>();
    private final List<Process> sentinels = new ArrayList<>();
    private final List<Integer> sentinelPorts = new ArrayList<>();
    private final List<Long> paused = new ArrayList<>();
    private ReplicationHoldProxy proxy;

    private RedisSentinelProcesses(Path directory) {
        this.directory = directory;
    }

    /**
     * Starts the master, its replicas (once both are in sync) and the sentinels (once each knows both replicas and
     * the two other sentinels, so that a failover can be agreed). Without {@code redis-server} the test is skipped,
     * unless {@code CI=true}.
     *
     * @return the running processes
     */
    public static RedisSentinelProcesses start() throws IOException {
        RedisSentinelProcesses started = new RedisSentinelProcesses(Files.createTempDirectory("bayeux-sentinel-"));
        try {
            started.launch();
        } catch (IOException | RuntimeException failed) {
            started.close();
            throw failed;
        }
        return started;
    }

    private void launch() throws IOException {
        RedisProcess master = RedisProcess.start();
        servers.add(master);
        proxy = new ReplicationHoldProxy(master.port());
        for (int i = 0; i < 2; i++) {
            servers.add(RedisProcess.start(List.of("--replicaof", "127.0.0.1", Integer.toString(proxy.port())),
                    null));
        }
        await("both replicas in sync with the master").atMost(STARTUP).pollInterval(Duration.ofMillis(100))
                .until(() -> onlineReplicas(master) == 2);
        for (int i = 0; i < 3; i++) {
            int port = RedisProcess.freePort();
            Path config = directory.resolve("sentinel-" + port + ".conf");
            Files.writeString(config, String.join("\n",
                    "port " + port,
                    "bind 127.0.0.1",
                    "daemonize no",
                    "dir " + directory,
                    "sentinel monitor " + MASTER_NAME + " 127.0.0.1 " + proxy.port() + " 2",
                    "sentinel down-after-milliseconds " + MASTER_NAME + " 1000",
                    "sentinel failover-timeout " + MASTER_NAME + " 5000",
                    "sentinel parallel-syncs " + MASTER_NAME + " 2",
                    ""), StandardCharsets.US_ASCII);
            ProcessBuilder builder = new ProcessBuilder("/usr/bin/redis-server", config.toString(), "--sentinel");
            builder.redirectErrorStream(true);
            builder.redirectOutput(directory.resolve("sentinel-" + port + ".log").toFile());
            sentinels.add(builder.start());
            sentinelPorts.add(port);
        }
        for (int port : sentinelPorts) {
            await("sentinel " + port + " knows the replicas and the other sentinels").atMost(STARTUP)
                    .pollInterval(Duration.ofMillis(200)).ignoreExceptions().until(() -> {
                        Map<String, String> state = sentinel(port, connection -> connection.sync()
                                .master(MASTER_NAME));
                        return "2".equals(state.get("num-slaves")) && "2".equals(state.get("num-other-sentinels"));
                    });
        }
    }

    /** @return the URI of the backplane: {@code redis-sentinel://h:p,h:p,h:p/bayeux-master} */
    public String uri() {
        StringBuilder uri = new StringBuilder(RedisEndpoint.SENTINEL_SCHEME);
        for (int i = 0; i < sentinelPorts.size(); i++) {
            uri.append(i == 0 ? "" : ",").append("127.0.0.1:").append(sentinelPorts.get(i));
        }
        return uri.append('/').append(MASTER_NAME).toString();
    }

    /** @return the port of the master as the sentinels say now (the first sentinel that answers) */
    public int masterPort() {
        for (int port : sentinelPorts) {
            try {
                return ((InetSocketAddress) sentinel(port, connection -> connection.sync()
                        .getMasterAddrByName(MASTER_NAME))).getPort();
            } catch (RuntimeException down) {
                // the next one
            }
        }
        throw new IllegalStateException("no sentinel answers");
    }

    /** @return the master the sentinels name now */
    public RedisProcess master() {
        int port = masterPort();
        if (proxy != null && port == proxy.port()) {
            return servers.get(0);
        }
        return servers.stream().filter(server -> server.port() == port).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no server on " + port));
    }

    /** @return the servers that run and are not the master now */
    public List<RedisProcess> replicas() {
        RedisProcess master = master();
        return servers.stream().filter(server -> server != master && server.isAlive()).toList();
    }

    /** From now on the first master's replicas get nothing more of its writes (they lag behind it). */
    public void holdReplication() {
        proxy.hold();
    }

    /**
     * {@code kill -9} of the master; the first one's proxy is closed with it, dropping what it held back.
     *
     * @return the port the sentinels knew the master by, for {@link #awaitFailover}
     */
    public int killMaster() throws IOException {
        int known = masterPort();
        master().kill();
        if (known == proxy.port()) {
            proxy.close();
        }
        return known;
    }

    /** {@code SIGSTOP}: the process holds its connections open and answers nothing until {@link #resume}. */
    public void pause(RedisProcess server) throws IOException, InterruptedException {
        signal("-STOP", server.pid());
        paused.add(server.pid());
    }

    /** {@code SIGCONT} after {@link #pause}. */
    public void resume(RedisProcess server) throws IOException, InterruptedException {
        signal("-CONT", server.pid());
        paused.remove(server.pid());
    }

    private static void signal(String signal, long pid) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", signal, Long.toString(pid)).start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IOException("kill " + signal + " " + pid + " failed");
        }
    }

    /** Waits until the sentinels name another master than {@code oldPort}, and it accepts writes. */
    public int awaitFailover(int oldPort) {
        int[] now = {oldPort};
        await("a replica promoted in place of " + oldPort).atMost(STARTUP).pollInterval(Duration.ofMillis(200))
                .ignoreExceptions().until(() -> {
                    now[0] = masterPort();
                    return now[0] != oldPort && "master".equals(role(now[0]));
                });
        return now[0];
    }

    /**
     * @param port a server's port
     * @param command what to run on a connection to it
     * @return its answer
     */
    public <T> T onServer(int port, Function<RedisCommands<String, String>, T> command) {
        RedisClient client = RedisClient.create(RedisURI.builder().withHost("127.0.0.1").withPort(port)
                .withTimeout(Duration.ofSeconds(5)).build());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            return command.apply(connection.sync());
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    private String role(int port) {
        String info = onServer(port, commands -> commands.info("replication"));
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("role:")) {
                return line.substring("role:".length()).trim();
            }
        }
        return "";
    }

    private long onlineReplicas(RedisProcess master) {
        String info = onServer(master.port(), commands -> commands.info("replication"));
        return info.lines().filter(line -> line.startsWith("slave") && line.contains("state=online")).count();
    }

    private static <T> T sentinel(int port, Function<StatefulRedisSentinelConnection<String, String>, T> command) {
        RedisClient client = RedisClient.create(RedisURI.builder().withHost("127.0.0.1").withPort(port)
                .withTimeout(Duration.ofSeconds(2)).build());
        try (StatefulRedisSentinelConnection<String, String> connection = client.connectSentinel()) {
            return command.apply(connection);
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    /** Resumes what is paused, stops the sentinels then the servers, each by its PID, and deletes the directory. */
    @Override
    public void close() throws IOException {
        for (Long pid : List.copyOf(paused)) {
            try {
                signal("-CONT", pid);
            } catch (IOException | InterruptedException ignored) {
                // it may be gone
            }
        }
        for (Process sentinel : sentinels) {
            sentinel.destroy();
            try {
                if (!sentinel.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                    sentinel.destroyForcibly();
                    sentinel.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
                }
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        if (proxy != null) {
            proxy.close();
        }
        for (RedisProcess server : servers) {
            server.close();
        }
        if (Files.exists(directory)) {
            try (Stream<Path> files = Files.walk(directory)) {
                files.sorted(Comparator.reverseOrder()).forEach(path -> {
                    try {
                        Files.deleteIfExists(path);
                    } catch (IOException failure) {
                        throw new UncheckedIOException(failure);
                    }
                });
            }
        }
    }

    /** @return the directory of the sentinels' configuration files and logs */
    public Path directory() {
        return directory;
    }
}
