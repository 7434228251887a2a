package org.bayeux.standalone;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.bayeux.backplane.redis.RedisBackplaneConfig;
import org.bayeux.oort.Oort;
import org.bayeux.oort.OortConfig;
import org.bayeux.oort.OortSettings;
import org.bayeux.server.config.BayeuxServerConfig;
import org.bayeux.server.config.ConfigOption;
import org.bayeux.server.config.InvalidConfigurationException;
import org.bayeux.transport.http.TransportConfig;

/**
 * The standalone server's command line, configuration file and environment, parsed and validated.
 */
public final class StandaloneOptions {
    int port = 8080;
    String host = "0.0.0.0";
    Path staticDir;
    /** The --classpath jars and folders, expanded (a folder's jars follow it). */
    java.util.List<Path> classPath = java.util.List.of();
    boolean help;
    java.util.List<String> extensions = new java.util.ArrayList<>();
    BayeuxServerConfig engineConfig;
    TransportConfig transportConfig;
    /** The Redis backplane's settings, or null for a single node. */
    RedisBackplaneConfig backplaneConfig;
    /** The Oort node's settings (checked, secret file read), or null for no Oort. */
    OortSettings oortSettings;
    boolean forwarded;
    int maxConnections = 100_000;
    Duration headerTimeout = Duration.ofSeconds(20);
    long minDataRate = 1024;
    /** The TLS key and chain, or null for plain HTTP. */
    TlsKeys tls;
    /** How the server drains when it stops. */
    ShutdownSettings shutdown = ShutdownSettings.defaults();
    /** Metrics, the admin port and the admin page. */
    OperationsConfig operations = OperationsConfig.defaults();
    /** Tests: a cluster to join when there is no backplane and no Oort (a fake dependency), or null. */
    org.bayeux.server.cluster.Cluster testCluster;
    /** Tests: called with the port once Jetty serves, before the node says it is ready, or null. */
    java.util.function.IntConsumer beforeReady;

    /**
     * @param args the command line; {@code --help} lists the options
     * @return the options
     * @throws IllegalArgumentException naming the bad argument
     */
    public static StandaloneOptions parse(String... args) {
        return parse(System.getenv(), args);
    }

    /**
     * @param env the environment, whose {@code BAYEUX_…} variables override the {@code --config} file
     * @param args the command line
     * @return the options
     * @throws IllegalArgumentException naming the bad argument, variable or file, its key and its value
     */
    public static StandaloneOptions parse(Map<String, String> env, String... args) {
        ServerCommandLine line = ServerCommandLine.parse(args);
        StandaloneOptions options = new StandaloneOptions();
        options.help = line.help;
        options.port = line.port;
        options.host = line.host;
        options.staticDir = line.staticDir;
        options.classPath = Applications.expand(line.classPath());
        for (String name : line.extensions) {
            String trimmed = name.trim();
            if (!trimmed.isEmpty()) {
                StandaloneServer.newExtension(trimmed);
                options.extensions.add(trimmed);
            }
        }
        Map<String, String> engineSettings = new LinkedHashMap<>();
        Map<String, String> transportSettings = new LinkedHashMap<>();
        Map<String, String> backplaneSettings = new LinkedHashMap<>();
        Map<String, String> oortSettings = new LinkedHashMap<>();
        Map<String, String> shutdownSettings = new LinkedHashMap<>();
        Map<String, String> operationsSettings = new LinkedHashMap<>();
        // Lowest first: the --config file, BAYEUX_* variables, --set; the flags below override them all.
        Map<String, ConfigSources.Setting> merged = ConfigSources.merge(line.configFile, env, line.settings);
        SecretFiles secretFiles = new SecretFiles(line.allowReadableSecretFiles);
        ConfigSources.Setting token = merged.get(OperationsConfig.ADMIN_TOKEN.key());
        if (line.configFile != null && token != null && token.origin().startsWith("--config ")) {
            secretFiles.checkPrivate(line.configFile, "--config", OperationsConfig.ADMIN_TOKEN.key());
        }
        String backplaneUri = line.backplane;
        ConfigSources.Setting uriSetting = merged.get(RedisBackplaneConfig.URI.key());
        if (uriSetting != null && !uriSetting.origin().equals("--set")) {
            // In a file or the environment the backplane's URI is a key like any other; --backplane wins.
            merged.remove(RedisBackplaneConfig.URI.key());
            backplaneUri = backplaneUri != null ? backplaneUri : uriSetting.value();
        }
        merged.forEach((key, setting) -> addSetting(key, setting, engineSettings, transportSettings,
                backplaneSettings, oortSettings, shutdownSettings, operationsSettings));
        // The flags are the --set keys' short forms; given both, the flag wins.
        putIfGiven(backplaneSettings, RedisBackplaneConfig.PASSWORD_FILE.key(), line.backplanePasswordFile);
        putIfGiven(backplaneSettings, RedisBackplaneConfig.MIN_REPLICAS.key(), line.backplaneMinReplicas);
        putIfGiven(oortSettings, OortConfig.URL.key(), line.oortUrl);
        putIfGiven(oortSettings, OortConfig.SEEDS.key(), line.oortSeeds == null ? null
                : String.join(",", line.oortSeeds));
        putIfGiven(oortSettings, OortSettings.SECRET_FILE.key(), line.oortSecretFile);
        putIfGiven(oortSettings, OortConfig.CHANNELS.key(), line.oortChannels == null ? null
                : String.join(",", line.oortChannels));
        Map<String, Path> tlsFiles = new LinkedHashMap<>();
        putIfGiven(tlsFiles, "--tls-keystore", line.tlsKeyStore);
        putIfGiven(tlsFiles, "--tls-password-file", line.tlsPasswordFile);
        putIfGiven(tlsFiles, "--tls-cert", line.tlsCertificate);
        putIfGiven(tlsFiles, "--tls-key", line.tlsKey);
        options.forwarded = line.forwarded;
        options.maxConnections = line.maxConnections;
        options.headerTimeout = line.headerTimeout;
        options.minDataRate = line.minDataRate;
        options.tls = tlsKeys(tlsFiles, secretFiles);
        try {
            options.engineConfig = BayeuxServerConfig.fromMap(engineSettings);
            options.transportConfig = TransportConfig.fromMap(transportSettings);
            options.backplaneConfig = backplaneConfig(backplaneUri, backplaneSettings);
            options.oortSettings = oortSettings(oortSettings, secretFiles);
            options.shutdown = ShutdownSettings.fromMap(shutdownSettings);
            options.operations = OperationsConfig.fromMap(operationsSettings, secretFiles);
        } catch (InvalidConfigurationException bad) {
            ConfigSources.Setting from = merged.get(bad.key());
            boolean named = from == null || from.origin().equals("--set");
            throw new IllegalArgumentException(bad.getMessage() + (named ? "" : " (set by " + from.origin() + ")"),
                    bad);
        }
        if (options.backplaneConfig != null && options.oortSettings != null) {
            throw new IllegalArgumentException("--backplane and --oort-url: give one or the other (a node joins "
                    + "one cluster: Oort or the Redis backplane)");
        }
        return options;
    }

