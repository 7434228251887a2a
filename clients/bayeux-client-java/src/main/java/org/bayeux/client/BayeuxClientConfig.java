package org.bayeux.client;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.bayeux.client.ext.RecoveryExtension;
import org.bayeux.client.transport.ClientTransport;

/**
 * A client's configuration: immutable, typed (times are {@link Duration}s, sizes are bytes), checked when built.
 * A bad value fails at once with an {@link IllegalArgumentException} that names the option and the rule.
 *
 * <pre>{@code
 * BayeuxClientConfig config = BayeuxClientConfig.builder("https://example.com/bayeux")
 *         .transports(ClientTransport.WEBSOCKET, ClientTransport.LONG_POLLING)
 *         .backoff(Duration.ofMillis(500), Duration.ofSeconds(30))
 *         .build();
 * }</pre>
 *
 * <p>{@link #describe()} lists every option with its default; {@code docs/java-client.md} shows the same table.</p>
 */
public final class BayeuxClientConfig {
    private static final String WHAT = "client configuration";

    private final URI url;
    private final List<String> transports;
    private final String codec;
    private final Duration maxNetworkDelay;
    private final Duration backoffInitial;
    private final Duration backoffMax;
    private final double backoffMultiplier;
    private final double backoffJitter;
    private final boolean autoResubscribe;
    private final boolean recovery;
    private final int recoveryMaxChannels;
    private final Duration remoteCallTimeout;
    private final int maxIncomingMessageBytes;
    private final int maxPendingMessages;
    private final Map<String, String> requestHeaders;
    private final HandshakeHook handshakeHook;

    private BayeuxClientConfig(Builder builder) {
        this.url = builder.url;
        this.transports = List.copyOf(builder.transports);
        this.codec = builder.codec;
        this.maxNetworkDelay = builder.maxNetworkDelay;
        this.backoffInitial = builder.backoffInitial;
        this.backoffMax = builder.backoffMax;
        this.backoffMultiplier = builder.backoffMultiplier;
        this.backoffJitter = builder.backoffJitter;
        this.autoResubscribe = builder.autoResubscribe;
        this.recovery = builder.recovery;
        this.recoveryMaxChannels = builder.recoveryMaxChannels;
        this.remoteCallTimeout = builder.remoteCallTimeout;
        this.maxIncomingMessageBytes = builder.maxIncomingMessageBytes;
        this.maxPendingMessages = builder.maxPendingMessages;
        this.requestHeaders = Map.copyOf(builder.requestHeaders);
        this.handshakeHook = builder.handshakeHook;
    }

    /**
     * @param url the server's Bayeux endpoint, {@code http://} or {@code https://}; WebSocket uses the same URL
     *            with {@code ws://} or {@code wss://}
     * @return a builder starting from the defaults
     * @throws IllegalArgumentException if the URL is not an absolute http or https URL
     */
    public static Builder builder(String url) {
        return new Builder(url);
    }

    /** @return the server's endpoint */
    public URI url() {
        return url;
    }

    /** @return the transports the client may use, most preferred first */
    public List<String> transports() {
        return transports;
    }

    /** @return the JSON codec's name, found on the class path */
    public String codec() {
        return codec;
    }

    /** @return how long a request may wait for its reply, beyond the time the server holds a connect */
    public Duration maxNetworkDelay() {
        return maxNetworkDelay;
    }

    /** @return the first back-off after a failure */
    public Duration backoffInitial() {
        return backoffInitial;
    }

    /** @return the longest back-off */
    public Duration backoffMax() {
        return backoffMax;
    }

    /** @return the factor by which each back-off grows */
    public double backoffMultiplier() {
        return backoffMultiplier;
    }

    /** @return the fraction of each back-off drawn at random, from 0 (none) to 1 (anywhere from 0 to the step) */
    public double backoffJitter() {
        return backoffJitter;
    }

    /** @return whether the client subscribes again to its channels after a re-handshake */
    public boolean autoResubscribe() {
        return autoResubscribe;
    }

    /** @return whether the client recovers missed messages when it subscribes again, if the server offers it */
    public boolean recovery() {
        return recovery;
    }

