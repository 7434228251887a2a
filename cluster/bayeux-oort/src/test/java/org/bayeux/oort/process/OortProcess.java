package org.bayeux.oort.process;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import org.bayeux.testsupport.PausableProxy;

/**
 * An Oort node running as a process of its own ({@link OortNodeMain} in a new JVM on this JVM's class path), seen from
 * a test: its port, URL and incarnation id, the membership events it printed (with the time this JVM read them), its
 * counters on demand. {@link #close()} stops it by ending its standard input, then kills it by its PID if it is still
 * alive after 10 s; {@link #kill9()} kills it at once (SIGKILL on Linux). Its output goes to a file under
 * {@code target/oort-nodes}.
 */
public final class OortProcess implements AutoCloseable {
    /** How long a node has to start on a loaded machine. */
    public static final Duration START_LIMIT = Duration.ofSeconds(60);
    private static final Path LOG_DIR = Path.of("target", "oort-nodes").toAbsolutePath();
    private static final AtomicInteger RUNS = new AtomicInteger();

    /** A membership change a node printed: {@code joined} or {@code left}, the member, and when it was read here. */
    public record Event(String kind, String id, String url, long nanoTime) {
        @Override
        public String toString() {
            return kind + " " + id;
        }
    }

    private final String name;
    private final Process process;
    private final Path log;
    private final Writer logWriter;
    private final PrintWriter stdin;
    private final List<Event> events = new CopyOnWriteArrayList<>();
    private final List<Map<String, String>> joins = new CopyOnWriteArrayList<>();
    private final BlockingQueue<String> replies = new LinkedBlockingQueue<>();
    private final CountDownLatch ready = new CountDownLatch(1);
    private final CountDownLatch bound = new CountDownLatch(1);
    private volatile int boundPort;
    private volatile PausableProxy proxy;
    private final Object lock = new Object();
    private volatile Map<String, String> readyFields;
    /** Every incarnation of the node, the first one (at start) first. */
    private final List<String> incarnations = new CopyOnWriteArrayList<>();
    private final Thread reader;

    private OortProcess(String name, Process process, Path log) throws IOException {
        this.name = name;
        this.process = process;
        this.log = log;
        this.logWriter = Files.newBufferedWriter(log, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        this.stdin = new PrintWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8), true);
        this.reader = new Thread(this::read, "oort-process-" + name);
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts a node and waits until it printed that it is up.
     *
     * @param name a name for the log file and messages, e.g. "A"
     * @param args {@link OortNodeMain}'s arguments
     * @return the running node
     */
    public static OortProcess start(String name, List<String> args) {
        return launch(name, args).awaitReady();
    }

    /**
     * Starts a node behind a {@link PausableProxy} of its own: the node binds a free port, the proxy relays to it,
     * and the node advertises the proxy's URL, so that every link into it (and every client that uses its URL) passes
     * through the proxy. Links out of it go through the other nodes' proxies.
     *
     * @param name a name for the log file and messages
     * @param args {@link OortNodeMain}'s arguments, without {@code --advertise}
     * @return the running node; {@link #proxy()} is its proxy, closed with it
     */
    public static OortProcess startBehindProxy(String name, List<String> args) {
        List<String> all = new ArrayList<>(args);
        all.addAll(List.of("--advertise", "stdin"));
        OortProcess node = launch(name, all);
        try {
            if (!node.bound.await(START_LIMIT.toMillis(), TimeUnit.MILLISECONDS) || node.boundPort == 0) {
                node.kill9();
                throw new AssertionError("Node " + name + " bound no port within " + START_LIMIT + node.logTail());
            }
            node.proxy = new PausableProxy(node.boundPort);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            node.kill9();
            throw new AssertionError(interrupted);
        } catch (IOException failure) {
            node.kill9();
            throw new AssertionError("No proxy for node " + name, failure);
        }
        node.stdin.println("url http://127.0.0.1:" + node.proxy.port() + "/bayeux");
        return node.awaitReady();
    }

