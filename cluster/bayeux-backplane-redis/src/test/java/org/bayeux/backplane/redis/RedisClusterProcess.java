package org.bayeux.backplane.redis;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Assumptions;

/**
 * A three-master Redis Cluster of the test's own: three {@code redis-server --cluster-enabled yes} on free loopback
 * ports (each with its cluster bus port, port + 10000, free too), each in a temporary directory with the append-only
 * file synced on every write, joined by {@code redis-cli --cluster create … --cluster-replicas 0}, ready once every
 * node reports {@code cluster_state:ok}; stopped by PID. Never port 6379.
 */
public final class RedisClusterProcess implements AutoCloseable {
    private static final int MASTERS = 3;
    private static final Duration STARTUP = Duration.ofSeconds(60);
    private static final Duration STOP_GRACE = Duration.ofSeconds(5);
    private static final Duration COMMAND = Duration.ofSeconds(20);

    private final Path directory;
    private final List<Integer> ports = new ArrayList<>();
    private final List<Process> processes = new ArrayList<>();
    /** How many replicas each master has. */
    private final int replicasPerMaster;

    private RedisClusterProcess(Path directory, int replicasPerMaster) {
        this.directory = directory;
        this.replicasPerMaster = replicasPerMaster;
    }

    /**
     * Starts the three masters and makes them a cluster. Without the binaries the test is skipped, unless
     * {@code CI=true}, where it fails naming the package.
     *
     * @return the running cluster
     * @throws Exception if a process cannot be started or the cluster does not form within a minute
     */
    public static RedisClusterProcess start() throws Exception {
        return start(0);
    }

    /**
     * Starts three masters with that many replicas each and makes them a cluster.
     *
     * @param replicasPerMaster 0 or more
     * @return the running cluster
     * @throws Exception as {@link #start()}
     */
    public static RedisClusterProcess start(int replicasPerMaster) throws Exception {
        if (!Files.isExecutable(Path.of("/usr/bin/redis-server")) || !Files.isExecutable(Path.of("/usr/bin/redis-cli"))) {
            String message = "redis-server or redis-cli not found: install the Debian package '"
                    + RedisProcess.PACKAGE + "'";
            if ("true".equals(System.getenv("CI"))) {
                throw new IllegalStateException(message);
            }
            Assumptions.abort(message);
        }
        RedisClusterProcess cluster = new RedisClusterProcess(Files.createTempDirectory("bayeux-redis-cluster-"),
                replicasPerMaster);
        try {
            cluster.launch();
            return cluster;
        } catch (Exception | Error failed) {
            cluster.close();
            throw failed;
        }
    }

    private void launch() throws Exception {
        for (int node = 0; node < nodes(); node++) {
            int port = freePortWithFreeBus();
            ports.add(port);
            processes.add(startNode(port));
        }
        for (int node = 0; node < nodes(); node++) {
            awaitPing(ports.get(node), processes.get(node));
        }
        List<String> create = new ArrayList<>(List.of("/usr/bin/redis-cli", "--cluster", "create"));
        ports.forEach(port -> create.add("127.0.0.1:" + port));
        create.addAll(List.of("--cluster-replicas", Integer.toString(replicasPerMaster), "--cluster-yes"));
        String created = run(create, STARTUP);
        if (!created.contains("All 16384 slots covered")) {
            throw new IllegalStateException("redis-cli --cluster create failed: " + created);
        }
        awaitClusterOk();
    }

