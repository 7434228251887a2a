package org.bayeux.server.config;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.bayeux.api.json.JsonCodec;

/**
 * The engine's configuration: immutable, typed, and validated when built. Every key is described by a
 * {@link ConfigOption} in {@link #OPTIONS}, which is also the source of the table in {@code docs/configuration.md}.
 *
 * <p>Build one with {@link #builder()}, or from text with {@link #fromMap(Map)}: an unknown key or a bad value fails
 * with an {@link InvalidConfigurationException} that names the key and the value.</p>
 */
public final class BayeuxServerConfig extends TypedConfig {
    /** What happens when a message arrives for a session whose queue holds {@code maxQueue} messages. */
    public enum MaxQueuePolicy {
        /** End the session: the client re-handshakes and knows it missed messages. */
        DISCONNECT,
        /** Drop the new message. */
        DROP_NEWEST,
        /** Drop the oldest queued message to make room. */
        DROP_OLDEST
    }

    /**
     * What an adopting node resumes a session without the {@code ack} extension from, since nothing tells what its
     * client received of the last reply its former node wrote.
     */
    public enum FailoverDelivery {
        /** Resume after the last reply written: that reply's messages are lost if it never arrived; no duplicate. */
        AT_MOST_ONCE,
        /** Resume before the last reply written: its messages come again if it arrived; no loss. */
        AT_LEAST_ONCE
    }

    private static final Duration ZERO = Duration.ZERO;

    /** How long a connect is held when nothing arrives. */
    public static final ConfigOption<Duration> TIMEOUT = ConfigOption.duration("timeout", Duration.ofSeconds(30),
            d -> d.compareTo(ZERO) > 0, "a duration above 0",
            "How long the server holds a /meta/connect when nothing is queued; advised to clients as advice.timeout.");
    /** The advised wait between connects. */
    public static final ConfigOption<Duration> INTERVAL = ConfigOption.duration("interval", ZERO,
            d -> !d.isNegative(), "a duration of 0 or more",
            "How long clients wait after a connect reply before the next connect; advice.interval.");
    /** How long a session survives without a connect. */
    public static final ConfigOption<Duration> MAX_INTERVAL = ConfigOption.duration("maxInterval",
            Duration.ofSeconds(10), d -> d.compareTo(ZERO) > 0, "a duration above 0",
            "How long a session survives with no connect held before it expires; advice.maxInterval.");
    /** The longest a lazy message may wait. */
    public static final ConfigOption<Duration> MAX_LAZY_TIMEOUT = ConfigOption.duration("maxLazyTimeout",
            Duration.ofSeconds(5), d -> !d.isNegative(), "a duration of 0 or more",
            "The longest a lazy message waits before delivery; caps every channel's lazy timeout.");
    /** How often expired sessions and unused channels are swept. */
    public static final ConfigOption<Duration> SWEEP_PERIOD = ConfigOption.duration("sweepPeriod",
            Duration.ofMillis(997), d -> d.compareTo(Duration.ofMillis(10)) >= 0, "a duration of at least 10ms",
            "How often expired sessions and unused non-persistent channels are removed.");
    /** The queue limit per session. */
    public static final ConfigOption<Integer> MAX_QUEUE = ConfigOption.integer("maxQueue", 10_000, n -> n >= 1,
            "an integer of at least 1",
            "The most messages a session's queue holds; beyond it MaxQueueListeners or maxQueuePolicy decide.");
    /** The queue limit per session, in bytes. */
    public static final ConfigOption<Integer> MAX_QUEUE_BYTES = ConfigOption.integer("maxQueueBytes",
            8 * 1024 * 1024, n -> n >= 1024, "an integer of at least 1024",
            "The most JSON bytes waiting for one session: its queue plus its socket's unwritten backlog; beyond it "
                    + "MaxQueueListeners or maxQueuePolicy decide. A message always goes when nothing waits.");
    /** What to do at the queue limit. */
    public static final ConfigOption<MaxQueuePolicy> MAX_QUEUE_POLICY = ConfigOption.choice("maxQueuePolicy",
            MaxQueuePolicy.class, MaxQueuePolicy.DISCONNECT,
            "What happens at maxQueue or maxQueueBytes when no MaxQueueListener decides: end the session, drop the new message, or "
                    + "drop the oldest.");
    /** Whether a publisher receives its own messages. */
    public static final ConfigOption<Boolean> BROADCAST_TO_PUBLISHER = ConfigOption.bool("broadcastToPublisher", true,
            "Whether a subscribed publisher receives its own publishes; channels and sessions may override it.");
    /** Whether messages go only in connect replies. */
    public static final ConfigOption<Boolean> META_CONNECT_DELIVERY_ONLY = ConfigOption.bool(
            "metaConnectDeliveryOnly", false,
            "Whether messages reach clients only inside /meta/connect replies (never piggy-backed or pushed).");
    /** The largest incoming message. */
    public static final ConfigOption<Integer> MAX_MESSAGE_SIZE = ConfigOption.integer("maxMessageSizeBytes",
            1024 * 1024, n -> n >= 1024, "an integer of at least 1024",
            "The largest HTTP body or WebSocket message accepted, in bytes; above it: HTTP 413 or close 1009.");
    /** The JSON codec. */
    public static final ConfigOption<String> CODEC = ConfigOption.text("codec", "jackson",
            name -> !name.isBlank(), "the name of a codec on the class path: jackson or jetty",
            "The JSON codec: jackson (module bayeux-json-jackson) or jetty (module bayeux-json-jetty).");
    /** The deepest nesting accepted in incoming JSON. */
    public static final ConfigOption<Integer> MAX_NESTING_DEPTH = ConfigOption.integer("maxNestingDepth",
            JsonCodec.DEFAULT_MAX_NESTING_DEPTH, n -> n >= 4 && n <= 500, "an integer from 4 to 500",
            "The deepest nesting of JSON objects and arrays accepted in incoming messages.");

