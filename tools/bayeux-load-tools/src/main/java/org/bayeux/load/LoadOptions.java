package org.bayeux.load;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;

/**
 * What a load run does: how many clients, over which transport, in which rooms, publishing how fast, for how long.
 * Parsed from the command line by picocli; {@link #validate()} reports every inconsistency at once.
 */
@Command(name = "bayeux load", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
            "Simulates Bayeux clients against any Bayeux server and measures the latency from publish to each "
                    + "delivery (open loop: the publish schedule never waits for replies).",
            "Exit code: 0 when every expected delivery arrived once, 1 when messages were lost or duplicated, "
                    + "2 for a bad command line, 3 when the run could not be carried out."},
        footer = {"", "Durations take a unit: 500ms, 10s, 2m. Profiles of docs/benchmarks.md, for example:",
            "  bin/bayeux load --url http://127.0.0.1:8080/bayeux --clients 1000 --rooms 100 "
                    + "--rooms-per-client 10 --rate 1000 --size 50 --duration 60s"})
public final class LoadOptions {
    /** How the clients reach the server. */
    public enum TransportMix {
        /** Every client on WebSocket. */
        WEBSOCKET("websocket"),
        /** Every client on long-polling. */
        LONG_POLLING("long-polling"),
        /** Half of the clients on each, alternately. */
        MIX("mix");

        private final String label;

        TransportMix(String label) {
            this.label = label;
        }

        /**
         * @param client the client's index
         * @return the Bayeux transport name that client uses
         */
        public String transportOf(int client) {
            return switch (this) {
                case WEBSOCKET -> "websocket";
                case LONG_POLLING -> "long-polling";
                case MIX -> client % 2 == 0 ? "websocket" : "long-polling";
            };
        }

        @Override
        public String toString() {
            return label;
        }
    }

    /** Which client library the simulated clients are. */
    public enum ClientKind {
        /** Our Java client ({@code bayeux-client-java}). */
        OURS("ours"),
        /** The load tool's own protocol-only client on Jetty's core WebSocket client and HTTP client. */
        RAW("raw"),
        /** The CometD 8 Java client, from Maven Central. */
        COMETD("cometd");

        private final String label;

        ClientKind(String label) {
            this.label = label;
        }

        @Override
        public String toString() {
            return label;
        }
    }

    @Option(names = "--client", paramLabel = "C", converter = ClientConverter.class,
            description = "Which client simulates the clients: 'ours' (our Java client), 'raw' (a protocol-only "
                    + "client on Jetty's core WebSocket and HTTP clients: handshake, connect, subscribe, publish and "
                    + "the timing, nothing else; the lightest, and independent of our client) or 'cometd' (the "
                    + "CometD 8 Java client, with one --source-addresses only) (default: ${DEFAULT-VALUE}).")
    ClientKind client = ClientKind.OURS;

    @Option(names = "--url", paramLabel = "URL[,URL...]", split = ",",
            description = "The Bayeux endpoint, or the endpoints of several nodes of one cluster, comma-separated: "
                    + "client i connects to URL number i modulo their count (round robin), and the report splits "
                    + "latency into same-node and cross-node deliveries (default: http://127.0.0.1:8080/bayeux).")
    List<URI> urls = new ArrayList<>(List.of(URI.create("http://127.0.0.1:8080/bayeux")));

    /** @return the first endpoint (the only one, for a single node): the one whose statistics are asked for */
    URI url() {
        return urls.get(0);
    }

    /**
     * @param client a client's index
     * @return the index of the node (of {@link #urls}) the client connects to: round robin
     */
    int nodeOf(int client) {
        return client % urls.size();
    }

    /**
     * @param client a client's index
     * @return the endpoint the client connects to
     */
    URI urlOf(int client) {
        return urls.get(nodeOf(client));
    }

    @Option(names = "--transport", paramLabel = "T", converter = TransportConverter.class,
            description = "websocket, long-polling, or mix (alternate clients) (default: ${DEFAULT-VALUE}).")
    TransportMix transport = TransportMix.WEBSOCKET;

    @Option(names = "--clients", paramLabel = "N", description = "Simulated clients (default: ${DEFAULT-VALUE}).")
    int clients = 100;

    @Option(names = "--rooms", paramLabel = "R", description = "Rooms, each a channel /load/room/<i> "
            + "(default: ${DEFAULT-VALUE}).")
    int rooms = 10;

    @Option(names = "--rooms-per-client", paramLabel = "K", description = "Rooms each client joins, spread evenly "
            + "(default: ${DEFAULT-VALUE}).")
    int roomsPerClient = 1;

    @Option(names = "--rate", paramLabel = "MSG/S", description = "Total publish rate, messages per second, over all "
            + "publishers (default: ${DEFAULT-VALUE}).")
    int rate = 100;

    @Option(names = "--size", paramLabel = "BYTES", description = "Size of each message's data, in bytes of JSON "
            + "(at least 40, for the timestamp and id) (default: ${DEFAULT-VALUE}).")
    int sizeBytes = 50;

