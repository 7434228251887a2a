package org.bayeux.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.bayeux.api.Message;
import org.bayeux.client.BayeuxClient;
import org.bayeux.client.BayeuxClientConfig;
import org.bayeux.client.transport.ClientTransport;
import org.bayeux.standalone.testapp.AppJar;
import org.bayeux.standalone.testapp.EchoApplication;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The distribution as a user gets it: {@code bayeux-server-VERSION.tar.gz} (built by {@code src/dist/build-dist.sh}
 * before this test) unpacked with tar into a temporary folder, an application jar dropped into {@code apps/}, and
 * {@code bin/bayeux-server} run as a real process with nothing but {@code JAVA_HOME} and {@code JAVA_OPTS}; a client
 * calls the application's service; the process is stopped by its PID.
 */
class DistributionIT {
    private static final Duration START = Duration.ofSeconds(60);
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final Pattern LISTENING = Pattern.compile("^Listening on (http://[^/]+)/ \\(Bayeux endpoint .*\\)$");

    @TempDir
    Path folder;
    private Path home;
    private final List<Process> processes = new ArrayList<>();

    @BeforeEach
    void unpack() throws Exception {
        Path archive = Path.of(System.getProperty("bayeux.dist", "target/bayeux-server.tar.gz"));
        assertThat(archive).as("the distribution (built at pre-integration-test)").isRegularFile();
        Process tar = new ProcessBuilder("tar", "-xzf", archive.toString(), "-C", folder.toString())
                .redirectErrorStream(true).start();
        processes.add(tar);
        assertThat(tar.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(tar.exitValue()).as(new String(tar.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
                .isZero();
        try (var top = Files.list(folder)) {
            home = top.filter(Files::isDirectory).findFirst().orElseThrow();
        }
        assertThat(home.getFileName().toString()).startsWith("bayeux-server-");
    }

    @AfterEach
    void stop() throws Exception {
        for (Process process : processes) {
            if (process.isAlive()) {
                process.toHandle().destroy(); // SIGTERM to the PID: the launcher exec'd the JVM, so it is the server
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            }
        }
    }

    @Test
    void theUnpackedDistributionServesAClientAndRunsTheApplicationsOfItsAppsFolder() throws Exception {
        assertThat(home.resolve("bin/bayeux-server")).isExecutable();
        assertThat(home.resolve("conf/logback.xml")).isRegularFile();
        assertThat(home.resolve("conf/bayeux.properties.example")).isRegularFile();
        assertThat(home.resolve("apps")).isDirectory();
        try (var jars = Files.list(home.resolve("lib"))) {
            assertThat(jars.map(jar -> jar.getFileName().toString()))
                    .anyMatch(name -> name.startsWith("bayeux-standalone-"))
                    .anyMatch(name -> name.startsWith("logback-classic-"))
                    .allMatch(name -> name.endsWith(".jar"));
        }
        AppJar.echo(home.resolve("apps/echo.jar"));

        // JAVA_OPTS reaches the JVM: -XX:+PrintCommandLineFlags prints the heap it was given.
        Server server = launch("-Xmx96m -XX:+PrintCommandLineFlags", "--port", "0", "--host", "127.0.0.1");
        String base = server.awaitListening();
        assertThat(server.out.text()).contains("-XX:MaxHeapSize=100663296");
        // conf/logback.xml is the one in use: its ISO timestamps and [thread].
        assertThat(server.out.text()).containsPattern("\\d{4}-\\d\\d-\\d\\dT\\S+ INFO  \\[main\\] "
                + "\\S+Applications - Started application " + Pattern.quote(EchoApplication.class.getName())
                + " from " + Pattern.quote(home.resolve("apps/echo.jar").toString()));

        BayeuxClient client = new BayeuxClient(BayeuxClientConfig.builder(base + "/bayeux")
                .transports(ClientTransport.WEBSOCKET, ClientTransport.LONG_POLLING).build());
        try {
            assertThat(client.handshake(WAIT)).isEqualTo(BayeuxClient.State.CONNECTED);
            Message answer = client.remoteCallAsync("/service/echo", "from the dist", WAIT)
                    .get(WAIT.toMillis() * 2, TimeUnit.MILLISECONDS);
            assertThat(answer.isSuccessful()).as("answer %s", answer).isTrue();
            assertThat(answer.getDataAsMap()).isEqualTo(Map.of("echo", "from the dist",
                    "greeting", "hello from the jar"));
        } finally {
            client.close();
        }
        assertThat(server.out.text()).doesNotContain(EchoApplication.STOPPED);
        // SIGTERM to the PID through its handle: Process.destroy() would also close our ends of its output pipes.
        assertThat(server.process.toHandle().destroy()).isTrue();
        assertThat(server.process.waitFor(30, TimeUnit.SECONDS)).as("stopped by SIGTERM").isTrue();
        server.out.join();
        // SIGTERM runs Jetty's shutdown hook, which stops the applications first.
        server.err.join();
        assertThat(server.out.lines()).as("exit %s, stderr: %s", server.process.exitValue(), server.err.text())
                .contains(EchoApplication.STOPPED);
    }

    /**
     * The commented JSON-lines appender of conf/logback.xml, un-commented as its comment says, writes one JSON
     * object per event; and an application jar that fails stops the start with an error naming its class and jar.
     */
    @Test
    void theJsonLinesAppenderWorksAndABrokenApplicationStopsTheStart() throws Exception {
        Path logback = home.resolve("conf/logback.xml");
        String shipped = Files.readString(logback);
        assertThat(shipped).contains("<!-- JSON-BEGIN\n").contains("  JSON-END -->\n").contains("<appender-ref ref=\"CONSOLE\"/>");
        String json = shipped.lines().filter(line -> !line.contains("JSON-BEGIN") && !line.contains("JSON-END"))
                .map(line -> line.replace("<appender-ref ref=\"CONSOLE\"/>", "<appender-ref ref=\"JSON\"/>"))
                .reduce("", (a, b) -> a + b + "\n");
        // As the file says: the two marker lines deleted, root refers to JSON.
        Files.writeString(logback, json);
        AppJar.echo(home.resolve("apps/a-echo.jar")); // found, but not started: every application loads first
        Path broken = new AppJar().listing(List.of("org.example.Missing")).writeTo(home.resolve("apps/b-broken.jar"));

        Server server = launch("", "--port", "0", "--host", "127.0.0.1");
        assertThat(server.process.waitFor(START.toSeconds(), TimeUnit.SECONDS)).as("exits").isTrue();
        server.out.join();
        server.err.join();
        assertThat(server.process.exitValue()).isEqualTo(1);
        assertThat(server.err.text()).contains("bayeux: application org.example.Missing from " + broken)
                .contains("could not be loaded");
        List<String> events = server.out.lines().stream().filter(line -> line.startsWith("{")).toList();
        assertThat(events).anySatisfy(line -> assertThat(line).contains("\"level\":\"INFO\"")
                .contains("\"loggerName\":\"org.bayeux.standalone.Applications\"")
                .contains("\"formattedMessage\":\"Looking for applications in [")
                .contains("a-echo.jar, ").contains("b-broken.jar]") // JSON writes / as \/
                .endsWith("}"));
        assertThat(server.out.text()).doesNotContain("Listening on");
    }

    private Server launch(String javaOpts, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(home.resolve("bin/bayeux-server").toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).directory(folder.toFile());
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        builder.environment().put("JAVA_OPTS", javaOpts);
        builder.environment().remove("BAYEUX_CONF");
        Process process = builder.start();
        processes.add(process);
        return new Server(process);
    }

    /** A launched distribution: its process and what it wrote. */
    private static final class Server {
        final Process process;
        final Output out;
        final Output err;

        Server(Process process) {
            this.process = process;
            this.out = new Output(process.getInputStream(), "stdout");
            this.err = new Output(process.getErrorStream(), "stderr");
        }

        /** @return the base URL from the "Listening on" line, waiting at most {@link #START} */
        String awaitListening() throws InterruptedException {
            long deadline = System.nanoTime() + START.toNanos();
            synchronized (out) {
                while (true) {
                    for (String line : out.lines) {
                        Matcher listening = LISTENING.matcher(line);
                        if (listening.matches()) {
                            return listening.group(1);
                        }
                    }
                    long left = deadline - System.nanoTime();
                    if (left <= 0 || out.ended) {
                        throw new AssertionError("no 'Listening on' line; stdout:\n" + out.text() + "\nstderr:\n"
                                + err.text());
                    }
                    TimeUnit.NANOSECONDS.timedWait(out, left);
                }
            }
        }
    }

    /** The lines of a stream, read by a thread of their own (at most 5,000 kept). */
    private static final class Output {
        final List<String> lines = new ArrayList<>();
        boolean ended;
        private final Thread reader;

        Output(InputStream stream, String name) {
            reader = new Thread(() -> {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                    for (String line = in.readLine(); line != null; line = in.readLine()) {
                        synchronized (this) {
                            if (lines.size() < 5_000) {
                                lines.add(line);
                            }
                            notifyAll();
                        }
                    }
                } catch (IOException closed) {
                    // the process ended
                } finally {
                    synchronized (this) {
                        ended = true;
                        notifyAll();
                    }
                }
            }, "dist-" + name);
            reader.setDaemon(true);
            reader.start();
        }

        synchronized List<String> lines() {
            return List.copyOf(lines);
        }

        synchronized String text() {
            return String.join("\n", lines);
        }

        void join() throws InterruptedException {
            reader.join(START.toMillis());
        }
    }
}