    /** The longest channel name a client may use. */
    public static final ConfigOption<Integer> MAX_CHANNEL_NAME_LENGTH = ConfigOption.integer("maxChannelNameLength",
            512, n -> n >= 16, "an integer of at least 16",
            "The longest channel name, in characters, a client may publish, subscribe or unsubscribe to; longer: "
                    + "405::channel_length_limit.");
    /** The most segments in a channel name a client may use. */
    public static final ConfigOption<Integer> MAX_CHANNEL_SEGMENTS = ConfigOption.integer("maxChannelSegments", 32,
            n -> n >= 2, "an integer of at least 2",
            "The most segments in a channel name a client may use (/a/b has 2); more: 405::channel_segments_limit.");
    /** The most subscriptions a remote session may hold. */
    public static final ConfigOption<Integer> MAX_SUBSCRIPTIONS_PER_SESSION = ConfigOption.integer(
            "maxSubscriptionsPerSession", 1000, n -> n >= 1, "an integer of at least 1",
            "The most channels a remote session may be subscribed to at once; beyond: 403::subscription_limit.");
    /** The most channels the server holds before refusing clients' creations. */
    public static final ConfigOption<Integer> MAX_CHANNELS = ConfigOption.integer("maxChannels", 100_000,
            n -> n >= 1, "an integer of at least 1",
            "The most channels the server holds for a client's publish or subscribe to create another; beyond: "
                    + "403::channel_limit. Channels the application creates are not refused.");
    /** How many channels a remote session may create per second. */
    public static final ConfigOption<Integer> MAX_CHANNEL_CREATIONS_PER_SECOND = ConfigOption.integer(
            "maxChannelCreationsPerSecond", 100, n -> n >= 1, "an integer of at least 1",
            "How many channels one remote session may create per second (bursts of as many allowed); beyond: "
                    + "403::channel_rate_limit.");
    /** The most messages in one batch from a client. */
    public static final ConfigOption<Integer> MAX_MESSAGES_PER_BATCH = ConfigOption.integer("maxMessagesPerBatch",
            1000, n -> n >= 1, "an integer of at least 1",
            "The most messages in one HTTP body or WebSocket message; a larger batch is not processed, and its "
                    + "first message is answered 413::batch_limit.");