    @Option(names = "--batch", paramLabel = "B", description = "Messages a publisher sends together in one Bayeux "
            + "batch (default: ${DEFAULT-VALUE}).")
    int batch = 1;

    @Option(names = "--publishers", paramLabel = "P", description = "How many of the clients also publish, "
            + "round-robin over all rooms (default: ${DEFAULT-VALUE}).")
    int publishers = 10;

    @Option(names = "--ramp-up", paramLabel = "D", converter = DurationConverter.class,
            description = "Time over which the clients connect (default: ${DEFAULT-VALUE}).")
    Duration rampUp = Duration.ofSeconds(5);

    @Option(names = "--warm-up", paramLabel = "D", converter = DurationConverter.class,
            description = "Publishing before measuring: latencies of messages published then are not recorded "
                    + "(default: ${DEFAULT-VALUE}).")
    Duration warmUp = Duration.ofSeconds(5);

    @Option(names = "--duration", paramLabel = "D", converter = DurationConverter.class,
            description = "Measured publishing time, after the warm-up (default: ${DEFAULT-VALUE}).")
    Duration duration = Duration.ofSeconds(30);

    @Option(names = "--drain", paramLabel = "D", converter = DurationConverter.class,
            description = "How long to wait, after the last publish, for deliveries still under way; what has not "
                    + "arrived then counts as lost (default: ${DEFAULT-VALUE}).")
    Duration drain = Duration.ofSeconds(10);

    @Option(names = "--max-pending", paramLabel = "N", description = "The most publishes one publisher may have "
            + "waiting for the server's reply; beyond it the client refuses more at once (429::too_many_pending), "
            + "and they count as refused, not as expected (default: ${DEFAULT-VALUE}, the Java client's default). "
            + "--client ours only: the raw and CometD clients send every publish.")
    int maxPending = 1000;

    @Option(names = "--idle", description = "Idle-memory mode: connect the clients, publish nothing, and report the "
            + "server's heap after a full GC, per client (needs a load server).")
    boolean idle;

    @Option(names = "--outage", paramLabel = "D", converter = DurationConverter.class,
            description = "Recovery mode (--client ours only): the --clients subscribers reach their nodes through "
                    + "a TCP proxy of this tool's; --publishers extra clients connect directly and publish at --rate "
                    + "through --warm-up, then the outage, then --duration; at the end of the warm-up every "
                    + "subscriber's connection is reset and new ones refused for D; the report gives, per "
                    + "subscriber, the messages missed when it reconnected, how many were recovered, in order, "
                    + "duplicates, the 'recovered' flags, and the recovery time from its reconnection to the last "
                    + "missed message (result.json, and report.html with the outage shaded over time).")
    Duration outage;

    @Option(names = "--max-backoff", paramLabel = "D", converter = DurationConverter.class,
            description = "With --outage: the longest wait of a subscriber between two attempts to reconnect (our "
                    + "client's back-off starts at 500ms and doubles up to this; default: the client's, 30s).")
    Duration maxBackoff;

    @Option(names = "--source-addresses", paramLabel = "N", description = "Spread the clients' connections over "
            + "127.0.0.1 .. 127.0.0.N, each with its own ephemeral ports (loopback URLs only) "
            + "(default: ${DEFAULT-VALUE}).")
    int sourceAddresses = 1;

    @Option(names = "--threads", paramLabel = "T", description = "Client threads shared by all clients "
            + "(default: ${DEFAULT-VALUE}).")
    int threads = Math.max(4, Runtime.getRuntime().availableProcessors() * 2);

    @Option(names = "--output", paramLabel = "DIR", description = "Where result.json and report.html go "
            + "(default: ${DEFAULT-VALUE}).")
    Path output = Path.of("target", "load");

    @Option(names = "--label", paramLabel = "TEXT", description = "A name for this run in the report "
            + "(default: the URL).")
    String label;

    @Option(names = "--quiet", description = "No progress line.")
    boolean quiet;

    @Option(names = "--target", paramLabel = "NAME=LIMIT", description = "A target the report marks passed or "
            + "failed, repeatable: p50, p90, p99, p99.9 or max with a duration (p99=50ms), or lost, duplicated or "
            + "errors with a count (lost=0). Targets do not change the exit code.")
    List<String> targets = new ArrayList<>();