    /**
     * @return the most channels whose position the recovery extension keeps (those received through wildcards
     *         included); past it the least recently used is forgotten
     */
    public int recoveryMaxChannels() {
        return recoveryMaxChannels;
    }

    /** @return how long a remote call waits for its answer when no timeout is given */
    public Duration remoteCallTimeout() {
        return remoteCallTimeout;
    }

    /** @return the largest HTTP response or WebSocket message the client reads, in bytes */
    public int maxIncomingMessageBytes() {
        return maxIncomingMessageBytes;
    }

    /** @return the most messages a client may have sent, or waiting to be sent, without a reply yet */
    public int maxPendingMessages() {
        return maxPendingMessages;
    }

    /** @return the headers sent with every HTTP request and WebSocket upgrade */
    public Map<String, String> requestHeaders() {
        return requestHeaders;
    }

    /** @return the hook run before every handshake */
    public HandshakeHook handshakeHook() {
        return handshakeHook;
    }

    /**
     * Describes every option, in the order of the documentation: name, type, default and meaning.
     *
     * @return one row per option; each row has four cells
     */
    public static List<List<String>> describe() {
        Builder defaults = new Builder("http://localhost/");
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("transports", "List<String>", String.join(", ", defaults.transports),
                "Transports the client may use, most preferred first: websocket, long-polling."));
        rows.add(List.of("codec", "String", defaults.codec,
                "The JSON codec, found by ServiceLoader: jackson (bayeux-json-jackson) or jetty (bayeux-json-jetty)."));
        rows.add(List.of("maxNetworkDelay", "Duration", defaults.maxNetworkDelay.toString(),
                "How long a request waits for its reply; a connect waits for the advised timeout plus this."));
        rows.add(List.of("backoffInitial", "Duration", defaults.backoffInitial.toString(),
                "The back-off after the first failure (of a connect or a handshake)."));
        rows.add(List.of("backoffMax", "Duration", defaults.backoffMax.toString(), "The longest back-off."));
        rows.add(List.of("backoffMultiplier", "double", String.valueOf(defaults.backoffMultiplier),
                "The factor by which the back-off grows with each failure in a row."));
        rows.add(List.of("backoffJitter", "double", String.valueOf(defaults.backoffJitter),
                "The fraction of each back-off drawn at random, so that many clients do not retry in step."));
        rows.add(List.of("autoResubscribe", "boolean", String.valueOf(defaults.autoResubscribe),
                "Whether the client subscribes again to its channels after a re-handshake."));
        rows.add(List.of("recovery", "boolean", String.valueOf(defaults.recovery),
                "Whether the client sends its last position per channel when it subscribes again, so that a server "
                        + "that offers recovery (a Redis backplane) delivers what it missed (see docs/protocol.md)."));
        rows.add(List.of("recoveryMaxChannels", "int", String.valueOf(defaults.recoveryMaxChannels),
                "The most channels whose position recovery keeps, those received through a wildcard included: past "
                        + "it the least recently used channel's is forgotten (its next subscribe sends none), so that "
                        + "a wildcard over ever new channels cannot grow the client's memory without end."));
        rows.add(List.of("remoteCallTimeout", "Duration", defaults.remoteCallTimeout.toString(),
                "How long a remote call waits for its answer when the call gives no timeout."));
        rows.add(List.of("maxIncomingMessageBytes", "int", String.valueOf(defaults.maxIncomingMessageBytes),
                "The largest HTTP response or WebSocket message read; a larger one fails its connection."));
        rows.add(List.of("maxPendingMessages", "int", String.valueOf(defaults.maxPendingMessages),
                "The most messages sent or waiting to be sent without a reply; more fail at once (429)."));
        rows.add(List.of("requestHeaders", "Map<String,String>", "{}",
                "Headers sent with every HTTP request and WebSocket upgrade."));
        rows.add(List.of("handshakeHook", "HandshakeHook", "none",
                "Runs before every handshake: adds or refreshes credentials (ext fields, headers)."));
        return rows;
    }

    /**
     * Collects the options; each is checked as it is set.
     */
    public static final class Builder {
        private final URI url;
        private List<String> transports = List.of(ClientTransport.WEBSOCKET, ClientTransport.LONG_POLLING);
        private String codec = "jackson";
        private Duration maxNetworkDelay = Duration.ofSeconds(10);
        private Duration backoffInitial = Duration.ofMillis(500);
        private Duration backoffMax = Duration.ofSeconds(30);
        private double backoffMultiplier = 2.0;
        private double backoffJitter = 0.5;
        private boolean autoResubscribe = true;
        private boolean recovery = true;
        private int recoveryMaxChannels = RecoveryExtension.DEFAULT_MAX_CHANNELS;
        private Duration remoteCallTimeout = Duration.ofSeconds(30);
        private int maxIncomingMessageBytes = 4 * 1024 * 1024;
        private int maxPendingMessages = 1000;
        private final Map<String, String> requestHeaders = new LinkedHashMap<>();
        private HandshakeHook handshakeHook = HandshakeHook.none();

        private Builder(String url) {
            this.url = parseUrl(url);
        }

        private static URI parseUrl(String url) {
            Objects.requireNonNull(url, "url");
            URI uri;
            try {
                uri = URI.create(url);
            } catch (IllegalArgumentException bad) {
                throw new IllegalArgumentException("Invalid url '" + url + "': " + bad.getMessage(), bad);
            }
            String scheme = uri.getScheme();
            if (!"http".equalsIgnoreCase(scheme) && !"https".equalsIgnoreCase(scheme) || uri.getHost() == null) {
                throw new IllegalArgumentException("Invalid url '" + url + "': must be an absolute http:// or "
                        + "https:// URL with a host");
            }
            return uri;
        }

        /**
         * @param names the transports the client may use, most preferred first; each is
         *              {@link ClientTransport#WEBSOCKET} or {@link ClientTransport#LONG_POLLING}, at most once
         * @return this builder
         */
        public Builder transports(String... names) {
            List<String> list = List.of(names);
            if (list.isEmpty()) {
                throw Checks.invalid(WHAT, "transports", list, "at least one transport");
            }
            for (String name : list) {
                if (!ClientTransport.WEBSOCKET.equals(name) && !ClientTransport.LONG_POLLING.equals(name)) {
                    throw Checks.invalid(WHAT, "transports", list, "each one of websocket, long-polling");
                }
            }
            if (list.stream().distinct().count() != list.size()) {
                throw Checks.invalid(WHAT, "transports", list, "no transport twice");
            }
            this.transports = list;
            return this;
        }

        /**
         * @param codec the JSON codec's name: {@code jackson} or {@code jetty}, its module on the class path
         * @return this builder
         */
        public Builder codec(String codec) {
            if (codec == null || codec.isBlank()) {
                throw Checks.invalid(WHAT, "codec", codec, "a codec name such as jackson or jetty");
            }
            this.codec = codec;
            return this;
        }

        /**
         * @param maxNetworkDelay how long a request waits for its reply beyond any hold by the server; above 0
         * @return this builder
         */
        public Builder maxNetworkDelay(Duration maxNetworkDelay) {
            this.maxNetworkDelay = Checks.positive(WHAT, "maxNetworkDelay", maxNetworkDelay);
            return this;
        }

        /**
         * Sets an exponential back-off with the default multiplier and jitter.
         *
         * @param initial the first back-off; above 0
         * @param max the longest back-off; at least {@code initial}
         * @return this builder
         */
        public Builder backoff(Duration initial, Duration max) {
            Checks.positive(WHAT, "backoffInitial", initial);
            Checks.positive(WHAT, "backoffMax", max);
            if (max.compareTo(initial) < 0) {
                throw Checks.invalid(WHAT, "backoffMax", max, "at least backoffInitial (" + initial + ")");
            }
            this.backoffInitial = initial;
            this.backoffMax = max;
            return this;
        }

        /**
         * @param multiplier the factor by which the back-off grows with each failure in a row; at least 1
         * @return this builder
         */
        public Builder backoffMultiplier(double multiplier) {
            if (!(multiplier >= 1.0) || Double.isInfinite(multiplier)) {
                throw Checks.invalid(WHAT, "backoffMultiplier", multiplier, "a number of at least 1");
            }
            this.backoffMultiplier = multiplier;
            return this;
        }

        /**
         * @param jitter the fraction of each back-off drawn at random: 0 for none, 1 for anywhere between 0 and the
         *               full step
         * @return this builder
         */
        public Builder backoffJitter(double jitter) {
            if (!(jitter >= 0.0 && jitter <= 1.0)) {
                throw Checks.invalid(WHAT, "backoffJitter", jitter, "a number from 0 to 1");
            }
            this.backoffJitter = jitter;
            return this;
        }

        /**
         * @param autoResubscribe whether to subscribe again to every channel that has subscribers after a
         *                        re-handshake; when false, the subscribers are dropped and the application
         *                        subscribes again itself (for example in a {@code /meta/handshake} listener)
         * @return this builder
         */
        public Builder autoResubscribe(boolean autoResubscribe) {
            this.autoResubscribe = autoResubscribe;
            return this;
        }

        /**
         * @param recovery whether to add a {@link org.bayeux.client.ext.RecoveryExtension} (on by default; it does
         *                 nothing against a server that does not offer recovery)
         * @return this builder
         */
        public Builder recovery(boolean recovery) {
            this.recovery = recovery;
            return this;
        }

        /**
         * @param count the most channels whose position the recovery extension keeps, those received through a
         *              wildcard included; past it the least recently used is forgotten; at least 1
         * @return this builder
         */
        public Builder recoveryMaxChannels(int count) {
            if (count < 1) {
                throw Checks.invalid(WHAT, "recoveryMaxChannels", count, "an integer of at least 1");
            }
            this.recoveryMaxChannels = count;
            return this;
        }

        /**
         * @param timeout how long a remote call waits for its answer when the call gives no timeout; above 0
         * @return this builder
         */
        public Builder remoteCallTimeout(Duration timeout) {
            this.remoteCallTimeout = Checks.positive(WHAT, "remoteCallTimeout", timeout);
            return this;
        }

        /**
         * @param bytes the largest HTTP response or WebSocket message the client reads; at least 1024
         * @return this builder
         */
        public Builder maxIncomingMessageBytes(int bytes) {
            if (bytes < 1024) {
                throw Checks.invalid(WHAT, "maxIncomingMessageBytes", bytes, "an integer of at least 1024");
            }
            this.maxIncomingMessageBytes = bytes;
            return this;
        }

        /**
         * @param count the most messages the client may have sent, or waiting to be sent, without a reply; at
         *              least 1
         * @return this builder
         */
        public Builder maxPendingMessages(int count) {
            if (count < 1) {
                throw Checks.invalid(WHAT, "maxPendingMessages", count, "an integer of at least 1");
            }
            this.maxPendingMessages = count;
            return this;
        }

        /**
         * @param name a header to send with every HTTP request and WebSocket upgrade
         * @param value its value
         * @return this builder
         */
        public Builder requestHeader(String name, String value) {
            if (name == null || name.isBlank() || !name.chars().allMatch(c -> c > 32 && c < 127 && c != ':')) {
                throw Checks.invalid(WHAT, "requestHeaders", name,
                        "a header name of visible ASCII characters without ':'");
            }
            if (value == null || value.indexOf('\r') >= 0 || value.indexOf('\n') >= 0) {
                throw Checks.invalid(WHAT, "requestHeaders", name + ": " + value, "a value without line breaks");
            }
            requestHeaders.put(name, value);
            return this;
        }

        /**
         * @param hook runs before every handshake, to add or refresh credentials
         * @return this builder
         */
        public Builder handshakeHook(HandshakeHook hook) {
            this.handshakeHook = Objects.requireNonNull(hook, "handshakeHook");
            return this;
        }

        /** @return the configuration */
        public BayeuxClientConfig build() {
            return new BayeuxClientConfig(this);
        }
    }
}