    /** How many sessions this node adopts at once. */
    public static final ConfigOption<Integer> MAX_ADOPTIONS_IN_FLIGHT = ConfigOption.integer("maxAdoptionsInFlight",
            256, n -> n >= 1, "an integer of at least 1",
            "With a session store that adopts (failover): how many unknown clientIds this node looks up in the store "
                    + "and adopts at once; the others wait in a queue of maxAdoptionsQueued.");
    /** How many adoptions wait for one in flight to end. */
    public static final ConfigOption<Integer> MAX_ADOPTIONS_QUEUED = ConfigOption.integer("maxAdoptionsQueued",
            4096, n -> n >= 0, "an integer of 0 or more",
            "With a session store that adopts: how many unknown clientIds wait for a look-up when "
                    + "maxAdoptionsInFlight are in flight; beyond, 402::session_unknown at once (counted as shed).");
    /** What an adopted session without {@code ack} resumes from. */
    public static final ConfigOption<FailoverDelivery> FAILOVER_DELIVERY = ConfigOption.choice("failoverDelivery",
            FailoverDelivery.class, FailoverDelivery.AT_MOST_ONCE,
            "For adopted sessions without the ack extension: resume after the last reply their former node wrote "
                    + "(at-most-once) or before it (at-least-once); one reply's messages at most lost or repeated.");

    /** Every option, in documentation order. */
    public static final List<ConfigOption<?>> OPTIONS = List.of(TIMEOUT, INTERVAL, MAX_INTERVAL, MAX_LAZY_TIMEOUT,
            SWEEP_PERIOD, MAX_QUEUE, MAX_QUEUE_BYTES, MAX_QUEUE_POLICY, BROADCAST_TO_PUBLISHER, META_CONNECT_DELIVERY_ONLY,
            MAX_MESSAGE_SIZE, CODEC, MAX_NESTING_DEPTH, MAX_CHANNEL_NAME_LENGTH, MAX_CHANNEL_SEGMENTS,
            MAX_SUBSCRIPTIONS_PER_SESSION, MAX_CHANNELS, MAX_CHANNEL_CREATIONS_PER_SECOND, MAX_MESSAGES_PER_BATCH,
            MAX_ADOPTIONS_IN_FLIGHT, MAX_ADOPTIONS_QUEUED, FAILOVER_DELIVERY);

    // Read for every message delivered: kept out of the map.
    private final int maxQueue;
    private final int maxQueueBytes;
    private final MaxQueuePolicy maxQueuePolicy;
    private final boolean broadcastToPublisher;

    private BayeuxServerConfig(Map<ConfigOption<?>, Object> values) {
        super(OPTIONS, values);
        this.maxQueue = get(MAX_QUEUE);
        this.maxQueueBytes = get(MAX_QUEUE_BYTES);
        this.maxQueuePolicy = get(MAX_QUEUE_POLICY);
        this.broadcastToPublisher = get(BROADCAST_TO_PUBLISHER);
    }

    /** @return a configuration with every default */
    public static BayeuxServerConfig defaults() {
        return builder().build();
    }