    /** @return the problems with these options, empty when they make a run */
    public List<String> validate() {
        List<String> problems = new ArrayList<>();
        if (urls.isEmpty()) {
            problems.add("--url needs at least one URL");
        }
        for (URI url : urls) {
            String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
            if (!scheme.equals("http") && !scheme.equals("https")) {
                problems.add("--url must be an http:// or https:// URL, got '" + url + "'");
            }
        }
        positive(problems, "--clients", clients);
        positive(problems, "--rooms", rooms);
        positive(problems, "--rooms-per-client", roomsPerClient);
        if (roomsPerClient > rooms) {
            problems.add("--rooms-per-client (" + roomsPerClient + ") cannot exceed --rooms (" + rooms + ")");
        }
        if (!idle) {
            positive(problems, "--rate", rate);
            positive(problems, "--batch", batch);
            positive(problems, "--publishers", publishers);
            // With --outage the publishers are extra clients; otherwise they are among the clients.
            if (outage == null && publishers > clients) {
                problems.add("--publishers (" + publishers + ") cannot exceed --clients (" + clients + ")");
            }
        }
        if (sizeBytes < Payload.MIN_BYTES) {
            problems.add("--size must be at least " + Payload.MIN_BYTES + " bytes, got " + sizeBytes);
        }
        positive(problems, "--threads", threads);
        if (sourceAddresses < 1 || sourceAddresses > 254) {
            problems.add("--source-addresses must be 1..254, got " + sourceAddresses);
        } else if (sourceAddresses > 1) {
            for (URI url : urls) {
                if (!"127.0.0.1".equals(url.getHost()) && !"localhost".equals(url.getHost())) {
                    problems.add("--source-addresses above 1 needs a loopback --url (127.0.0.1), got host '"
                            + url.getHost() + "'");
                }
            }
        }
        notNegative(problems, "--ramp-up", rampUp);
        notNegative(problems, "--warm-up", warmUp);
        notNegative(problems, "--drain", drain);
        if (maxPending < 1) {
            problems.add("--max-pending must be positive, got " + maxPending);
        }
        if (outage != null) {
            if (outage.isNegative() || outage.isZero()) {
                problems.add("--outage must be positive, got " + outage);
            }
            if (client != ClientKind.OURS) {
                problems.add("--outage needs --client ours (the recovery extension is ours), got " + client);
            }
            if (idle) {
                problems.add("--outage and --idle: give one or the other");
            }
            if (maxBackoff != null && maxBackoff.compareTo(Duration.ofMillis(500)) < 0) {
                problems.add("--max-backoff must be at least 500ms (the client's first back-off), got " + maxBackoff);
            }
            if (sourceAddresses > 1) {
                problems.add("--outage: --source-addresses is not supported (the clients reach the tool's proxy)");
            }
        }
        if (outage == null && maxBackoff != null) {
            problems.add("--max-backoff is for --outage runs");
        }
        for (String target : targets) {
            String problem = Targets.problem(target);
            if (problem != null) {
                problems.add(problem);
            }
        }
        if (duration.isNegative() || duration.isZero()) {
            problems.add("--duration must be positive, got " + duration);
        }
        return problems;
    }

    /** @return the run's name in reports */
    public String label() {
        if (label != null) {
            return label;
        }
        return urls.stream().map(URI::toString).collect(java.util.stream.Collectors.joining(","));
    }

    private static void positive(List<String> problems, String option, int value) {
        if (value <= 0) {
            problems.add(option + " must be positive, got " + value);
        }
    }

    private static void notNegative(List<String> problems, String option, Duration value) {
        if (value.isNegative()) {
            problems.add(option + " cannot be negative, got " + value);
        }
    }

    /** Parses {@code 500ms}, {@code 10s}, {@code 2m}, {@code 1h}, or an ISO-8601 duration. */
    public static final class DurationConverter implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            String text = value.trim().toLowerCase(Locale.ROOT);
            try {
                if (text.startsWith("p")) {
                    return Duration.parse(value.trim());
                }
                if (text.endsWith("ms")) {
                    return Duration.ofMillis(Long.parseLong(text.substring(0, text.length() - 2)));
                }
                long amount = Long.parseLong(text.substring(0, text.length() - 1));
                switch (text.charAt(text.length() - 1)) {
                    case 's':
                        return Duration.ofSeconds(amount);
                    case 'm':
                        return Duration.ofMinutes(amount);
                    case 'h':
                        return Duration.ofHours(amount);
                    default:
                        break;
                }
            } catch (RuntimeException malformed) {
                // reported below
            }
            throw new IllegalArgumentException("'" + value + "' is not a duration such as 500ms, 10s, 2m or 1h");
        }
    }

    /** Parses {@code ours}, {@code raw} or {@code cometd}. */
    public static final class ClientConverter implements ITypeConverter<ClientKind> {
        @Override
        public ClientKind convert(String value) {
            for (ClientKind kind : ClientKind.values()) {
                if (kind.label.equalsIgnoreCase(value)) {
                    return kind;
                }
            }
            throw new IllegalArgumentException("'" + value + "' is not ours, raw or cometd");
        }
    }

    /** Parses {@code websocket}, {@code long-polling} or {@code mix}. */
    public static final class TransportConverter implements ITypeConverter<TransportMix> {
        @Override
        public TransportMix convert(String value) {
            for (TransportMix mix : TransportMix.values()) {
                if (mix.label.equalsIgnoreCase(value)) {
                    return mix;
                }
            }
            throw new IllegalArgumentException("'" + value + "' is not websocket, long-polling or mix");
        }
    }
}
