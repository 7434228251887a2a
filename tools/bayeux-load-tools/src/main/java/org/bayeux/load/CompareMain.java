package org.bayeux.load;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import org.bayeux.load.report.CompareReport;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Unmatched;

/**
 * {@code bin/bayeux load compare}: runs the same load against our load server and against CometD's, alternately
 * (A B A B …), each server a fresh process started with the same JVM options, and prints each round and the ratios
 * of the medians over the rounds. The first options are the comparison's own; every other option goes to each load
 * run (except {@code --url} and {@code --output}, which it sets).
 */
public final class CompareMain {
    /** The servers, in the order each round runs them. */
    static final List<String> SERVERS = List.of("bayeux", "cometd");
    /** With {@code --floor}: the floor server first in each round, then the same. */
    static final List<String> SERVERS_WITH_FLOOR = List.of("floor", "bayeux", "cometd");
    private static final long START_LIMIT_SECONDS = 60;

    private CompareMain() {
    }

    /**
     * @param args {@code [--rounds N] [--floor] [--server-java-opts "..."] [--output DIR] [load options]}
     */
    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        CompareOptions options = new CompareOptions();
        CommandLine command = options.parser();
        try {
            command.parseArgs(args);
        } catch (CommandLine.ParameterException bad) {
            return usage(err, bad.getMessage());
        }
        if (command.isUsageHelpRequested()) {
            command.usage(out);
            return LoadMain.COMPLETE;
        }
        if (options.url != null) {
            return usage(err, "--url is set by the comparison: it starts each server itself");
        }
        int rounds = options.rounds;
        String serverJavaOpts = options.serverJavaOpts;
        Path output = options.output;
        List<String> loadArgs = options.loadArgs;
        boolean withFloor = options.floor;
        boolean withCometD = !options.withoutCometD;
        if (rounds < 1 || rounds > 20) {
            return usage(err, "--rounds must be 1..20, got " + rounds);
        }
        if (!withCometD && !withFloor) {
            return usage(err, "--without-cometd needs --floor: there would be nothing to compare ours with");
        }
        List<String> servers = new ArrayList<>(withFloor ? SERVERS_WITH_FLOOR : SERVERS);
        if (!withCometD) {
            servers.remove("cometd");
        }
        Map<String, List<Map<String, Object>>> results = new LinkedHashMap<>();
        servers.forEach(server -> results.put(server, new ArrayList<>()));
        boolean complete = true;
        for (int round = 1; round <= rounds; round++) {
            for (String server : servers) {
                Path runOutput = output.resolve("round-" + round).resolve(server);
                err.printf("== round %d of %d: %s%n", round, rounds, server);
                int exit;
                try (ServerProcess process = ServerProcess.start(server, serverJavaOpts, runOutput)) {
                    List<String> runArgs = new ArrayList<>(loadArgs);
                    runArgs.addAll(List.of("--url", process.url, "--output", runOutput.toString(), "--label",
                            server + " round " + round));
                    exit = LoadMain.run(runArgs.toArray(String[]::new), out, err);
                } catch (IOException | InterruptedException failure) {
                    if (failure instanceof InterruptedException) {
                        Thread.currentThread().interrupt();
                    }
                    err.println("bayeux load compare: could not run " + server + ": " + failure.getMessage());
                    return LoadMain.FAILED;
                }
                if (exit == LoadMain.USAGE || exit == LoadMain.FAILED) {
                    return exit;
                }
                complete &= exit == LoadMain.COMPLETE;
                try {
                    results.get(server).add(read(runOutput.resolve("result.json")));
                } catch (IOException failure) {
                    err.println("bayeux load compare: no result for " + server + ": " + failure.getMessage());
                    return LoadMain.FAILED;
                }
            }
        }
        Map<String, Object> comparison = compare(results);
        out.println(table(results, comparison));
        try {
            Files.createDirectories(output);
            Files.writeString(output.resolve("comparison.json"), new ObjectMapper()
                    .enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(comparison));
            Files.writeString(output.resolve("comparison.html"), CompareReport.render(results, comparison));
        } catch (IOException failure) {
            err.println("bayeux load compare: cannot write the comparison in " + output + ": "
                    + failure.getMessage());
            return LoadMain.FAILED;
        }
        return complete ? LoadMain.COMPLETE : LoadMain.INCOMPLETE;
    }

    /**
     * The median of each figure over the rounds, per server, CometD's median over ours, and, with the floor server,
     * each server's median over the floor's.
     */
    @SuppressWarnings("unchecked")
    static Map<String, Object> compare(Map<String, List<Map<String, Object>>> results) {
        Map<String, Object> comparison = new LinkedHashMap<>();
        Map<String, Map<String, Double>> medians = new LinkedHashMap<>();
        for (Map.Entry<String, List<Map<String, Object>>> server : results.entrySet()) {
            Map<String, Double> figures = new LinkedHashMap<>();
            for (String figure : List.of("p50", "p99", "p99.9", "max")) {
                figures.put(figure, median(server.getValue().stream()
                        .mapToDouble(result -> ((Number) ((Map<String, Object>) result.get("latency")).get(figure))
                                .doubleValue()).toArray()));
            }
            double[] cpu = server.getValue().stream()
                    .map(result -> (Map<String, Object>) result.get("serverAfter"))
                    .filter(stats -> stats != null && stats.get("processCpuSeconds") instanceof Number)
                    .mapToDouble(stats -> ((Number) stats.get("processCpuSeconds")).doubleValue()).toArray();
            if (cpu.length > 0) {
                figures.put("serverCpuSeconds", median(cpu));
            }
            double[] loadCpu = server.getValue().stream()
                    .filter(result -> result.get("serverLoadCpuSeconds") instanceof Number)
                    .mapToDouble(result -> ((Number) result.get("serverLoadCpuSeconds")).doubleValue()).toArray();
            if (loadCpu.length > 0) {
                figures.put("serverLoadCpuSeconds", median(loadCpu));
            }
            figures.put("lost", median(server.getValue().stream()
                    .mapToDouble(result -> ((Number) ((Map<String, Object>) result.get("messages")).get("lost"))
                            .doubleValue()).toArray()));
            double[] heap = server.getValue().stream().filter(result -> result.get("serverHeapBytesPerClient") != null)
                    .mapToDouble(result -> ((Number) result.get("serverHeapBytesPerClient")).doubleValue()).toArray();
            if (heap.length > 0) {
                figures.put("serverHeapBytesPerClient", median(heap));
            }
            medians.put(server.getKey(), figures);
        }
        comparison.put("medians", medians);
        Map<String, Double> ratios = new LinkedHashMap<>();
        Map<String, Double> ours = medians.get("bayeux");
        Map<String, Double> theirs = medians.get("cometd");
        for (String figure : theirs == null ? List.<String>of() : ours.keySet()) {
            Double a = ours.get(figure);
            Double b = theirs.get(figure);
            if (a != null && b != null && a > 0 && !"lost".equals(figure)) {
                ratios.put("cometd/bayeux " + figure, Math.round(b / a * 100) / 100.0);
            }
        }
        Map<String, Double> floor = medians.get("floor");
        if (floor != null) {
            for (String server : List.of("bayeux", "cometd")) {
                if (!medians.containsKey(server)) {
                    continue;
                }
                for (String figure : floor.keySet()) {
                    Double a = floor.get(figure);
                    Double b = medians.get(server).get(figure);
                    if (a != null && b != null && a > 0 && !"lost".equals(figure)) {
                        ratios.put(server + "/floor " + figure, Math.round(b / a * 100) / 100.0);
                    }
                }
            }
        }
        comparison.put("ratios", ratios);
        comparison.put("rounds", results);
        return comparison;
    }

    static double median(double[] values) {
        if (values.length == 0) {
            return Double.NaN;
        }
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    @SuppressWarnings("unchecked")
    private static String table(Map<String, List<Map<String, Object>>> results, Map<String, Object> comparison) {
        StringBuilder text = new StringBuilder("\nserver  round   p50 ms   p99 ms  p99.9 ms   max ms      lost\n");
        for (Map.Entry<String, List<Map<String, Object>>> server : results.entrySet()) {
            int round = 1;
            for (Map<String, Object> result : server.getValue()) {
                Map<String, Object> latency = (Map<String, Object>) result.get("latency");
                Map<String, Object> messages = (Map<String, Object>) result.get("messages");
                text.append(String.format(Locale.ROOT, "%-7s %5d %8.2f %8.2f %9.2f %8.2f %9d%n", server.getKey(),
                        round++, num(latency.get("p50")), num(latency.get("p99")), num(latency.get("p99.9")),
                        num(latency.get("max")), ((Number) messages.get("lost")).longValue()));
            }
        }
        text.append("\nmedians: ").append(comparison.get("medians")).append('\n');
        text.append("ratios (cometd/bayeux above 1: ours is lower, i.e. better; <server>/floor: times the "
                + "floor's): ").append(comparison.get("ratios")).append('\n');
        return text.toString();
    }

    private static double num(Object value) {
        return ((Number) value).doubleValue();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> read(Path json) throws IOException {
        return new ObjectMapper().readValue(json.toFile(), Map.class);
    }

    private static int usage(PrintStream err, String problem) {
        err.println("bayeux load compare: " + problem);
        err.print(new CompareOptions().parser().getUsageMessage());
        return LoadMain.USAGE;
    }

    /**
     * The comparison's own options, declared for picocli as {@link LoadOptions} are; every other argument is kept, in
     * order, for the load runs.
     */
    @Command(name = "bin/bayeux load compare", sortOptions = false, usageHelpWidth = 110, separator = " ",
            customSynopsis = "Usage: bin/bayeux load compare [--rounds N] [--floor [--without-cometd]] "
                    + "[--server-java-opts OPTS] [--output DIR] [load options]",
            description = {"Runs the load against our load server and CometD's, alternately, N rounds, each server a "
                + "fresh process with OPTS on 127.0.0.1, and prints the ratios of the medians.",
                "Load options: see bin/bayeux load --help (--url and --output are set per run)."})
    static final class CompareOptions {
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "Print this help and exit.")
        boolean help;

        @Option(names = "--rounds", paramLabel = "N", description = "Rounds, 1 to 20 (default ${DEFAULT-VALUE}).")
        int rounds = 3;

        @Option(names = "--floor", description = "The floor server (bin/bayeux load-server --floor) first in every "
                + "round, and each server's medians over the floor's (use a client that is not ours, e.g. "
                + "--client raw).")
        boolean floor;

        @Option(names = "--without-cometd", description = "With --floor: the floor and ours only.")
        boolean withoutCometD;

        @Option(names = "--server-java-opts", paramLabel = "OPTS",
                description = "JVM options of each server process (default: $JAVA_OPTS).")
        String serverJavaOpts = System.getenv().getOrDefault("JAVA_OPTS", "");

        @Option(names = "--output", paramLabel = "DIR",
                description = "Where each run's result and comparison.json and comparison.html go (default ${DEFAULT-VALUE}).")
        Path output = Path.of("target", "load-compare");

        /** Refused: the comparison sets each run's URL itself. */
        @Option(names = "--url", hidden = true)
        String url;

        @Unmatched
        List<String> loadArgs = new ArrayList<>();

        /** @return a parser: a later option wins, as for the load itself; other options go to the load runs */
        CommandLine parser() {
            return new CommandLine(this).setOverwrittenOptionsAllowed(true)
                    .setPosixClusteredShortOptionsAllowed(false);
        }
    }

    /** A load server in a process of its own, started with this JVM's class path and stopped by its PID. */
    static final class ServerProcess implements AutoCloseable {
        final String url;
        private final Process process;

        private ServerProcess(Process process, String url) {
            this.process = process;
            this.url = url;
        }

        static ServerProcess start(String server, String javaOpts, Path logDirectory)
                throws IOException, InterruptedException {
            List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            for (String option : javaOpts.trim().split("\\s+")) {
                if (!option.isEmpty()) {
                    command.add(option);
                }
            }
            // The class path holds several apps' logback.xml: name the load tools' own.
            command.add("-Dlogback.configurationFile=logback-load.xml");
            command.addAll(List.of("-cp", System.getProperty("java.class.path")));
            if ("cometd".equals(server)) {
                command.addAll(List.of("org.bayeux.load.server.CometDLoadServer", "--port", "0"));
            } else if ("floor".equals(server)) {
                command.addAll(List.of("org.bayeux.load.server.FloorServer", "--port", "0", "--host", "127.0.0.1"));
            } else {
                command.addAll(List.of("org.bayeux.load.server.LoadServer", "--port", "0", "--host", "127.0.0.1"));
            }
            Files.createDirectories(logDirectory);
            Process process = new ProcessBuilder(command)
                    .redirectError(logDirectory.resolve("server.log").toFile())
                    .start();
            CompletableFuture<String> ready = CompletableFuture.supplyAsync(() -> readyUrl(process));
            try {
                String url = ready.get(START_LIMIT_SECONDS, TimeUnit.SECONDS);
                if (url == null) {
                    throw new IOException(server + " server exited before it was ready; see "
                            + logDirectory.resolve("server.log"));
                }
                return new ServerProcess(process, url);
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException failure) {
                process.destroyForcibly();
                throw new IOException(server + " server not ready within " + START_LIMIT_SECONDS + "s; see "
                        + logDirectory.resolve("server.log"), failure);
            }
        }

        /** @return the URL on the server's ready line, or null if its output ended first */
        private static String readyUrl(Process process) {
            try {
                BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(),
                        StandardCharsets.UTF_8));
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    int url = line.indexOf("http://");
                    if (line.contains("READY") && url >= 0) {
                        // Keep the pipe drained so the server never blocks on its standard output.
                        Thread drain = new Thread(() -> lines.lines().forEach(ignored -> { }), "server-stdout");
                        drain.setDaemon(true);
                        drain.start();
                        return line.substring(url).trim();
                    }
                }
                return null;
            } catch (IOException failure) {
                return null;
            }
        }

        @Override
        public void close() throws InterruptedException {
            process.destroy();
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