    /** @return the checked Oort settings, or null when no oort.* key is given */
    private static OortSettings oortSettings(Map<String, String> settings, SecretFiles secretFiles) {
        if (settings.isEmpty()) {
            return null;
        }
        if (!settings.containsKey(OortConfig.URL.key())) {
            throw new IllegalArgumentException("--set " + settings.keySet().iterator().next()
                    + ": an Oort option, needs --oort-url (oort.url)");
        }
        String secretFile = settings.get(OortSettings.SECRET_FILE.key());
        if (secretFile != null && !secretFile.isBlank()) {
            secretFiles.checkPrivate(Path.of(secretFile.strip()), OortSettings.SECRET_FILE.key());
        }
        OortSettings parsed = OortSettings.fromMap(settings);
        parsed.toConfig(); // every rule now, and the secret file read, so that a bad value stops the start
        return parsed;
    }

    private static void putIfGiven(Map<String, String> settings, String key, String value) {
        if (value != null) {
            settings.put(key, value);
        }
    }

    private static void putIfGiven(Map<String, Path> files, String option, Path file) {
        if (file != null) {
            files.put(option, file);
        }
    }

    /**
     * @param port the port
     * @return these options with that port
     */
    public StandaloneOptions port(int port) {
        this.port = port;
        return this;
    }

    /**
     * @param host the address to bind
     * @return these options with that address
     */
    public StandaloneOptions host(String host) {
        this.host = host;
        return this;
    }

    /** A key store with its password file, or a PEM certificate with its key: one or the other, whole. */
    private static TlsKeys tlsKeys(Map<String, Path> files, SecretFiles secretFiles) {
        if (files.isEmpty()) {
            return null;
        }
        for (String secret : java.util.List.of("--tls-password-file", "--tls-key")) {
            if (files.containsKey(secret)) {
                secretFiles.checkPrivate(files.get(secret), secret);
            }
        }
        Path keyStore = files.get("--tls-keystore");
        Path passwordFile = files.get("--tls-password-file");
        Path certificate = files.get("--tls-cert");
        Path key = files.get("--tls-key");
        if (keyStore != null && (certificate != null || key != null)) {
            throw new IllegalArgumentException("--tls-keystore and --tls-cert/--tls-key: give one or the other");
        }
        if (keyStore != null || passwordFile != null && certificate == null && key == null) {
            if (keyStore == null) {
                throw new IllegalArgumentException("--tls-password-file " + passwordFile
                        + ": needs --tls-keystore");
            }
            if (passwordFile == null) {
                throw new IllegalArgumentException("--tls-keystore " + keyStore + ": needs --tls-password-file");
            }
            return TlsKeys.fromKeyStore(keyStore, TlsKeys.readPassword(passwordFile));
        }
        if (certificate == null || key == null) {
            throw new IllegalArgumentException(certificate == null ? "--tls-key " + key + ": needs --tls-cert"
                    : "--tls-cert " + certificate + ": needs --tls-key");
        }
        if (passwordFile != null) {
            throw new IllegalArgumentException("--tls-password-file " + passwordFile + ": not used with PEM files "
                    + "(the PEM key must be unencrypted)");
        }
        return TlsKeys.fromPem(certificate, key);
    }

