package org.bayeux.backplane.redis;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.bayeux.server.config.ConfigOption;
import org.bayeux.server.config.ConfigOptions;
import org.bayeux.server.config.InvalidConfigurationException;
import org.bayeux.server.config.TypedConfig;

/**
 * The Redis backplane's settings, in the engine's one shape of configuration: typed options, each validated as it is
 * set, and text settings ({@link #fromMap}) that fail with an {@link InvalidConfigurationException} naming the key and
 * the value.
 */
public final class RedisBackplaneConfig extends TypedConfig {
    /** Where Redis is. */
    public static final ConfigOption<String> URI = ConfigOption.text("redisUri", "redis://127.0.0.1:6379",
            RedisBackplaneConfig::isRedisUri, "a redis:// or rediss:// URI",
            "The Redis server the backplane stores and reads messages on.");
    /** The key prefix, so that several applications can share one Redis. */
    public static final ConfigOption<String> KEY_PREFIX = ConfigOption.text("keyPrefix", "bayeux",
            prefix -> !prefix.isEmpty() && prefix.chars().noneMatch(c -> c == '{' || c == '}' || c <= ' '),
            "a non-empty word without braces or spaces",
            "The first part of every key the backplane writes (`<keyPrefix>:fanout:{<n>}`, see docs/cluster.md).");
    /** How many fan-out streams the channels are spread over. */
    public static final ConfigOption<Integer> SHARDS = ConfigOption.integer("shards", 16,
            n -> n >= 1 && n <= 1024, "an integer from 1 to 1024",
            "How many fan-out streams the channels are spread over (by a hash of the channel name); every node reads "
                    + "all of them. Every node of a cluster must use the same number.");
    /** How long a fan-out stream may grow. */
    public static final ConfigOption<Integer> STREAM_MAX_LENGTH = ConfigOption.integer("streamMaxLength", 100_000,
            n -> n >= 100, "an integer of at least 100",
            "About how many messages each fan-out stream keeps (XADD MAXLEN ~): enough to cover the longest Redis "
                    + "disconnect a node must resume from at the highest publish rate.");
    /** How long one Redis operation may take. */
    public static final ConfigOption<Duration> OPERATION_TIMEOUT = ConfigOption.duration("operationTimeout",
            Duration.ofSeconds(2), d -> d.compareTo(Duration.ofMillis(10)) >= 0 && d.compareTo(Duration.ofMinutes(1)) <= 0,
            "a duration from 10ms to 1m",
            "How long a publish waits for Redis to store it before it fails; also the connect timeout.");
    /** How many messages one read takes. */
    public static final ConfigOption<Integer> READ_BATCH = ConfigOption.integer("readBatch", 256,
            n -> n >= 1 && n <= 10_000, "an integer from 1 to 10000",
            "The most messages one read (XREAD COUNT) takes from each fan-out stream.");
    /** How long one read waits for messages. */
    public static final ConfigOption<Duration> READ_BLOCK = ConfigOption.duration("readBlock", Duration.ofMillis(500),
            d -> d.compareTo(Duration.ofMillis(10)) >= 0 && d.compareTo(Duration.ofSeconds(10)) <= 0,
            "a duration from 10ms to 10s",
            "How long one read (XREAD BLOCK) waits when nothing is new; bounds how long stopping a node takes.");
    /** How many publishes may wait for Redis at once. */
    public static final ConfigOption<Integer> MAX_PENDING_PUBLISHES = ConfigOption.integer("maxPendingPublishes",
            10_000, n -> n >= 1, "an integer of at least 1",
            "The most publishes of this node waiting for Redis at once; beyond it a publish fails at once.");

    /** How long a publish's idempotency key is remembered. */
    public static final ConfigOption<Duration> IDEMPOTENCY_WINDOW = ConfigOption.duration("idempotencyWindow",
            Duration.ofMinutes(5), d -> d.compareTo(Duration.ofSeconds(1)) >= 0 && d.compareTo(Duration.ofDays(1)) <= 0,
            "a duration from 1s to 1d",
            "How long Redis remembers a publish's idempotency key (ext.idempotencyKey): a retry with the same key "
                    + "on the same channel within it is acknowledged and not stored again.");

