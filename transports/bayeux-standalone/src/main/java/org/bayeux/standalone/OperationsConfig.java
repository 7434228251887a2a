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
                    + ADMIN_TOKEN_MIN_LENGTH + " characters or the server refuses to start.");

    /** Every option, in documentation order. */
    public static final List<ConfigOption<?>> OPTIONS = List.of(METRICS_ENABLED, METRICS_JMX, ADMIN_PORT, ADMIN_HOST,
            ADMIN_MAX_CONNECTIONS, ADMIN_TOKEN);

    private OperationsConfig(Map<ConfigOption<?>, Object> values) {
        super(OPTIONS, values);
    }

    /** @return the defaults */
    public static OperationsConfig defaults() {
        return fromMap(Map.of());
    }

    /**
     * @param settings keys and values as text
     * @return the configuration
     * @throws org.bayeux.server.config.InvalidConfigurationException naming the key and the value
     */
    public static OperationsConfig fromMap(Map<String, String> settings) {
        OperationsConfig config = new OperationsConfig(ConfigOptions.parse(OPTIONS, settings));
        String token = config.get(ADMIN_TOKEN);
        if (!token.isEmpty() && token.strip().length() < ADMIN_TOKEN_MIN_LENGTH) {
            // The value is a secret: the error names the key and the length, never the text.
            throw new InvalidConfigurationException(ADMIN_TOKEN.key(), "(hidden, " + token.strip().length()
                    + " characters)", "at least " + ADMIN_TOKEN_MIN_LENGTH + " characters");
        }
        return config;
    }

    /** @return the admin token, stripped, or null when there is no admin page */
    public String adminToken() {
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