    private OortProcess awaitReady() {
        try {
            if (!ready.await(START_LIMIT.toMillis(), TimeUnit.MILLISECONDS)) {
                kill9();
                throw new AssertionError("Node " + name + " not up after " + START_LIMIT + logTail());
            }
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            kill9();
            throw new AssertionError(interrupted);
        }
        if (readyFields == null) {
            throw new AssertionError("Node " + name + " ended before it was up, exit code " + process.exitValue()
                    + logTail());
        }
        return this;
    }

    /** @return the proxy in front of the node ({@link #startBehindProxy}), or null */
    public PausableProxy proxy() {
        return proxy;
    }

    /**
     * Starts a node that is expected to refuse its configuration, and waits for it to end.
     *
     * @param name a name for the log file
     * @param args {@link OortNodeMain}'s arguments
     * @return the exit code and everything the process printed (standard output and error, interleaved)
     */
    public static Exit startExpectingExit(String name, List<String> args) {
        OortProcess node = launch(name, args);
        try {
            if (!node.process.waitFor(START_LIMIT.toMillis(), TimeUnit.MILLISECONDS)) {
                node.kill9();
                throw new AssertionError("Node " + name + " still running after " + START_LIMIT + node.logTail());
            }
            node.reader.join(TimeUnit.SECONDS.toMillis(10));
            return new Exit(node.process.exitValue(), Files.readString(node.log, StandardCharsets.UTF_8));
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            node.kill9();
            throw new AssertionError(interrupted);
        } catch (IOException unreadable) {
            throw new AssertionError(unreadable);
        }
    }

    /** How a process ended: its exit code and its output. */
    public record Exit(int code, String output) {
    }

