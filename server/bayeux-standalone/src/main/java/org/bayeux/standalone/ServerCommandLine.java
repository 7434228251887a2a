package org.bayeux.standalone;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.bayeux.server.config.ConfigOption;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * The standalone server's command line, declared for picocli (as the load tools' are): each option's name, value
 * type, default and help text in one place. {@link StandaloneOptions#parse} turns it into validated options.
 *
 * <p>A later option wins over an earlier one ({@code bin/bayeux demo --port 9000} overrides the script's
 * {@code --port 8080}); {@code --set} adds up.</p>
 */
@Command(name = "bin/bayeux server", sortOptions = false, usageHelpWidth = 110, separator = " ",
        description = "The standalone server: the Bayeux endpoint at /bayeux and, optionally, static files at / "
                + "and application jars.",
        footer = {"", "The Bayeux endpoint is served at /bayeux. Once listening, prints one line on standard output:",
            "  Listening on http://HOST:PORT/ (Bayeux endpoint http://HOST:PORT/bayeux)",
            "with https when TLS is on, and localhost for HOST when bound to every interface.",
            "GET /health/ready (or /ready) answers 200 {\"ready\":true}, or 503 while starting, draining, shutting down or",
            "while the backplane cannot store publishes; GET /health/live 200; GET /metrics Prometheus text (metrics.* and",
            "admin.* keys with --set: docs/operations.md). SIGTERM drains (drainTimeout) before the process exits."})
final class ServerCommandLine {
    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Print this help and exit.")
    boolean help;

    @Option(names = "--port", paramLabel = "P", converter = PortConverter.class,
            description = "Port to listen on (default ${DEFAULT-VALUE}; 0 picks a free one).")
    int port = 8080;

    @Option(names = "--host", paramLabel = "H",
            description = "Address to bind (default ${DEFAULT-VALUE}, every interface).")
    String host = "0.0.0.0";

    @Option(names = "--static", paramLabel = "DIR", converter = FolderConverter.class,
            description = "Serve the files of DIR at /.")
    Path staticDir;

    @Option(names = "--classpath", paramLabel = "DIR_OR_JAR",
            description = "Load applications (org.bayeux.server.app.BayeuxApplication, listed in META-INF/services) "
                    + "from a jar, or from a folder's jars and classes; may be repeated, or separated with "
                    + "the path separator (:).")
    List<String> classPaths = new ArrayList<>();

    @Option(names = "--extensions", paramLabel = "E", split = ",",
            description = "Server extensions to install, comma-separated: ack, timesync, timestamp.")
    List<String> extensions = new ArrayList<>();

    @Option(names = "--backplane", paramLabel = "URI",
            description = "Join the other nodes that name the same Redis (redis://HOST:PORT, or a Redis Cluster: "
                    + "redis-cluster://HOST:PORT,HOST:PORT,...; a master behind Sentinel: "
                    + "redis-sentinel://HOST:PORT,HOST:PORT,.../MASTER-NAME; rediss:// and rediss-cluster:// for TLS): "
                    + "publishes "
                    + "are stored there and delivered on every node; its options (docs/cluster.md) go with --set.")
    String backplane;

    @Option(names = "--backplane-password-file", paramLabel = "FILE",
            description = "The Redis password, in a file only its owner may read (redisPasswordFile; the ACL user, "
                    + "if any, with --set redisUsername=USER).")
    String backplanePasswordFile;

    @Option(names = "--backplane-min-replicas", paramLabel = "N",
            description = "Acknowledge a publish only once N Redis replicas hold it (WAIT, one for the publishes "
                    + "sent together; else 503::backplane_unavailable), and deliver only replicated messages "
                    + "(minReplicas; default 0). For redis:// and redis-sentinel://HOST:PORT,.../MASTER-NAME.")
    String backplaneMinReplicas;

    @Option(names = "--oort-url", paramLabel = "URL",
            description = "Join an Oort cluster as this node, reached by the other nodes at URL "
                    + "(http://HOST:PORT/bayeux; port 0 stands for the port bound); needs --oort-secret-file. "
                    + "Its other keys (oort.*, docs/cluster.md) go with --set.")
    String oortUrl;

    @Option(names = "--oort-seeds", paramLabel = "URL[,URL...]", split = ",",
            description = "Oort: the nodes dialled at start (oort.seeds).")
    List<String> oortSeeds;

    @Option(names = "--oort-secret-file", paramLabel = "FILE",
            description = "Oort: a file holding the shared secret, at least 32 bytes, the same on every node "
                    + "(oort.secretFile).")
    String oortSecretFile;

    @Option(names = "--oort-channels", paramLabel = "GLOB[,GLOB...]", split = ",",
            description = "Oort: the channels forwarded between nodes (oort.channels; default /**).")
    List<String> oortChannels;

    @Option(names = "--config", paramLabel = "FILE",
            description = "Read keys from a properties file (KEY=VALUE lines, the keys of --set); BAYEUX_* environment "
                    + "variables override it (BAYEUX_MAX_QUEUE for maxQueue), --set and the flags override both.")
    Path configFile;

    @Option(names = "--set", paramLabel = "KEY=VALUE",
            description = "Set an engine, transport, backplane or Oort (oort.*) option (see docs/configuration.md and "
                    + "docs/cluster.md); may be repeated.")
    List<String> settings = new ArrayList<>();

    @Option(names = "--tls-keystore", paramLabel = "FILE", description = "TLS (HTTPS and WSS only; the browser "
            + "cookie is then marked Secure): a PKCS12 or JKS key store with the server's key and certificate chain.")
    Path tlsKeyStore;

    @Option(names = "--tls-password-file", paramLabel = "FILE",
            description = "A file whose first line is the key store's (and its key's) password.")
    Path tlsPasswordFile;

    @Option(names = "--tls-cert", paramLabel = "FILE",
            description = "Or PEM: the server's certificate, then its chain.")
    Path tlsCertificate;

    @Option(names = "--tls-key", paramLabel = "FILE",
            description = "With --tls-cert: the unencrypted PKCS#8 PEM private key ('BEGIN PRIVATE KEY').")
    Path tlsKey;

    @Option(names = SecretFiles.ALLOW_FLAG, description = "Accept secret files (admin.tokenFile, "
            + "oort.secretFile, --tls-password-file, --tls-key, a --config file setting admin.token) that the file's "
            + "group or other users may read or write, with a warning; without it the server refuses to start.")
    boolean allowReadableSecretFiles;

    @Option(names = "--forwarded", description = "Behind a proxy: take scheme, host and client address from "
            + "Forwarded / X-Forwarded-* headers; only behind a proxy that sets them, and with the port reachable by "
            + "it alone.")
    boolean forwarded;

    @Option(names = "--max-connections", paramLabel = "N", converter = ConnectionCountConverter.class,
            description = "The most open TCP connections; more wait in the OS backlog (default ${DEFAULT-VALUE}; 0 "
                    + "for no limit); keep it below the process's file limit (ulimit -n).")
    int maxConnections = 100_000;

    @Option(names = "--header-timeout", paramLabel = "D", converter = TimeoutConverter.class,
            description = "The time to complete a request's headers, from the connection's opening or the end of its "
                    + "previous request (default 20s; e.g. 500ms, 20s, 1m).")
    Duration headerTimeout = Duration.ofSeconds(20);

    @Option(names = "--min-data-rate", paramLabel = "N", converter = RateConverter.class,
            description = "The lowest average request body rate in bytes/s, measured from --header-timeout after the "
                    + "headers (default ${DEFAULT-VALUE}; 0 for none).")
    long minDataRate = 1024;

    /** @return a parser for this command line, letting a later option override an earlier one */
    CommandLine parser() {
        return new CommandLine(this).setOverwrittenOptionsAllowed(true);
    }

    /**
     * @param args the command line
     * @return the parsed command line
     * @throws IllegalArgumentException naming the bad option and value
     */
    static ServerCommandLine parse(String... args) {
        ServerCommandLine line = new ServerCommandLine();
        try {
            line.parser().parseArgs(args);
        } catch (CommandLine.ParameterException bad) {
            throw new IllegalArgumentException(describe(bad), bad);
        }
        return line;
    }

    /**
     * @param name a word such as {@code port}
     * @return true if {@code --name} is one of this command line's flags
     */
    static boolean isFlag(String name) {
        return new ServerCommandLine().parser().getCommandSpec().findOption("--" + name) != null;
    }

    /** @return the help text */
    static String usage() {
        return new ServerCommandLine().parser().getUsageMessage();
    }

    /** A value our converters refuse reads "--option value: the reason"; other errors keep picocli's words. */
    private static String describe(CommandLine.ParameterException bad) {
        if (bad.getCause() instanceof TypeConversionException && bad.getArgSpec() instanceof OptionSpec) {
            return ((OptionSpec) bad.getArgSpec()).longestName() + " " + bad.getValue() + ": "
                    + bad.getCause().getMessage();
        }
        return bad.getMessage();
    }

    private static long wholeNumber(String text, long max) {
        try {
            long value = Long.parseLong(text.trim());
            if (value >= 0 && value <= max) {
                return value;
            }
        } catch (NumberFormatException notANumber) {
            // reported below
        }
        throw new TypeConversionException("not a whole number from 0 to " + max);
    }

    /** @return every --classpath entry, in order: each value split at the path separator (as java's -cp) */
    List<Path> classPath() {
        List<Path> paths = new ArrayList<>();
        for (String value : classPaths) {
            for (String entry : value.split(java.util.regex.Pattern.quote(java.io.File.pathSeparator))) {
                if (!entry.isBlank()) {
                    paths.add(Path.of(entry.trim()));
                }
            }
        }
        return paths;
    }

    /** A port number, 0 to 65535. */
    static final class PortConverter implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String text) {
            try {
                int port = Integer.parseInt(text);
                if (port >= 0 && port <= 65535) {
                    return port;
                }
            } catch (NumberFormatException notANumber) {
                // reported below
            }
            throw new TypeConversionException("not a port number (0 to 65535)");
        }
    }

    /** An existing folder. */
    static final class FolderConverter implements ITypeConverter<Path> {
        @Override
        public Path convert(String text) {
            Path folder = Path.of(text);
            if (!Files.isDirectory(folder)) {
                throw new TypeConversionException("not a folder");
            }
            return folder;
        }
    }

    /** A count of connections: 0 to {@link Integer#MAX_VALUE}. */
    static final class ConnectionCountConverter implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String text) {
            return (int) wholeNumber(text, Integer.MAX_VALUE);
        }
    }

    /** A rate: 0 to {@link Long#MAX_VALUE}. */
    static final class RateConverter implements ITypeConverter<Long> {
        @Override
        public Long convert(String text) {
            return wholeNumber(text, Long.MAX_VALUE);
        }
    }

    /** A duration of at least 100ms, written as the configuration keys' durations are. */
    static final class TimeoutConverter implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String text) {
            Duration duration;
            try {
                duration = ConfigOption.parseDuration(text);
            } catch (RuntimeException bad) {
                throw new TypeConversionException("not a duration (e.g. 500ms, 20s, 1m)");
            }
            if (duration.compareTo(Duration.ofMillis(100)) < 0) {
                throw new TypeConversionException("must be at least 100ms");
            }
            return duration;
        }
    }
}
