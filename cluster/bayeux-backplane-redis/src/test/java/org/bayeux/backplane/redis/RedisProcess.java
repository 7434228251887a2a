package org.bayeux.backplane.redis;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Assumptions;

/**
 * A {@code redis-server} of the test's own: a free port on 127.0.0.1, a temporary directory, the append-only file
 * synced on every write (what makes an acknowledged write survive a {@code kill -9}), stopped by its PID. Never the
 * system service, never port 6379.
 */
public final class RedisProcess implements AutoCloseable {
    /** Debian's package that brings the binary; {@code bin/bayeux test} installs it when missing. */
    public static final String PACKAGE = "redis-server";
    private static final Duration STARTUP = Duration.ofSeconds(15);
    private static final Duration STOP_GRACE = Duration.ofSeconds(5);

    private final Path directory;
    private final int port;
    private final List<String> extraArguments;
    private final String auth;
    private Process process;

    private RedisProcess(Path directory, int port, List<String> extraArguments, String auth) {
        this.directory = directory;
        this.port = port;
        this.extraArguments = List.copyOf(extraArguments);
        this.auth = auth;
    }

    /**
     * Starts a server and waits until it answers {@code PING}. Without the binary the test is skipped, unless
     * {@code CI=true}, where it fails naming the package.
     *
     * @return the running server
     * @throws IOException if the temporary directory cannot be made or the process not started
     */
    public static RedisProcess start() throws IOException {
        return start(List.of(), null);
    }

    /**
     * Starts a server with more command-line settings, such as {@code --requirepass} or {@code --tls-port}, and
     * waits until it answers {@code PING} on its plain port.
     *
     * @param extraArguments appended to the command line, in pairs ({@code --name value})
     * @param auth the arguments of an {@code AUTH} the readiness {@code PING} needs ({@code "PASSWORD"} or
     *             {@code "USER PASSWORD"}, words without spaces), or null
     * @return the running server
     * @throws IOException if the temporary directory cannot be made or the process not started
     */
    public static RedisProcess start(List<String> extraArguments, String auth) throws IOException {
        String binary = binary();
        if (binary == null) {
            String message = "redis-server not found: install the Debian package '" + PACKAGE + "'";
            if ("true".equals(System.getenv("CI"))) {
                throw new IllegalStateException(message);
            }
            Assumptions.abort(message);
        }
        RedisProcess redis = new RedisProcess(Files.createTempDirectory("bayeux-redis-"), freePort(),
                extraArguments, auth);
        redis.launch();
        return redis;
    }

    private static String binary() {
        for (String candidate : List.of("/usr/bin/redis-server", "/usr/local/bin/redis-server")) {
            if (Files.isExecutable(Path.of(candidate))) {
                return candidate;
            }
        }
        return null;
    }

    /** @return a port free on 127.0.0.1 now, for a second listener such as {@code --tls-port} */
    public static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private void launch() throws IOException {
        List<String> command = new java.util.ArrayList<>(List.of(binary(), "--port", Integer.toString(port), "--bind",
                "127.0.0.1", "--dir", directory.toString(), "--appendonly", "yes", "--appendfsync", "always", "--save",
                "", "--daemonize", "no", "--logfile", ""));
        command.addAll(extraArguments);
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.redirectErrorStream(true);
        builder.redirectOutput(directory.resolve("redis.log").toFile());
        process = builder.start();
        Process started = process;
        try {
            await("redis-server on port " + port + " answers PING").atMost(STARTUP)
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> {
                        if (!started.isAlive()) {
                            throw new IllegalStateException("redis-server exited with " + started.exitValue()
                                    + ": " + log());
                        }
                        return pings();
                    });
        } catch (RuntimeException failed) {
            stopProcess();
            throw failed;
        }
    }

    /** @return true if the server answers {@code PING} with {@code PONG} within a second */
    public boolean pings() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
            socket.setSoTimeout(1000);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            if (auth != null) {
                out.write(("AUTH " + auth + "\r\n").getBytes(StandardCharsets.US_ASCII));
                out.flush();
                byte[] ok = new byte[5];
                int got = 0;
                while (got < ok.length) {
                    int n = in.read(ok, got, ok.length - got);
                    if (n < 0) {
                        return false;
                    }
                    got += n;
                }
                if (!"+OK\r\n".equals(new String(ok, StandardCharsets.US_ASCII))) {
                    return false;
                }
            }
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            byte[] answer = new byte[7];
            int read = 0;
            while (read < answer.length) {
                int n = in.read(answer, read, answer.length - read);
                if (n < 0) {
                    break;
                }
                read += n;
            }
            return "+PONG\r\n".equals(new String(answer, 0, read, StandardCharsets.US_ASCII));
        } catch (IOException notYet) {
            return false;
        }
    }

    /** Empties every database ({@code FLUSHALL}), the way a Redis that lost its data comes back. */
    public void flushAll() throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
            socket.setSoTimeout(5000);
            socket.getOutputStream().write("FLUSHALL\r\n".getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            byte[] answer = new byte[5];
            int read = 0;
            while (read < answer.length) {
                int n = socket.getInputStream().read(answer, read, answer.length - read);
                if (n < 0) {
                    break;
                }
                read += n;
            }
            if (!"+OK\r\n".equals(new String(answer, 0, read, StandardCharsets.US_ASCII))) {
                throw new IOException("FLUSHALL not answered +OK");
            }
        }
    }

    /** @return the URI to give a client */
    public String uri() {
        return "redis://127.0.0.1:" + port;
    }

    /** @return the server's port on 127.0.0.1 */
    public int port() {
        return port;
    }

    /** @return the server process's id */
    public long pid() {
        return process.pid();
    }

    /** @return true while the server process runs */
    public boolean isAlive() {
        return process != null && process.isAlive();
    }

    /** {@code kill -9}: no shutdown, only what the append-only file already holds survives. */
    public void kill() {
        Process current = process;
        current.destroyForcibly();
        waitFor(current, STOP_GRACE);
    }

    /** Starts the server again on the same port and directory, after {@link #kill()}. */
    public void restart() throws IOException {
        if (isAlive()) {
            throw new IllegalStateException("still running: pid " + pid());
        }
        launch();
    }

    @Override
    public void close() throws IOException {
        stopProcess();
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

    /** SIGTERM, then SIGKILL if it has not exited within the grace period. */
    private void stopProcess() {
        Process current = process;
        if (current == null || !current.isAlive()) {
            return;
        }
        current.destroy();
        if (!waitFor(current, STOP_GRACE)) {
            current.destroyForcibly();
            waitFor(current, STOP_GRACE);
        }
    }

    private static boolean waitFor(Process process, Duration limit) {
        try {
            return process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private String log() {
        try {
            return Files.readString(directory.resolve("redis.log"));
        } catch (IOException unreadable) {
            return "(no log)";
        }
    }

    /** @return the server's directory: its append-only files and its log */
    public Path directory() {
        return directory;
    }
}
