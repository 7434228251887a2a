package org.bayeux.load;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import org.bayeux.load.report.HtmlReport;
import picocli.CommandLine;

/**
 * {@code bin/bayeux load}: parses the options, checks the file-descriptor limit, runs the load, writes
 * {@code result.json} and {@code report.html}, prints the summary, and exits 0 (complete), 1 (lost or duplicated
 * messages), 2 (bad command line) or 3 (the run could not be carried out).
 */
public final class LoadMain {
    static final int COMPLETE = 0;
    static final int INCOMPLETE = 1;
    static final int USAGE = 2;
    static final int FAILED = 3;
    /** Descriptors beyond the sockets: jars, logs, selectors, the JVM's own. */
    private static final long SPARE_DESCRIPTORS = 200;

    private LoadMain() {
    }

    /**
     * @param args the command line; {@code --help} explains every option
     */
    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /**
     * Runs a load from a command line.
     *
     * @param args the command line
     * @param out where the summary goes
     * @param err where progress and errors go
     * @return the exit code
     */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        LoadOptions options = new LoadOptions();
        // A later option wins, so that a script can append to a profile (as the comparison does).
        CommandLine command = new CommandLine(options).setOverwrittenOptionsAllowed(true);
        try {
            command.parseArgs(args);
        } catch (CommandLine.ParameterException bad) {
            err.println("bayeux load: " + bad.getMessage());
            err.println("Try 'bin/bayeux load --help'.");
            return USAGE;
        }
        if (command.isUsageHelpRequested()) {
            command.usage(out);
            return COMPLETE;
        }
        if (command.isVersionHelpRequested()) {
            out.println("bayeux load");
            return COMPLETE;
        }
        List<String> problems = options.validate();
        if (!problems.isEmpty()) {
            problems.forEach(problem -> err.println("bayeux load: " + problem));
            return USAGE;
        }
        String descriptors = checkDescriptors(options, openFileLimit());
        if (descriptors != null) {
            err.println("bayeux load: " + descriptors);
            return FAILED;
        }
        if (options.outage != null) {
            return outage(options, out, err);
        }
        LoadResult result;
        try (ClientFactory factory = factory(options)) {
            result = new LoadRun(options, factory, err).run();
        } catch (LoadRun.LoadFailure failure) {
            err.println("bayeux load: " + failure.getMessage());
            return FAILED;
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            err.println("bayeux load: interrupted");
            return FAILED;
        }
        try {
            Path written = write(result.toMap(), options.output);
            out.println(summary(result));
            out.println("Result: " + written.resolve("result.json") + "  Report: " + written.resolve("report.html"));
        } catch (IOException failure) {
            err.println("bayeux load: cannot write the result to " + options.output + ": " + failure.getMessage());
            return FAILED;
        }
        return result.complete() ? COMPLETE : INCOMPLETE;
    }

    /**
     * {@code --outage}: the recovery run, its result.json, report.html and summary; complete means 100 % recovered,
     * in order.
     */
    private static int outage(LoadOptions options, PrintStream out, PrintStream err) {
        Map<String, Object> result;
        try {
            result = new OutageRun(options, err).run();
        } catch (LoadRun.LoadFailure failure) {
            err.println("bayeux load: " + failure.getMessage());
            return FAILED;
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            err.println("bayeux load: interrupted");
            return FAILED;
        }
        try {
            Path written = write(result, options.output);
            out.println(OutageRun.summary(result));
            out.println("Result: " + written.resolve("result.json") + "  Report: " + written.resolve("report.html"));
        } catch (IOException failure) {
            err.println("bayeux load: cannot write the result to " + options.output + ": " + failure.getMessage());
            return FAILED;
        }
        return Boolean.TRUE.equals(result.get("complete")) ? COMPLETE : INCOMPLETE;
    }

    /** @return the factory of the clients {@code --client} asks for */
    static ClientFactory factory(LoadOptions options) {
        return switch (options.client) {
            case OURS -> new JavaClientFactory(options);
            case RAW -> new RawClientFactory(options);
            case COMETD -> new CometDClientFactory(options);
        };
    }

    /**
     * @return null when the limit is enough, else what to do about it
     */
    static String checkDescriptors(LoadOptions options, OptionalLong limit) {
        if (limit.isEmpty()) {
            return null;
        }
        // A long-polling client may have its held connect and a publish open at once.
        long perClient = options.transport == LoadOptions.TransportMix.WEBSOCKET ? 1 : 2;
        long needed = options.clients * perClient + SPARE_DESCRIPTORS;
        if (limit.getAsLong() >= needed) {
            return null;
        }
        return options.clients + " clients need about " + needed + " file descriptors, but this process may open "
                + limit.getAsLong() + ". Raise the limit (for example 'ulimit -n " + needed + "' in the shell that "
                + "runs it, or LimitNOFILE for a service; bin/bayeux already raises it to the hard limit, 'ulimit -Hn', "
                + "beyond which only root with CAP_SYS_RESOURCE can go) or run fewer clients; see docs/benchmarks.md.";
    }

    /** @return the soft limit of open files of this process, when the platform tells */
    static OptionalLong openFileLimit() {
        Path limits = Path.of("/proc/self/limits");
        try {
            for (String line : Files.readAllLines(limits, StandardCharsets.UTF_8)) {
                if (line.startsWith("Max open files")) {
                    String soft = line.substring("Max open files".length()).trim().split("\\s+")[0];
                    return "unlimited".equals(soft) ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(soft));
                }
            }
        } catch (IOException | RuntimeException unknown) {
            // Not Linux, or unreadable: no check.
        }
        return OptionalLong.empty();
    }

    static Path write(Map<String, Object> result, Path directory) throws IOException {
        Files.createDirectories(directory);
        ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        Files.writeString(directory.resolve("result.json"), json.writeValueAsString(result), StandardCharsets.UTF_8);
        Files.writeString(directory.resolve("report.html"), HtmlReport.render(result), StandardCharsets.UTF_8);
        return directory;
    }

    static String summary(LoadResult result) {
        double serverCpu = result.serverLoadCpuSeconds();
        return String.format(java.util.Locale.ROOT,
                "%s (%s client): p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, max %.2f ms; "
                        + "delivered %,d of %,d expected, lost %,d, duplicated %,d; published %,d, refused by the client "
                        + "%,d; errors %,d; "
                        + "client CPU %.0f%% of a core, GC %d ms%s",
                result.options().label(), result.options().client, result.percentileMillis(50),
                result.percentileMillis(90),
                result.percentileMillis(99), result.percentileMillis(99.9),
                LatencyRecorder.millis(result.latencyMicros().getMaxValue()), result.delivered(), result.expected(),
                result.lost(), result.duplicated(), result.published(), result.refused(), result.errors(),
                result.client().cpuPercentOfOneCore(),
                result.client().gcMillis(), Double.isNaN(serverCpu) ? ""
                        : String.format(java.util.Locale.ROOT, "; server CPU from the first publish on %.1f s",
                                serverCpu))
                + (result.byNode() ? nodeSummary(result) : "");
    }

    /** Same-node and cross-node latency, on a line of their own: what the cluster adds is their difference. */
    private static String nodeSummary(LoadResult result) {
        return String.format(java.util.Locale.ROOT, "%n  same-node (%,d deliveries): p50 %.2f ms, p99 %.2f ms, "
                        + "max %.2f ms%n  cross-node (%,d deliveries): p50 %.2f ms, p99 %.2f ms, max %.2f ms%n"
                        + "  cross-node p99 minus same-node p99: %.2f ms",
                result.sameNodeMicros().getTotalCount(), LoadResult.percentileMillis(result.sameNodeMicros(), 50),
                LoadResult.percentileMillis(result.sameNodeMicros(), 99),
                LatencyRecorder.millis(result.sameNodeMicros().getMaxValue()),
                result.crossNodeMicros().getTotalCount(), LoadResult.percentileMillis(result.crossNodeMicros(), 50),
                LoadResult.percentileMillis(result.crossNodeMicros(), 99),
                LatencyRecorder.millis(result.crossNodeMicros().getMaxValue()),
                LoadResult.percentileMillis(result.crossNodeMicros(), 99)
                        - LoadResult.percentileMillis(result.sameNodeMicros(), 99));
    }
}