    /** Waits (bounded) until every node reports {@code cluster_state:ok} and knows all the masters. */
    public void awaitClusterOk() {
        for (int port : ports) {
            await("cluster_state:ok on port " + port).atMost(STARTUP).pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        String info = cli(port, "CLUSTER", "INFO");
                        return info.contains("cluster_state:ok") && info.contains("cluster_known_nodes:" + nodes());
                    });
        }
        if (replicasPerMaster > 0) {
            // A replica that never finished its first sync (the master's diskless sync waits 5 s for others) can
            // never be promoted: wait until every master has its replicas online.
            for (int port : ports) {
                await("the replicas of " + port + " in sync").atMost(STARTUP).pollInterval(Duration.ofMillis(200))
                        .until(() -> {
                            String info = cli(port, "INFO", "replication");
                            return !info.contains("role:master") || info.lines()
                                    .filter(line -> line.startsWith("slave") && line.contains("state=online"))
                                    .count() == replicasPerMaster;
                        });
            }
        }
    }

    private int nodes() {
        return MASTERS * (1 + replicasPerMaster);
    }

    /**
     * @param port a node's port
     * @return the port of the master of that node's slots now: itself if it is a master, else its master's
     */
    public int masterOf(int port) throws IOException, InterruptedException {
        String info = cli(port, "INFO", "replication");
        if (info.contains("role:master")) {
            return port;
        }
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("master_port:")) {
                return Integer.parseInt(line.substring("master_port:".length()).strip());
            }
        }
        throw new IllegalStateException("no master_port in INFO replication of " + port);
    }

    /** @return the ports of the nodes that replicate the master on that port now */
    public List<Integer> replicasOf(int master) throws IOException, InterruptedException {
        List<Integer> replicas = new ArrayList<>();
        for (int port : ports) {
            if (port != master && processes.get(ports.indexOf(port)).isAlive() && masterOf(port) == master) {
                replicas.add(port);
            }
        }
        return replicas;
    }

    private Process startNode(int port) throws IOException {
        Path dir = Files.createDirectories(directory.resolve("node-" + port));
        // The same directory on a restart: nodes.conf keeps the node's identity and slots, the AOF its data.
        ProcessBuilder builder = new ProcessBuilder("/usr/bin/redis-server", "--port", Integer.toString(port),
                "--bind", "127.0.0.1", "--dir", dir.toString(), "--cluster-enabled", "yes",
                "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "5000",
                "--appendonly", "yes", "--appendfsync", "always", "--save", "", "--daemonize", "no",
                "--logfile", "");
        builder.redirectErrorStream(true);
        builder.redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("redis.log").toFile()));
        return builder.start();
    }

    private static void awaitPing(int port, Process process) {
        await("redis-server on port " + port + " answers PING").atMost(STARTUP).pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    if (!process.isAlive()) {
                        throw new IllegalStateException("redis-server on port " + port + " exited with "
                                + process.exitValue());
                    }
                    return cli(port, "PING").contains("PONG");
                });
    }

    /** {@code kill -9} of the master on that port: only what its append-only file holds survives. */
    public void kill(int port) throws InterruptedException {
        Process process = processes.get(ports.indexOf(port));
        process.destroyForcibly();
        if (!process.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("redis-server on port " + port + " did not exit");
        }
    }

    /** Starts the master on that port again, same directory, after {@link #kill}; waits for its PING. */
    public void restart(int port) throws IOException {
        int index = ports.indexOf(port);
        if (processes.get(index).isAlive()) {
            throw new IllegalStateException("still running: port " + port);
        }
        Process process = startNode(port);
        processes.set(index, process);
        awaitPing(port, process);
    }

    /** @return a free port p on 127.0.0.1 whose cluster bus port p + 10000 is free too (and below 65536) */
    private static int freePortWithFreeBus() throws IOException {
        for (int attempt = 0; attempt < 200; attempt++) {
            int port;
            try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = socket.getLocalPort();
            }
            if (port == 6379 || port + 10000 > 65535 || port == 6379 - 10000) {
                continue;
            }
            try (ServerSocket bus = new ServerSocket(port + 10000, 1, InetAddress.getLoopbackAddress())) {
                return port;
            } catch (IOException taken) {
                // Try another.
            }
        }
        throw new IOException("no free port with a free cluster bus port in 200 attempts");
    }

    /** Runs {@code redis-cli -h 127.0.0.1 -p port args…} and returns what it printed. */
    static String cli(int port, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("/usr/bin/redis-cli", "-h", "127.0.0.1", "-p",
                Integer.toString(port)));
        command.addAll(List.of(args));
        return run(command, COMMAND);
    }

    private static String run(List<String> command, Duration limit) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        // Output is small; read it after exit (bounded wait), so a hung command cannot block the test forever.
        if (!process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            process.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
            throw new IOException(String.join(" ", command) + " did not finish within " + limit);
        }
        return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }

    /** @return {@code redis-cluster://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3} */
    public String uri() {
        return "redis-cluster://" + ports.stream().map(port -> "127.0.0.1:" + port).collect(Collectors.joining(","));
    }

    /** @return the nodes' ports (the masters' ones without replicas) */
    public List<Integer> ports() {
        return List.copyOf(ports);
    }

    /** @return the keys matching a pattern that the master on that port holds ({@code KEYS}: test data is small) */
    public List<String> keys(int port, String pattern) throws IOException, InterruptedException {
        return cli(port, "KEYS", pattern).lines().map(String::strip).filter(line -> !line.isEmpty())
                .collect(Collectors.toList());
    }

    @Override
    public void close() throws IOException {
        for (Process process : processes) {
            if (process.isAlive()) {
                process.destroy();
            }
        }
        for (Process process : processes) {
            try {
                if (!process.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                    process.destroyForcibly();
                    process.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
                }
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
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
}
