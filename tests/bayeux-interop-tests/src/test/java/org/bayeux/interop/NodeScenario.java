package org.bayeux.interop;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.bayeux.api.json.JsonCodec;
import org.bayeux.api.json.JsonCodecProvider;
import org.bayeux.api.json.MalformedJsonException;

/**
 * One run of {@code node/run.mjs}: a Node.js process that drives a real JavaScript client (CometD JS or Faye)
 * through one scenario and prints one result line. The process writes to files under {@code target/node-logs};
 * a run that outlives its time is killed by its PID (and so are its children, by theirs).
 */
final class NodeScenario {
    /** The npm project with the clients; set by the POM, defaulting to the module's own folder. */
    static final Path NODE_DIR = Path.of(System.getProperty("interop.node.dir", "node")).toAbsolutePath();
    private static final Path LOG_DIR = Path.of("target", "node-logs").toAbsolutePath();
    private static final String RESULT_PREFIX = "INTEROP-RESULT ";
    private static final AtomicInteger RUNS = new AtomicInteger();
    private static final JsonCodec JSON = JsonCodecProvider.find("jackson", NodeScenario.class.getClassLoader())
            .newCodec(JsonCodec.DEFAULT_MAX_NESTING_DEPTH);

    private final String description;
    private final String client;
    private final String transport;
    private final Process process;
    private final Path stdout;
    private final Path stderr;

    private NodeScenario(String description, String client, String transport, Process process, Path stdout,
            Path stderr) {
        this.description = description;
        this.client = client;
        this.transport = transport;
        this.process = process;
        this.stdout = stdout;
        this.stderr = stderr;
    }

    /**
     * Starts a scenario.
     *
     * @param client "cometd-js" or "faye"
     * @param url the Bayeux endpoint
     * @param transport the transport the client must use
     * @param scenario the scenario name (see node/lib/scenarios.mjs)
     * @param args further "--name value" arguments for the scenario
     * @return the running scenario
     */
    static NodeScenario start(String client, String url, String transport, String scenario, Map<String, ?> args) {
        return start(client, url, transport, scenario, args, Map.of());
    }

    /**
     * Starts a scenario with environment variables for the Node.js process, such as {@code NODE_EXTRA_CA_CERTS}.
     *
     * @param client "cometd-js" or "faye"
     * @param url the Bayeux endpoint
     * @param transport the transport the client must use
     * @param scenario the scenario name (see node/lib/scenarios.mjs)
     * @param args further "--name value" arguments for the scenario
     * @param environment variables added to the process's environment
     * @return the running scenario
     */
    static NodeScenario start(String client, String url, String transport, String scenario, Map<String, ?> args,
            Map<String, String> environment) {
        if (!Files.isDirectory(NODE_DIR.resolve("node_modules"))) {
            throw new AssertionError("The Node.js clients are not installed: run `npm ci` in " + NODE_DIR
                    + " (bin/bayeux test does it for you)");
        }
        List<String> command = new ArrayList<>(List.of("node", "run.mjs", "--client", client, "--url", url,
                "--transport", transport, "--scenario", scenario));
        Map<String, Object> all = new LinkedHashMap<>();
        all.put("timeout", 45_000);
        all.putAll(args);
        all.forEach((name, value) -> {
            command.add("--" + name);
            command.add(String.valueOf(value));
        });
        String description = client + " " + scenario + " over " + transport;
        try {
            Files.createDirectories(LOG_DIR);
            String name = String.format("%03d-%s-%s", RUNS.incrementAndGet(), client, scenario);
            Path stdout = LOG_DIR.resolve(name + ".out");
            Path stderr = LOG_DIR.resolve(name + ".err");
            ProcessBuilder builder = new ProcessBuilder(command).directory(NODE_DIR.toFile())
                    .redirectOutput(stdout.toFile()).redirectError(stderr.toFile());
            builder.environment().putAll(environment);
            Process process = builder.start();
            return new NodeScenario(description, client, transport, process, stdout, stderr);
        } catch (IOException failure) {
            throw new AssertionError("Cannot start `node` (Node.js 20 is needed on the PATH): " + command, failure);
        }
    }

    /**
     * Starts a scenario with no further arguments.
     *
     * @param client "cometd-js" or "faye"
     * @param url the Bayeux endpoint
     * @param transport the transport the client must use
     * @param scenario the scenario name
     * @return the running scenario
     */
    static NodeScenario start(String client, String url, String transport, String scenario) {
        return start(client, url, transport, scenario, Map.of());
    }

    /**
     * Waits for the result line and checks that the scenario succeeded, and that every connect the client sent
     * named the transport asked for (a client that fell back to another transport fails here).
     *
     * @param timeout how long to wait for the process to end
     * @return the result, as parsed JSON
     */
    Map<String, Object> result(Duration timeout) {
        Map<String, Object> result = succeeded(timeout);
        List<?> connectionTypes = afterFayeUpgrade((List<?>) result.get("connectionTypes"));
        if (!List.of(transport).containsAll(connectionTypes)) {
            throw new AssertionError(description + " connected with " + connectionTypes + logs());
        }
        return result;
    }