    private static OortProcess launch(String name, List<String> args) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-Xmx192m", "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                OortNodeMain.class.getName()));
        command.addAll(args);
        try {
            Files.createDirectories(LOG_DIR);
            Path log = LOG_DIR.resolve(String.format("%03d-%d-%s.log", RUNS.incrementAndGet(),
                    ProcessHandle.current().pid(), name));
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            return new OortProcess(name, process, log);
        } catch (IOException failure) {
            throw new AssertionError("Cannot start node " + name + ": " + command, failure);
        }
    }

    private void read() {
        try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                long now = System.nanoTime();
                synchronized (logWriter) {
                    logWriter.write(line);
                    logWriter.write('\n');
                    logWriter.flush();
                }
                if (line.startsWith(OortNodeMain.BOUND)) {
                    boundPort = Integer.parseInt(fields(line.substring(OortNodeMain.BOUND.length())).get("port"));
                    bound.countDown();
                } else if (line.startsWith(OortNodeMain.READY)) {
                    readyFields = fields(line.substring(OortNodeMain.READY.length()));
                    incarnations.add(readyFields.get("id"));
                    ready.countDown();
                } else if (line.startsWith(OortNodeMain.EVENT)) {
                    String[] words = line.substring(OortNodeMain.EVENT.length()).split(" ");
                    events.add(new Event(words[0], words[1], words[2], now));
                    synchronized (lock) {
                        lock.notifyAll();
                    }
                } else if (line.startsWith(OortNodeMain.INCARNATION)) {
                    incarnations.add(line.substring(OortNodeMain.INCARNATION.length()).trim());
                } else if (line.startsWith(OortNodeMain.JOIN)) {
                    joins.add(fields(line.substring(OortNodeMain.JOIN.length())));
                } else if (line.startsWith(OortNodeMain.REPLY)) {
                    replies.add(line.substring(OortNodeMain.REPLY.length()));
                }
            }
        } catch (IOException ended) {
            // The process is gone: nothing more to read.
        } finally {
            bound.countDown();
            ready.countDown();
            try {
                synchronized (logWriter) {
                    logWriter.close();
                }
            } catch (IOException ignored) {
                // Only the log.
            }
        }
    }

    private static Map<String, String> fields(String text) {
        Map<String, String> fields = new HashMap<>();
        for (String word : text.trim().split(" ")) {
            int equals = word.indexOf('=');
            if (equals > 0) {
                fields.put(word.substring(0, equals), word.substring(equals + 1));
            }
        }
        return fields;
    }

    /** @return the name given at start */
    public String name() {
        return name;
    }

    /** @return the port it listens on */
    public int port() {
        return Integer.parseInt(readyFields.get("port"));
    }

    /** @return its Bayeux endpoint */
    public String url() {
        return readyFields.get("url");
    }

    /** @return its incarnation id at start */
    public String id() {
        return readyFields.get("id");
    }

    /** @return every incarnation it had, the one at start first (a peer that declared it left makes it take another) */
    public List<String> incarnations() {
        return List.copyOf(incarnations);
    }

    /** @return the process id */
    public long pid() {
        return process.pid();
    }

    /** @return the membership events printed so far, in order */
    public List<Event> events() {
        return List.copyOf(events);
    }

    /** @return the events as "joined ID" / "left ID", in order */
    public List<String> eventLines() {
        return events.stream().map(Event::toString).toList();
    }

    /** @return the join proofs printed so far (with --print-joins), each as its fields */
    public List<Map<String, String>> joins() {
        return List.copyOf(joins);
    }

    /**
     * Waits for an event.
     *
     * @param what the event wanted
     * @param limit how long to wait
     * @return the first event that matches
     */
    public Event awaitEvent(Predicate<Event> what, Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        synchronized (lock) {
            while (true) {
                for (Event event : events) {
                    if (what.test(event)) {
                        return event;
                    }
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("Node " + name + " printed no such event within " + limit
                            + "; events: " + eventLines() + logTail());
                }
                try {
                    lock.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError(interrupted);
                }
            }
        }
    }

    /**
     * @param kind "joined" or "left"
     * @param id the member's incarnation id
     * @param limit how long to wait
     * @return the event
     */
    public Event await(String kind, String id, Duration limit) {
        return awaitEvent(event -> event.kind().equals(kind) && event.id().equals(id), limit);
    }

    /** @return its counters (forwarded, received, duplicates, gaps, refusedJoins, joins, leaves, ...) */
    public Map<String, Long> stats() {
        Map<String, Long> stats = new HashMap<>();
        fields(ask("stats")).forEach((key, value) -> stats.put(key, Long.parseLong(value)));
        return stats;
    }

    /**
     * @param channel a channel name
     * @return how many sessions of this node subscribe to exactly that channel
     */
    public int subscribers(String channel) {
        return Integer.parseInt(ask("subscribers " + channel).trim());
    }

    /** @return the ids of the peers joined now */
    public List<String> members() {
        String reply = ask("members").trim();
        return reply.isEmpty() ? List.of() : List.of(reply.split(","));
    }

    private String ask(String command) {
        synchronized (stdin) {
            replies.clear();
            stdin.println(command);
            try {
                String reply = replies.poll(30, TimeUnit.SECONDS);
                if (reply == null) {
                    throw new AssertionError("Node " + name + " did not answer '" + command + "'" + logTail());
                }
                return reply;
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                throw new AssertionError(interrupted);
            }
        }
    }

    /** @return whether the process is still running */
    public boolean isAlive() {
        return process.isAlive();
    }

    /** Kills the process at once (SIGKILL): no link is closed, no goodbye is sent. Waits until it is gone. */
    public void kill9() {
        process.destroyForcibly();
        waitGone();
        closeProxy();
    }

    private void closeProxy() {
        PausableProxy relay = proxy;
        if (relay != null) {
            relay.resume();
            relay.close();
        }
    }

    /** Stops the node cleanly (its standard input ends), or kills it if it is still alive after 10 s. */
    @Override
    public void close() {
        if (!process.isAlive()) {
            closeProxy();
            return;
        }
        stdin.close();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        waitGone();
        closeProxy();
    }

    private void waitGone() {
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                throw new AssertionError("Node " + name + " (pid " + process.pid() + ") still alive after SIGKILL");
            }
            reader.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** @return the end of the node's output, for failure messages */
    public String logTail() {
        try {
            String text = Files.readString(log, StandardCharsets.UTF_8);
            return "\n--- " + name + " (" + log + "):\n" + (text.length() > 6000
                    ? "…" + text.substring(text.length() - 6000) : text);
        } catch (IOException unreadable) {
            return "\n--- " + name + ": log unreadable: " + unreadable;
        }
    }

    @Override
    public String toString() {
        return "node " + name + (readyFields == null ? "" : " " + url() + " " + id());
    }
}
