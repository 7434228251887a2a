package org.bayeux.standalone;

import java.util.List;
import java.util.Map;

import org.bayeux.server.config.ConfigOption;
import org.bayeux.server.config.ConfigOptions;
import org.bayeux.server.config.InvalidConfigurationException;
import org.bayeux.server.config.TypedConfig;

/**
 * The standalone server's operability keys (metrics, the admin port), given with {@code --set KEY=VALUE} like the
 * engine's and transports' keys and declared the same way; {@link #markdownTable()} is the table of
 * {@code docs/configuration.md}.
 */
public final class OperationsConfig extends TypedConfig {
    /** Whether meters are kept and served. */
    public static final ConfigOption<Boolean> METRICS_ENABLED = ConfigOption.bool("metrics.enabled", true,
            "Keeps Micrometer meters of the engine, transports, Jetty's thread pool and the JVM, served as Prometheus "
                    + "text at GET /metrics (and over JMX with metrics.jmx). false: no /metrics, no JMX beans.");
    /** Whether the meters are JMX beans too. */
    public static final ConfigOption<Boolean> METRICS_JMX = ConfigOption.bool("metrics.jmx", true,
            "With metrics.enabled, also registers every meter as a JMX bean under the domain org.bayeux.");
    /** The admin port. */
    public static final ConfigOption<Integer> ADMIN_PORT = ConfigOption.integer("admin.port", -1,
            n -> n >= -1 && n <= 65535, "-1, or a port number (0 picks a free one)",
            "-1 serves /metrics on the main port. A port: /metrics only there, on plain HTTP bound to admin.host, with "
                    + "/health/live and /health/ready (which the main port answers too).");
    /** The admin port's address. */
    public static final ConfigOption<String> ADMIN_HOST = ConfigOption.text("admin.host", "127.0.0.1",
            host -> !host.isBlank(), "an address or host name",
            "The address the admin port binds (default: this machine only).");

    /** The most connections open at once on the admin port. */
    public static final ConfigOption<Integer> ADMIN_MAX_CONNECTIONS = ConfigOption.integer("admin.maxConnections", 64,
            n -> n >= 1, "an integer of at least 1",
            "The most TCP connections open at once on the admin port; more wait in the OS backlog. A limit of its own, "
                    + "so that a full main port leaves the scrapers and health checks theirs. The admin port is also "
                    + "under --header-timeout and --min-data-rate, like the main port.");

    /** The shortest admin token accepted. */
    public static final int ADMIN_TOKEN_MIN_LENGTH = 32;
    /** The admin page's token; empty: no admin page. Its length is checked in {@link #fromMap}, never echoed. */
    public static final ConfigOption<String> ADMIN_TOKEN = ConfigOption.text("admin.token", "", token -> true,
            "empty, or at least " + ADMIN_TOKEN_MIN_LENGTH + " characters",
            "Empty: no admin page (/admin answers 404). A token: the admin page at /admin on the main port, whose "
                    + "sessions prove it at handshake to read /bayeux/admin/stats. Never logged; at least "
                    + ADMIN_TOKEN_MIN_LENGTH + " characters or the server refuses to start. Refused with --set (the "
                    + "command line is readable by every user of the machine): give admin.tokenFile, or "
                    + "BAYEUX_ADMIN_TOKEN, or a --config file the server user alone may read.");

    /** The file holding the admin page's token. */
    public static final ConfigOption<String> ADMIN_TOKEN_FILE = ConfigOption.text("admin.tokenFile", "",
            file -> true, "empty, or a file the server user alone may read",
            "A file whose one line is the admin token (see admin.token), read at start: the way to give the token, "
                    + "kept off the command line. Refused if its group or other users may read it (unless "
                    + "--allow-readable-secret-files). Not with admin.token.");

    /** Every option, in documentation order. */
    public static final List<ConfigOption<?>> OPTIONS = List.of(METRICS_ENABLED, METRICS_JMX, ADMIN_PORT, ADMIN_HOST,
            ADMIN_MAX_CONNECTIONS, ADMIN_TOKEN, ADMIN_TOKEN_FILE);

    /** The token read from {@link #ADMIN_TOKEN_FILE}, or null. */
    private final String fileToken;

    private OperationsConfig(Map<ConfigOption<?>, Object> values, String fileToken) {
        super(OPTIONS, values);
        this.fileToken = fileToken;
    }

    /** @return the defaults */
    public static OperationsConfig defaults() {
        return fromMap(Map.of());
    }

    /**
     * @param settings keys and values as text
     * @return the configuration, the token file (if any) read and refused unless the server user's alone
     * @throws org.bayeux.server.config.InvalidConfigurationException naming the key and the value
     */
    public static OperationsConfig fromMap(Map<String, String> settings) {
        return fromMap(settings, new SecretFiles(false));
    }

    /**
     * @param settings keys and values as text
     * @param secretFiles the rule the token file is read under
     * @return the configuration, the token file (if any) read
     * @throws org.bayeux.server.config.InvalidConfigurationException naming the key and the value
     * @throws IllegalArgumentException naming the token file, when it cannot be read or is not private
     */
    static OperationsConfig fromMap(Map<String, String> settings, SecretFiles secretFiles) {
        Map<ConfigOption<?>, Object> values = ConfigOptions.parse(OPTIONS, settings);
        String token = (String) values.get(ADMIN_TOKEN);
        String file = (String) values.get(ADMIN_TOKEN_FILE);
        String fileToken = null;
        if (!file.isBlank()) {
            if (!token.isBlank()) {
                throw new IllegalArgumentException("admin.token and admin.tokenFile: give one or the other (the "
                        + "file, to keep the token off the command line)");
            }
            fileToken = secretFiles.readLine(java.nio.file.Path.of(file.strip()), ADMIN_TOKEN_FILE.key());
            if (fileToken.length() < ADMIN_TOKEN_MIN_LENGTH) {
                throw new InvalidConfigurationException(ADMIN_TOKEN_FILE.key(), file, "a token of at least "
                        + ADMIN_TOKEN_MIN_LENGTH + " characters; it holds " + fileToken.length());
            }
        } else if (!token.isEmpty() && token.strip().length() < ADMIN_TOKEN_MIN_LENGTH) {
            // The value is a secret: the error names the key and the length, never the text.
            throw new InvalidConfigurationException(ADMIN_TOKEN.key(), "(hidden, " + token.strip().length()
                    + " characters)", "at least " + ADMIN_TOKEN_MIN_LENGTH + " characters");
        }
        return new OperationsConfig(values, fileToken);
    }

    /** @return the admin token (from admin.tokenFile or admin.token), stripped, or null when there is no admin page */
    public String adminToken() {
        if (fileToken != null) {
            return fileToken;
        }
        String token = get(ADMIN_TOKEN).strip();
        return token.isEmpty() ? null : token;
    }

    /** The values, with the admin token's replaced: a configuration may be logged, the token never. */
    @Override
    public String toString() {
        String text = super.toString();
        String token = get(ADMIN_TOKEN);
        return token.isEmpty() ? text : text.replace(ADMIN_TOKEN.key() + "=" + token, ADMIN_TOKEN.key() + "=(hidden)");
    }

    /** @return the options as a Markdown table */
    public static String markdownTable() {
        return ConfigOptions.markdownTable(OPTIONS);
    }
}