    /**
     * Faye always handshakes over long-polling and moves to WebSocket once its probe of the server succeeds; on a busy
     * machine its first connects may go out before that. Those leading long-polling connects are its design, not a
     * fall-back: they are left out when WebSocket was asked for and followed.
     *
     * @param connectionTypes the connect transports in order, repeats left out (Faye's adapter records them so)
     * @return the transports from the upgrade on
     */
    private List<?> afterFayeUpgrade(List<?> connectionTypes) {
        if ("faye".equals(client) && "websocket".equals(transport) && connectionTypes.size() > 1
                && "long-polling".equals(connectionTypes.get(0)) && "websocket".equals(connectionTypes.get(1))) {
            return connectionTypes.subList(1, connectionTypes.size());
        }
        return connectionTypes;
    }

    /**
     * Like {@link #result(Duration)} for a scenario that cut the client's connections: the client must have started
     * on the transport asked for, but may then have fallen back to another (Faye leaves WebSocket for long-polling
     * once a socket failed).
     *
     * @param timeout how long to wait for the process to end
     * @return the result, as parsed JSON
     */
    Map<String, Object> resultAfterConnectionsCut(Duration timeout) {
        Map<String, Object> result = succeeded(timeout);
        List<?> connectionTypes = afterFayeUpgrade((List<?>) result.get("connectionTypes"));
        if (connectionTypes.isEmpty() || !transport.equals(connectionTypes.get(0))) {
            throw new AssertionError(description + " connected with " + connectionTypes + logs());
        }
        return result;
    }

    private Map<String, Object> succeeded(Duration timeout) {
        Map<String, Object> result = anyResult(timeout);
        if (!Boolean.TRUE.equals(result.get("ok"))) {
            throw new AssertionError(description + " failed: " + result.get("error") + logs());
        }
        if (!(result.get("connectionTypes") instanceof List)) {
            throw new AssertionError(description + " reported no connectionTypes" + logs());
        }
        return result;
    }

    /**
     * Waits for the result line, whether the scenario succeeded or not.
     *
     * @param timeout how long to wait for the process to end
     * @return the result, as parsed JSON
     */
    @SuppressWarnings("unchecked")
    Map<String, Object> anyResult(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                kill();
                throw new AssertionError(description + " still running after " + timeout + "; killed" + logs());
            }
            for (String line : Files.readAllLines(stdout, StandardCharsets.UTF_8)) {
                if (line.startsWith(RESULT_PREFIX)) {
                    return (Map<String, Object>) JSON.parse(line.substring(RESULT_PREFIX.length()));
                }
            }
            throw new AssertionError(description + " exited with " + process.exitValue() + " and no result" + logs());
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            kill();
            throw new AssertionError("Interrupted", interrupted);
        } catch (IOException | MalformedJsonException | RuntimeException failure) {
            throw new AssertionError(description + ": unreadable result" + logs(), failure);
        }
    }

    /**
     * @param line a line the scenario prints on its way, such as {@code INTEROP-SUBSCRIBED}
     * @return true once the scenario has printed it
     */
    boolean printed(String line) {
        try {
            return Files.readAllLines(stdout, StandardCharsets.UTF_8).contains(line);
        } catch (IOException notYet) {
            return false;
        }
    }

    /**
     * The lines printed so far that start with a prefix, as JSON; a last line not yet ended is left for later.
     *
     * @param prefix such as {@code INTEROP-SEQ }
     * @return each such line's JSON after the prefix, in order
     */
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> jsonLines(String prefix) {
        String text;
        try {
            text = Files.readString(stdout, StandardCharsets.UTF_8);
        } catch (IOException notYet) {
            return List.of();
        }
        List<Map<String, Object>> lines = new ArrayList<>();
        int start = 0;
        for (int end = text.indexOf('\n'); end >= 0; start = end + 1, end = text.indexOf('\n', start)) {
            if (text.startsWith(prefix, start)) {
                try {
                    lines.add((Map<String, Object>) JSON.parse(text.substring(start + prefix.length(), end)));
                } catch (MalformedJsonException unreadable) {
                    throw new AssertionError(description + ": unreadable line " + text.substring(start, end),
                            unreadable);
                }
            }
        }
        return lines;
    }

    /** @return true while the Node.js process runs */
    boolean isAlive() {
        return process.isAlive();
    }

    /** Ends the process, if still running, and any child it started: each by its own PID. */
    void kill() {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private String logs() {
        return "\n--- stdout (" + stdout + "):\n" + tail(stdout) + "\n--- stderr (" + stderr + "):\n" + tail(stderr);
    }

    private static String tail(Path file) {
        try {
            String text = Files.readString(file, StandardCharsets.UTF_8);
            return text.length() > 4000 ? "…" + text.substring(text.length() - 4000) : text;
        } catch (IOException unreadable) {
            return "(unreadable: " + unreadable + ")";
        }
    }

    /** @return the client: "cometd-js" or "faye" */
    String client() {
        return client;
    }

    /** @return the client, scenario and transport, for assertion messages */
    @Override
    public String toString() {
        return description;
    }
}
