package org.bayeux.interop;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.bayeux.standalone.StandaloneServer;

/**
 * A standalone server as a process of its own ({@link StandaloneServer}'s main on this JVM's class path), on a port
 * fixed at construction so that it can be started again on the same one (a rolling restart, behind a balancer that
 * knows the port). Output goes to a file under {@code target/server-logs}. Signals go by PID; {@link #close()}
 * kills whatever still runs.
 */
final class ServerProcess implements AutoCloseable {
    private static final Path LOG_DIR = Path.of("target", "server-logs").toAbsolutePath();
    private static final Duration SIGNAL_LIMIT = Duration.ofSeconds(10);

    private final String name;
    private final int port;
    private final List<String> jvmOptions;
    private final List<String> arguments;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private Process process;
    private int starts;

    /**
     * @param name names the log files
     * @param port the port on 127.0.0.1, kept across restarts
     * @param arguments the server's command-line arguments after {@code --port} and {@code --host}
     */
    ServerProcess(String name, int port, List<String> arguments) {
        this(name, port, List.of(), arguments);
    }

    /**
     * @param name names the log files
     * @param port the port on 127.0.0.1
     * @param jvmOptions options for the server's JVM (a logging configuration, say), before its main class
     * @param arguments the server's arguments after {@code --port} and {@code --host}
     */
    ServerProcess(String name, int port, List<String> jvmOptions, List<String> arguments) {
        this.name = name;
        this.port = port;
        this.jvmOptions = List.copyOf(jvmOptions);
        this.arguments = List.copyOf(arguments);
    }

    /** Starts the process; {@link #awaitReady(Duration)} waits until it takes clients. */
    void start() throws IOException {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException(name + " still runs: pid " + process.pid());
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-Xmx192m", "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1"));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), StandaloneServer.class.getName(),
                "--port", Integer.toString(port), "--host", "127.0.0.1"));
        command.addAll(arguments);
        Files.createDirectories(LOG_DIR);
        Path log = LOG_DIR.resolve(name + "-" + (++starts) + ".log");
        process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    /**
     * Waits until {@code GET /health/ready} answers 200.
     *
     * @param limit how long at most
     */
    void awaitReady(Duration limit) {
        Process current = process;
        await(name + " ready on port " + port).atMost(limit).pollInterval(Duration.ofMillis(100)).until(() -> {
            if (!current.isAlive()) {
                throw new IllegalStateException(name + " exited with " + current.exitValue() + "; see "
                        + LOG_DIR);
            }
            return ready();
        });
    }

    private boolean ready() {
        try {
            return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health/ready"))
                    .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.discarding())
                    .statusCode() == 200;
        } catch (IOException notYet) {
            return false;
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** {@code kill -9}: the process ends at once; the kernel closes its sockets. */
    void kill() throws InterruptedException {
        signal("KILL");
        if (!process.waitFor(SIGNAL_LIMIT.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError(name + " still runs after kill -9");
        }
    }

    /**
     * {@code kill -TERM}: the server drains, then exits.
     *
     * @param limit how long the drain may take
     * @return the exit value
     */
    int terminate(Duration limit) throws InterruptedException {
        signal("TERM");
        if (!process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError(name + " still runs " + limit + " after SIGTERM");
        }
        return process.exitValue();
    }

    /** {@code kill -STOP}: the process stands still, its sockets open, as a JVM in a long pause. */
    void suspend() throws InterruptedException {
        signal("STOP");
    }

    /** {@code kill -CONT}: a {@link #suspend() suspended} process runs on. */
    void resume() throws InterruptedException {
        signal("CONT");
    }

    /** @return the lines of this process's current log file (its output since the last start) */
    List<String> logLines() throws IOException {
        return Files.readAllLines(LOG_DIR.resolve(name + "-" + starts + ".log"));
    }

    private void signal(String signal) throws InterruptedException {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start();
            if (!kill.waitFor(SIGNAL_LIMIT.toMillis(), TimeUnit.MILLISECONDS) || kill.exitValue() != 0) {
                throw new AssertionError("kill -" + signal + " " + process.pid() + " failed");
            }
        } catch (IOException failure) {
            throw new AssertionError("cannot run kill(1)", failure);
        }
    }

    /** @return the port on 127.0.0.1 */
    int port() {
        return port;
    }

    /** @return the process's id */
    long pid() {
        return process.pid();
    }

    @Override
    public void close() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroyForcibly();
            process.waitFor(SIGNAL_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public String toString() {
        return name + " (port " + port + (process == null ? "" : ", pid " + process.pid()) + ")";
    }
}