    /** Every option, in documentation order. */
    public static final List<ConfigOption<?>> OPTIONS = List.of(URI, KEY_PREFIX, SHARDS, STREAM_MAX_LENGTH,
            OPERATION_TIMEOUT, READ_BATCH, READ_BLOCK, MAX_PENDING_PUBLISHES, IDEMPOTENCY_WINDOW);

    private RedisBackplaneConfig(Map<ConfigOption<?>, Object> values) {
        super(OPTIONS, values);
    }

    private static boolean isRedisUri(String text) {
        String lower = text.toLowerCase(Locale.ROOT);
        return (lower.startsWith("redis://") && lower.length() > "redis://".length())
                || (lower.startsWith("rediss://") && lower.length() > "rediss://".length());
    }

    /** @return a configuration with every default */
    public static RedisBackplaneConfig defaults() {
        return builder().build();
    }

    /** @return a builder starting from the defaults */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * @param settings key to value; keys not in {@link #OPTIONS} are refused
     * @return the configuration
     * @throws InvalidConfigurationException for an unknown key or a bad value, naming both
     */
    public static RedisBackplaneConfig fromMap(Map<String, String> settings) {
        return new RedisBackplaneConfig(ConfigOptions.parse(OPTIONS, settings));
    }

    /** @return the table of {@link #OPTIONS} for {@code docs/cluster.md} */
    public static String markdownTable() {
        return ConfigOptions.markdownTable(OPTIONS);
    }

    /** @return {@link #URI} */
    public String uri() {
        return get(URI);
    }

    /** @return {@link #KEY_PREFIX} */
    public String keyPrefix() {
        return get(KEY_PREFIX);
    }

    /** @return {@link #SHARDS} */
    public int shards() {
        return get(SHARDS);
    }

    /** @return {@link #STREAM_MAX_LENGTH} */
    public int streamMaxLength() {
        return get(STREAM_MAX_LENGTH);
    }

    /** @return {@link #OPERATION_TIMEOUT} */
    public Duration operationTimeout() {
        return get(OPERATION_TIMEOUT);
    }

    /** @return {@link #READ_BATCH} */
    public int readBatch() {
        return get(READ_BATCH);
    }

    /** @return {@link #READ_BLOCK} */
    public Duration readBlock() {
        return get(READ_BLOCK);
    }

    /** @return {@link #MAX_PENDING_PUBLISHES} */
    public int maxPendingPublishes() {
        return get(MAX_PENDING_PUBLISHES);
    }

    /** @return {@link #IDEMPOTENCY_WINDOW} */
    public Duration idempotencyWindow() {
        return get(IDEMPOTENCY_WINDOW);
    }

    /** Collects values over the defaults, each validated as it is set. */
    public static final class Builder extends TypedConfig.Builder<Builder> {
        private Builder() {
            super(OPTIONS);
        }

        /**
         * @param uri {@link #URI}
         * @return this builder
         */
        public Builder uri(String uri) {
            return set(URI, uri);
        }

        /**
         * @param maxLength {@link #STREAM_MAX_LENGTH}
         * @return this builder
         */
        public Builder streamMaxLength(int maxLength) {
            return set(STREAM_MAX_LENGTH, maxLength);
        }

        /**
         * @param timeout {@link #OPERATION_TIMEOUT}
         * @return this builder
         */
        public Builder operationTimeout(Duration timeout) {
            return set(OPERATION_TIMEOUT, timeout);
        }

        /**
         * @param window {@link #IDEMPOTENCY_WINDOW}
         * @return this builder
         */
        public Builder idempotencyWindow(Duration window) {
            return set(IDEMPOTENCY_WINDOW, window);
        }

        /** @return the configuration */
        public RedisBackplaneConfig build() {
            return new RedisBackplaneConfig(values());
        }
    }
}