    /** @return the backplane's settings with --backplane's URI, or null without --backplane */
    private static RedisBackplaneConfig backplaneConfig(String uri, Map<String, String> settings) {
        if (uri == null) {
            if (!settings.isEmpty()) {
                throw new IllegalArgumentException("--set " + settings.keySet().iterator().next()
                        + ": a backplane option, needs --backplane");
            }
            return null;
        }
        if (settings.containsKey(RedisBackplaneConfig.URI.key())) {
            throw new IllegalArgumentException("--set " + RedisBackplaneConfig.URI.key()
                    + ": give the URI with --backplane");
        }
        Map<String, String> all = new LinkedHashMap<>(settings);
        all.put(RedisBackplaneConfig.URI.key(), uri);
        RedisBackplaneConfig config;
        try {
            config = RedisBackplaneConfig.fromMap(all);
        } catch (InvalidConfigurationException bad) {
            if (RedisBackplaneConfig.URI.key().equals(bad.key())) {
                // The URI may hold a password: shown masked, here and in the cause's message.
                throw new IllegalArgumentException("--backplane " + RedisBackplaneConfig.maskedUri(uri)
                        + ": expected redis://HOST:PORT or redis-cluster://HOST:PORT,HOST:PORT,... (or "
                        + "redis-sentinel://HOST:PORT,HOST:PORT,.../MASTER-NAME) (" + bad.getMessage()
                        + ")");
            }
            throw bad;
        }
        config.checkCredentials(); // the password file read now, so that a bad one stops the start
        return config;
    }

    private static void addSetting(String key, ConfigSources.Setting setting, Map<String, String> engine,
            Map<String, String> transport, Map<String, String> backplane, Map<String, String> oort,
            Map<String, String> shutdown, Map<String, String> operations) {
        String value = setting.value();
        String origin = setting.origin().startsWith(ConfigSources.ENV_PREFIX) ? setting.origin() + " ("
                + key + ")" : setting.origin() + " " + key;
        if (key.equals(OperationsConfig.ADMIN_TOKEN.key()) && setting.origin().equals("--set")) {
            // As oort.secret: a command line is readable by every user of the machine (ps, /proc/PID/cmdline).
            throw new IllegalArgumentException(origin + ": give the token in a file, with --set "
                    + OperationsConfig.ADMIN_TOKEN_FILE.key() + "=FILE (or in the environment, "
                    + ConfigSources.envName(key) + ")");
        }
        if (isKey(BayeuxServerConfig.OPTIONS, key)) {
            engine.put(key, value);
        } else if (isKey(TransportConfig.OPTIONS, key)) {
            transport.put(key, value);
        } else if (isKey(RedisBackplaneConfig.OPTIONS, key)) {
            backplane.put(key, value);
        } else if (OortSettings.isKey(key)) {
            oort.put(key, value);
        } else if (isKey(ShutdownSettings.OPTIONS, key)) {
            shutdown.put(key, value);
        } else if (isKey(OperationsConfig.OPTIONS, key)) {
            operations.put(key, value);
        } else if (key.equals("redisPassword")) {
            // As for oort.secret: never on a command line, in a configuration file or in the environment.
            throw new IllegalArgumentException(origin + ": give the Redis password in a file, with "
                    + "--backplane-password-file FILE (redisPasswordFile)");
        } else if (key.equals("oort.secret")) {
            // Never on a command line, where other users of the machine can read it (ps), nor anywhere else
            // but the one file meant for it.
            throw new IllegalArgumentException(origin + ": give the secret in a file, with "
                    + "--oort-secret-file FILE (oort.secretFile)");
        } else if (!setting.origin().equals("--set") && ServerCommandLine.isFlag(key)) {
            throw new IllegalArgumentException(origin + ": not a key but the command-line flag --" + key
                    + ", given on the command line only");
        } else {
            throw new IllegalArgumentException(origin + ": unknown option; see docs/configuration.md and "
                    + "docs/cluster.md");
        }
    }

    private static boolean isKey(java.util.List<ConfigOption<?>> options, String key) {
        return options.stream().anyMatch(option -> option.key().equals(key));
    }
}
