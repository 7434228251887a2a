package org.bayeux.standalone;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.bayeux.server.config.ConfigOption;
import org.bayeux.server.config.ConfigOptions;
import org.bayeux.server.config.InvalidConfigurationException;
import org.bayeux.server.config.TypedConfig;

/**
 * The standalone server's own keys, set like the engine's ({@code --set}, {@code --config}, {@code BAYEUX_…}): how it
 * drains on SIGTERM or {@link StandaloneServer#stop()}. Documented in {@code docs/configuration.md} from
 * {@link #OPTIONS}.
 */
public final class ShutdownSettings extends TypedConfig {
    /** The longest a graceful shutdown waits for clients to be handed off before it stops anyway. */
    public static final ConfigOption<Duration> DRAIN_TIMEOUT = ConfigOption.duration("drainTimeout",
            Duration.ofSeconds(20), d -> !d.isNegative() && d.compareTo(Duration.ofHours(1)) <= 0,
            "a duration from 0 to 1h",
            "On SIGTERM or stop: how long the node drains (GET /ready answers 503 draining, handshakes are refused, "
                    + "each client gets its queue and then handshake advice) before it stops with whatever sessions "
                    + "are left; 0 stops at once.");
    /** The interval advised to handshakes refused while draining. */
    public static final ConfigOption<Duration> DRAIN_RETRY_INTERVAL = ConfigOption.duration("drainRetryInterval",
            Duration.ofSeconds(1), d -> !d.isNegative() && d.compareTo(Duration.ofMinutes(1)) <= 0,
            "a duration from 0 to 1m",
            "While draining, a handshake is refused with 503::draining and advice to handshake again after this "
                    + "interval (to another node once the balancer has seen GET /ready fail).");

    /** Every option, in documentation order. */
    public static final List<ConfigOption<?>> OPTIONS = List.of(DRAIN_TIMEOUT, DRAIN_RETRY_INTERVAL);

    private ShutdownSettings(Map<ConfigOption<?>, Object> values) {
        super(OPTIONS, values);
    }

    /** @return the defaults */
    public static ShutdownSettings defaults() {
        return fromMap(Map.of());
    }

    /**
     * @param settings key to text value
     * @return the settings
     * @throws InvalidConfigurationException for an unknown key or a bad value
     */
    public static ShutdownSettings fromMap(Map<String, String> settings) {
        return new ShutdownSettings(ConfigOptions.parse(OPTIONS, settings));
    }

    /** @return the options as a Markdown table */
    public static String markdownTable() {
        return ConfigOptions.markdownTable(OPTIONS);
    }

    /** @return {@link #DRAIN_TIMEOUT} */
    public Duration drainTimeout() {
        return get(DRAIN_TIMEOUT);
    }

    /** @return {@link #DRAIN_RETRY_INTERVAL} */
    public Duration drainRetryInterval() {
        return get(DRAIN_RETRY_INTERVAL);
    }
}