    /** @return a builder starting from the defaults */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Builds a configuration from text values, such as system properties or a servlet's init parameters.
     *
     * @param settings key to value; keys not in {@link #OPTIONS} are refused
     * @return the configuration
     * @throws InvalidConfigurationException for an unknown key or a bad value
     */
    public static BayeuxServerConfig fromMap(Map<String, String> settings) {
        return new BayeuxServerConfig(ConfigOptions.parse(OPTIONS, settings));
    }

    /** @return {@link #TIMEOUT} */
    public Duration timeout() {
        return get(TIMEOUT);
    }

    /** @return {@link #INTERVAL} */
    public Duration interval() {
        return get(INTERVAL);
    }

    /** @return {@link #MAX_INTERVAL} */
    public Duration maxInterval() {
        return get(MAX_INTERVAL);
    }

    /** @return {@link #MAX_LAZY_TIMEOUT} */
    public Duration maxLazyTimeout() {
        return get(MAX_LAZY_TIMEOUT);
    }

    /** @return {@link #SWEEP_PERIOD} */
    public Duration sweepPeriod() {
        return get(SWEEP_PERIOD);
    }

    /** @return {@link #MAX_QUEUE} */
    public int maxQueue() {
        return maxQueue;
    }

    /** @return {@link #MAX_QUEUE_BYTES} */
    public int maxQueueBytes() {
        return maxQueueBytes;
    }

    /** @return {@link #MAX_QUEUE_POLICY} */
    public MaxQueuePolicy maxQueuePolicy() {
        return maxQueuePolicy;
    }

    /** @return {@link #BROADCAST_TO_PUBLISHER} */
    public boolean broadcastToPublisher() {
        return broadcastToPublisher;
    }

    /** @return {@link #META_CONNECT_DELIVERY_ONLY} */
    public boolean metaConnectDeliveryOnly() {
        return get(META_CONNECT_DELIVERY_ONLY);
    }

    /** @return {@link #MAX_MESSAGE_SIZE} */
    public int maxMessageSizeBytes() {
        return get(MAX_MESSAGE_SIZE);
    }

    /** @return {@link #CODEC} */
    public String codec() {
        return get(CODEC);
    }

    /** @return {@link #MAX_NESTING_DEPTH} */
    public int maxNestingDepth() {
        return get(MAX_NESTING_DEPTH);
    }

    /** @return {@link #MAX_CHANNEL_NAME_LENGTH} */
    public int maxChannelNameLength() {
        return get(MAX_CHANNEL_NAME_LENGTH);
    }

    /** @return {@link #MAX_CHANNEL_SEGMENTS} */
    public int maxChannelSegments() {
        return get(MAX_CHANNEL_SEGMENTS);
    }

    /** @return {@link #MAX_SUBSCRIPTIONS_PER_SESSION} */
    public int maxSubscriptionsPerSession() {
        return get(MAX_SUBSCRIPTIONS_PER_SESSION);
    }

    /** @return {@link #MAX_CHANNELS} */
    public int maxChannels() {
        return get(MAX_CHANNELS);
    }

    /** @return {@link #MAX_CHANNEL_CREATIONS_PER_SECOND} */
    public int maxChannelCreationsPerSecond() {
        return get(MAX_CHANNEL_CREATIONS_PER_SECOND);
    }

    /** @return {@link #MAX_MESSAGES_PER_BATCH} */
    public int maxMessagesPerBatch() {
        return get(MAX_MESSAGES_PER_BATCH);
    }

    /** @return {@link #MAX_ADOPTIONS_IN_FLIGHT} */
    public int maxAdoptionsInFlight() {
        return get(MAX_ADOPTIONS_IN_FLIGHT);
    }

    /** @return {@link #MAX_ADOPTIONS_QUEUED} */
    public int maxAdoptionsQueued() {
        return get(MAX_ADOPTIONS_QUEUED);
    }

    /** @return {@link #FAILOVER_DELIVERY} */
    public FailoverDelivery failoverDelivery() {
        return get(FAILOVER_DELIVERY);
    }

    /**
     * Renders every option as a Markdown table, the one kept in {@code docs/configuration.md}.
     *
     * @return the table, one row per key
     */
    public static String markdownTable() {
        return ConfigOptions.markdownTable(OPTIONS);
    }

    /**
     * Collects values; each is validated as it is set.
     */
    public static final class Builder extends TypedConfig.Builder<Builder> {
        private Builder() {
            super(OPTIONS);
        }

        /**
         * @param timeout {@link #TIMEOUT}
         * @return this builder
         */
        public Builder timeout(Duration timeout) {
            return set(TIMEOUT, timeout);
        }

        /**
         * @param interval {@link #INTERVAL}
         * @return this builder
         */
        public Builder interval(Duration interval) {
            return set(INTERVAL, interval);
        }

        /**
         * @param maxInterval {@link #MAX_INTERVAL}
         * @return this builder
         */
        public Builder maxInterval(Duration maxInterval) {
            return set(MAX_INTERVAL, maxInterval);
        }

        /**
         * @param maxLazyTimeout {@link #MAX_LAZY_TIMEOUT}
         * @return this builder
         */
        public Builder maxLazyTimeout(Duration maxLazyTimeout) {
            return set(MAX_LAZY_TIMEOUT, maxLazyTimeout);
        }

        /**
         * @param sweepPeriod {@link #SWEEP_PERIOD}
         * @return this builder
         */
        public Builder sweepPeriod(Duration sweepPeriod) {
            return set(SWEEP_PERIOD, sweepPeriod);
        }

        /**
         * @param maxQueue {@link #MAX_QUEUE}
         * @return this builder
         */
        public Builder maxQueue(int maxQueue) {
            return set(MAX_QUEUE, maxQueue);
        }

        /**
         * @param maxQueueBytes {@link #MAX_QUEUE_BYTES}
         * @return this builder
         */
        public Builder maxQueueBytes(int maxQueueBytes) {
            return set(MAX_QUEUE_BYTES, maxQueueBytes);
        }

        /**
         * @param policy {@link #MAX_QUEUE_POLICY}
         * @return this builder
         */
        public Builder maxQueuePolicy(MaxQueuePolicy policy) {
            return set(MAX_QUEUE_POLICY, policy);
        }

        /**
         * @param broadcastToPublisher {@link #BROADCAST_TO_PUBLISHER}
         * @return this builder
         */
        public Builder broadcastToPublisher(boolean broadcastToPublisher) {
            return set(BROADCAST_TO_PUBLISHER, broadcastToPublisher);
        }

        /**
         * @param metaConnectDeliveryOnly {@link #META_CONNECT_DELIVERY_ONLY}
         * @return this builder
         */
        public Builder metaConnectDeliveryOnly(boolean metaConnectDeliveryOnly) {
            return set(META_CONNECT_DELIVERY_ONLY, metaConnectDeliveryOnly);
        }

        /**
         * @param maxMessageSizeBytes {@link #MAX_MESSAGE_SIZE}
         * @return this builder
         */
        public Builder maxMessageSizeBytes(int maxMessageSizeBytes) {
            return set(MAX_MESSAGE_SIZE, maxMessageSizeBytes);
        }

        /**
         * @param codec {@link #CODEC}
         * @return this builder
         */
        public Builder codec(String codec) {
            return set(CODEC, codec);
        }

        /**
         * @param maxNestingDepth {@link #MAX_NESTING_DEPTH}
         * @return this builder
         */
        public Builder maxNestingDepth(int maxNestingDepth) {
            return set(MAX_NESTING_DEPTH, maxNestingDepth);
        }

        /**
         * @param maxChannelNameLength {@link #MAX_CHANNEL_NAME_LENGTH}
         * @return this builder
         */
        public Builder maxChannelNameLength(int maxChannelNameLength) {
            return set(MAX_CHANNEL_NAME_LENGTH, maxChannelNameLength);
        }

        /**
         * @param maxChannelSegments {@link #MAX_CHANNEL_SEGMENTS}
         * @return this builder
         */
        public Builder maxChannelSegments(int maxChannelSegments) {
            return set(MAX_CHANNEL_SEGMENTS, maxChannelSegments);
        }

        /**
         * @param maxSubscriptionsPerSession {@link #MAX_SUBSCRIPTIONS_PER_SESSION}
         * @return this builder
         */
        public Builder maxSubscriptionsPerSession(int maxSubscriptionsPerSession) {
            return set(MAX_SUBSCRIPTIONS_PER_SESSION, maxSubscriptionsPerSession);
        }

        /**
         * @param maxChannels {@link #MAX_CHANNELS}
         * @return this builder
         */
        public Builder maxChannels(int maxChannels) {
            return set(MAX_CHANNELS, maxChannels);
        }

        /**
         * @param maxChannelCreationsPerSecond {@link #MAX_CHANNEL_CREATIONS_PER_SECOND}
         * @return this builder
         */
        public Builder maxChannelCreationsPerSecond(int maxChannelCreationsPerSecond) {
            return set(MAX_CHANNEL_CREATIONS_PER_SECOND, maxChannelCreationsPerSecond);
        }

        /**
         * @param maxMessagesPerBatch {@link #MAX_MESSAGES_PER_BATCH}
         * @return this builder
         */
        public Builder maxMessagesPerBatch(int maxMessagesPerBatch) {
            return set(MAX_MESSAGES_PER_BATCH, maxMessagesPerBatch);
        }

        /**
         * @param maxAdoptionsInFlight {@link #MAX_ADOPTIONS_IN_FLIGHT}
         * @return this builder
         */
        public Builder maxAdoptionsInFlight(int maxAdoptionsInFlight) {
            return set(MAX_ADOPTIONS_IN_FLIGHT, maxAdoptionsInFlight);
        }

        /**
         * @param maxAdoptionsQueued {@link #MAX_ADOPTIONS_QUEUED}
         * @return this builder
         */
        public Builder maxAdoptionsQueued(int maxAdoptionsQueued) {
            return set(MAX_ADOPTIONS_QUEUED, maxAdoptionsQueued);
        }

        /**
         * @param failoverDelivery {@link #FAILOVER_DELIVERY}
         * @return this builder
         */
        public Builder failoverDelivery(FailoverDelivery failoverDelivery) {
            return set(FAILOVER_DELIVERY, failoverDelivery);
        }

        /**
         * @return the configuration
         * @throws InvalidConfigurationException if values contradict each other
         */
        public BayeuxServerConfig build() {
            return new BayeuxServerConfig(values());
        }
    }
}
