package org.bayeux.oort;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.bayeux.api.ChannelId;
import org.bayeux.server.config.ConfigOption;
import org.bayeux.server.config.InvalidConfigurationException;
import org.bayeux.server.config.TypedConfig;

/**
 * An Oort node's configuration, in the engine's one shape ({@link TypedConfig}): typed keys, each checked against its
 * rule as it is set, then the rules that span keys checked by {@link Builder#build()}. The Java builder and the text
 * keys ({@link OortSettings}, the standalone server's {@code --set oort.*}) set the same options, so both follow the
 * same rules and fail with the same {@link InvalidConfigurationException} naming the key and the value (the secret's
 * length only, never the secret).
 *
 * <p>The keys, their defaults and rules are listed in {@code docs/cluster.md}, generated from {@link #OPTIONS} and
 * {@link OortSettings#SECRET_FILE} ({@link OortSettings#markdownTable()}). The secret itself is no option: it is
 * given as bytes to the builder, or read from {@code oort.secretFile} by {@link OortSettings}, and is never printed.</p>
 */
public final class OortConfig extends TypedConfig {
    /** The shortest secret accepted, in bytes. */
    public static final int MIN_SECRET_BYTES = 32;
    /** The most fan-out lanes. */
    public static final int MAX_FAN_OUT_LANES = 64;
    /** The highest {@code oort.maxKnownUrls}. */
    public static final int MAX_KNOWN_URLS = 10_000;

    /** This node's advertised URL: required, it turns Oort on. */
    public static final ConfigOption<String> URL = ConfigOption.text("oort.url", "", OortConfig::isEndpointUrl,
            "an http, https, ws or wss URL of this node's Bayeux endpoint",
            "This node's Bayeux endpoint as the other nodes reach it (`--oort-url`). Required: giving it turns Oort on. "
                    + "Port 0 in it stands for the port the server bound (with `--port 0`).");
    /** The URLs dialled at start. */
    public static final ConfigOption<List<String>> SEEDS = ConfigOption.list("oort.seeds", List.of(),
            OortConfig::isEndpointUrl, "comma-separated http, https, ws or wss URLs of Bayeux endpoints",
            "Nodes dialled at start, comma-separated (`--oort-seeds`); this node's own URL is skipped.");
    /** The observed channel globs. */
    public static final ConfigOption<List<String>> CHANNELS = ConfigOption.list("oort.channels", List.of("/**"),
            OortConfig::isBroadcastGlob, "comma-separated broadcast channels or globs, such as /chat/** or /**",
            "The channels forwarded to and accepted from other nodes, comma-separated globs (`--oort-channels`; "
                    + "`*` one segment, `**` any; no meta or service channel).");
    /** How often a link says the node is alive. */
    public static final ConfigOption<Duration> HEARTBEAT_INTERVAL = ConfigOption.duration("oort.heartbeatInterval",
            Duration.ofSeconds(2), d -> d.compareTo(Duration.ofMillis(10)) >= 0 && d.compareTo(Duration.ofMinutes(1)) <= 0,
            "a duration from 10ms to 1m", "How often each link says the node is alive.");
    /** How long a peer may be silent. */
    public static final ConfigOption<Duration> PEER_TIMEOUT = ConfigOption.duration("oort.peerTimeout",
            Duration.ofSeconds(10), d -> d.compareTo(Duration.ofMillis(20)) >= 0 && d.compareTo(Duration.ofMinutes(10)) <= 0,
            "a duration from 20ms to 10m, at least twice oort.heartbeatInterval",
            "A peer silent this long (either direction) has left.");
    /** The largest message a link carries. */
    public static final ConfigOption<Integer> MAX_MESSAGE_BYTES = ConfigOption.integer("oort.maxMessageBytes",
            512 * 1024, n -> n >= 1024, "an integer of at least 1024",
            "The largest message (its JSON) forwarded; at most half the peers' `maxMessageSizeBytes`, as a forward "
                    + "travels as an escaped JSON string.");
    /** The most forwards a link holds unacknowledged. */
    public static final ConfigOption<Integer> MAX_QUEUE = ConfigOption.integer("oort.maxQueue", 10_000,
            n -> n >= 1, "an integer of at least 1", "The most forwards a link holds that its peer has not acknowledged, kept to be resent after a flap; past it a "
                    + "forward is not queued for that peer, which counts the skipped ones as a gap.");
    /** The most bytes of forwards a link holds unacknowledged. */
    public static final ConfigOption<Long> MAX_QUEUE_BYTES = ConfigOption.size("oort.maxQueueBytes",
            32L * 1024 * 1024, n -> n >= 1024, "a size in bytes of at least oort.maxMessageBytes",
            "The most bytes of forwards a link holds unacknowledged; past it a forward is not queued for that peer.");
    /** The threads that deliver peers' messages. */
    public static final ConfigOption<Integer> FAN_OUT_LANES = ConfigOption.integer("oort.fanOutLanes", 1,
            n -> n >= 1 && n <= MAX_FAN_OUT_LANES, "an integer from 1 to " + MAX_FAN_OUT_LANES,
            "The threads that deliver the messages of peers to this node's subscribers, each channel's on one of them: "
                    + "one order per channel, but an origin's messages on different channels may then arrive in another "
                    + "order. 1 delivers them in the origin's order on the thread that reads the link.");
    /** Whether links may be plain http or ws to another host. */
    public static final ConfigOption<Boolean> ALLOW_PLAIN_LINKS = ConfigOption.bool("oort.allowPlainLinks", false,
            "Whether links may be plain `http://` or `ws://` to a peer that is not on the loopback interface. Off, such "
                    + "a URL is refused at start (`oort.url`, `oort.seeds`) and never dialled (gossip, dial-backs): a "
                    + "reader of a plain link sees every message (forwards stay signed). Turn it on only on a network "
                    + "you trust or inside a tunnel.");
    /** The only hosts dialled. */
    public static final ConfigOption<List<String>> PEER_HOSTS = ConfigOption.list("oort.peerHosts", List.of(),
            OortConfig::isHost, "comma-separated host names or addresses, such as node1.example.com or 10.0.0.2",
            "The only hosts this node dials, comma-separated, compared exactly without case (seeds, gossiped URLs, "
                    + "dial-backs); empty: any host. A peer on another host never joins: it is never dialled back.");
    /** The most peer URLs kept ({@code oort.maxKnownUrls}; {@link #MAX_KNOWN_URLS} is its highest value). */
    public static final ConfigOption<Integer> KNOWN_URLS = ConfigOption.integer("oort.maxKnownUrls", 100,
            n -> n >= 1 && n <= MAX_KNOWN_URLS, "an integer from 1 to " + MAX_KNOWN_URLS + ", more than the seeds",
            "The most peer URLs this node keeps (seeds, members, gossiped); a URL gossiped or claimed past it is not "
                    + "dialled. URLs no member lists any more, not seeds and not joined, are forgotten.");

    /** Every typed key (all but the secret), in documentation order. */
    public static final List<ConfigOption<?>> OPTIONS = List.of(URL, SEEDS, CHANNELS, HEARTBEAT_INTERVAL, PEER_TIMEOUT,
            MAX_MESSAGE_BYTES, MAX_QUEUE, MAX_QUEUE_BYTES, FAN_OUT_LANES, ALLOW_PLAIN_LINKS, PEER_HOSTS, KNOWN_URLS);

    private final byte[] secret;
    private final String url;
    private final List<String> seeds;
    private final List<String> channels;
    private final List<String> peerHosts;
    private final boolean allowPlainLinks;

    private OortConfig(Map<ConfigOption<?>, Object> values, byte[] secret) {
        super(OPTIONS, withLowerCaseHosts(values));
        this.secret = secret;
        this.url = get(URL);
        this.seeds = List.copyOf(get(SEEDS));
        this.channels = List.copyOf(get(CHANNELS));
        this.peerHosts = List.copyOf(get(PEER_HOSTS));
        this.allowPlainLinks = get(ALLOW_PLAIN_LINKS);
        if (channels.isEmpty()) {
            throw new InvalidConfigurationException(CHANNELS.key(), "[]", "at least one channel glob");
        }
        if (peerTimeout().compareTo(heartbeatInterval().multipliedBy(2)) < 0) {
            throw invalid(PEER_TIMEOUT, peerTimeout(),
                    "at least twice oort.heartbeatInterval (" + heartbeatInterval() + ")");
        }
        if (maxQueueBytes() < maxMessageBytes()) {
            throw invalid(MAX_QUEUE_BYTES, maxQueueBytes(),
                    "at least oort.maxMessageBytes (" + maxMessageBytes() + ")");
        }
        if (seeds.size() + 1 > maxKnownUrls()) {
            throw invalid(KNOWN_URLS, maxKnownUrls(), "more than the number of oort.seeds (" + seeds.size() + ")");
        }
        // Last, so that a plain URL's error does not hide another rule's.
        String urlProblem = refusalOf(url);
        if (urlProblem != null) {
            throw invalid(URL, url, urlProblem);
        }
        for (String seed : seeds) {
            String problem = refusalOf(seed);
            if (problem != null) {
                throw invalid(SEEDS, seed, problem);
            }
        }
    }

    /** Hosts are compared without case: they are kept in lower case. */
    private static Map<ConfigOption<?>, Object> withLowerCaseHosts(Map<ConfigOption<?>, Object> values) {
        List<String> hosts = new ArrayList<>();
        for (Object host : (List<?>) values.get(PEER_HOSTS)) {
            hosts.add(((String) host).toLowerCase(Locale.ROOT));
        }
        values.put(PEER_HOSTS, List.copyOf(hosts));
        return values;
    }

    /**
     * @param url a peer's URL
     * @return null if this node may dial it; else the rule it breaks, for a message
     */
    String refusalOf(String url) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (java.net.URISyntaxException bad) {
            return "an http(s) URL of a Bayeux endpoint";
        }
        String host = uri.getHost();
        String scheme = uri.getScheme();
        if (host == null || scheme == null) {
            return "an http(s) URL of a Bayeux endpoint";
        }
        if (!peerHosts.isEmpty() && !peerHosts.contains(host.toLowerCase(Locale.ROOT))) {
            return "a URL of one of oort.peerHosts " + peerHosts;
        }
        boolean plain = "http".equalsIgnoreCase(scheme) || "ws".equalsIgnoreCase(scheme);
        if (plain && !allowPlainLinks && !isLoopback(host)) {
            return "an https:// or wss:// URL, as plain links to another host are allowed only with "
                    + "oort.allowPlainLinks=true";
        }
        return null;
    }

    /** @return whether the host is the loopback interface, by its literal name only (no name is looked up) */
    static boolean isLoopback(String host) {
        String name = host.toLowerCase(Locale.ROOT);
        if (name.equals("localhost") || name.equals("[::1]") || name.equals("::1")) {
            return true;
        }
        return name.matches("127\\.[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}");
    }

    /** @return whether the text is an absolute http, https, ws or wss URL with a host */
    static boolean isEndpointUrl(String text) {
        try {
            URI uri = new URI(text);
            String scheme = uri.getScheme();
            return ("http".equals(scheme) || "https".equals(scheme) || "ws".equals(scheme) || "wss".equals(scheme))
                    && uri.getHost() != null;
        } catch (java.net.URISyntaxException bad) {
            return false;
        }
    }

    private static boolean isBroadcastGlob(String glob) {
        return ChannelId.problemWith(glob) == null && !glob.startsWith(ChannelId.META_PREFIX)
                && !glob.startsWith(ChannelId.SERVICE_PREFIX);
    }

    private static boolean isHost(String host) {
        return !host.isBlank() && !host.contains("/") && !(host.contains(":") && !host.startsWith("["));
    }

    private static InvalidConfigurationException invalid(ConfigOption<?> option, Object value, String rule) {
        return new InvalidConfigurationException(option.key(), String.valueOf(value), rule);
    }

    /**
     * @param url this node's advertised URL ({@code oort.url})
     * @return a builder
     */
    public static Builder builder(String url) {
        return new Builder(url);
    }

    /** @return this node's advertised URL */
    public String url() {
        return url;
    }

    /** @return the URLs dialled at start */
    public List<String> seeds() {
        return seeds;
    }

    /** @return the observed channel globs */
    public List<String> channels() {
        return channels;
    }

    byte[] secret() {
        return secret;
    }

    /** @return how often a link says it is alive */
    public Duration heartbeatInterval() {
        return get(HEARTBEAT_INTERVAL);
    }

    /** @return how long a peer may be silent before it has left */
    public Duration peerTimeout() {
        return get(PEER_TIMEOUT);
    }

    /** @return the largest message a link carries, in bytes */
    public int maxMessageBytes() {
        return get(MAX_MESSAGE_BYTES);
    }

    /** @return the most forwards a link holds unacknowledged */
    public int maxQueue() {
        return get(MAX_QUEUE);
    }

    /** @return the most bytes of forwards a link holds unacknowledged */
    public long maxQueueBytes() {
        return get(MAX_QUEUE_BYTES);
    }

    /** @return the threads that deliver peers' messages to this node's subscribers (1: the link's own thread) */
    public int fanOutLanes() {
        return get(FAN_OUT_LANES);
    }

    /** @return whether plain links to other hosts are allowed ({@code oort.allowPlainLinks}) */
    public boolean allowPlainLinks() {
        return allowPlainLinks;
    }

    /** @return the hosts this node dials, lower case; empty: any */
    public List<String> peerHosts() {
        return peerHosts;
    }

    /** @return the most peer URLs this node keeps */
    public int maxKnownUrls() {
        return get(KNOWN_URLS);
    }

    /**
     * Builds an {@link OortConfig}: each setter checks its key's rule at once, {@link #build()} the URL, the secret
     * and the rules that span keys. A thin layer over {@link TypedConfig.Builder#set}, which embedders may also call
     * with the options of {@link OortConfig#OPTIONS}.
     */
    public static final class Builder extends TypedConfig.Builder<Builder> {
        private String url;
        private byte[] secret;

        Builder(String url) {
            super(OPTIONS);
            this.url = url;
        }

        /**
         * @param url this node's advertised URL ({@link #URL}; checked by {@link #build()}, as it may be given late)
         * @return this builder
         */
        public Builder url(String url) {
            this.url = url;
            return this;
        }

        /**
         * @param seeds the URLs dialled at start ({@link #SEEDS})
         * @return this builder
         */
        public Builder seeds(List<String> seeds) {
            return set(SEEDS, new ArrayList<>(seeds));
        }

        /**
         * @param globs the observed channel globs ({@link #CHANNELS})
         * @return this builder
         */
        public Builder channels(List<String> globs) {
            return set(CHANNELS, new ArrayList<>(globs));
        }

        /**
         * @param secret the shared secret, at least 32 bytes
         * @return this builder
         */
        public Builder secret(byte[] secret) {
            this.secret = secret == null ? null : secret.clone();
            return this;
        }

        /**
         * @param secret the shared secret, at least 32 bytes of UTF-8
         * @return this builder
         */
        public Builder secret(String secret) {
            return secret(secret == null ? null : secret.getBytes(StandardCharsets.UTF_8));
        }

        /**
         * @param interval how often a link says it is alive ({@link #HEARTBEAT_INTERVAL})
         * @return this builder
         */
        public Builder heartbeatInterval(Duration interval) {
            return set(HEARTBEAT_INTERVAL, interval);
        }

        /**
         * @param timeout how long a peer may be silent before it has left ({@link #PEER_TIMEOUT})
         * @return this builder
         */
        public Builder peerTimeout(Duration timeout) {
            return set(PEER_TIMEOUT, timeout);
        }

        /**
         * @param bytes the largest message a link carries ({@link #MAX_MESSAGE_BYTES})
         * @return this builder
         */
        public Builder maxMessageBytes(int bytes) {
            return set(MAX_MESSAGE_BYTES, bytes);
        }

        /**
         * @param count the most messages a link holds unanswered ({@link #MAX_QUEUE})
         * @return this builder
         */
        public Builder maxQueue(int count) {
            return set(MAX_QUEUE, count);
        }

        /**
         * @param bytes the most bytes of messages a link holds unanswered ({@link #MAX_QUEUE_BYTES})
         * @return this builder
         */
        public Builder maxQueueBytes(long bytes) {
            return set(MAX_QUEUE_BYTES, bytes);
        }

        /**
         * @param lanes {@link #FAN_OUT_LANES}
         * @return this builder
         */
        public Builder fanOutLanes(int lanes) {
            return set(FAN_OUT_LANES, lanes);
        }

        /**
         * @param allow {@link #ALLOW_PLAIN_LINKS}: whether links may be plain {@code http://} or {@code ws://} to a
         *        host other than the loopback interface
         * @return this builder
         */
        public Builder allowPlainLinks(boolean allow) {
            return set(ALLOW_PLAIN_LINKS, allow);
        }

        /**
         * @param hosts {@link #PEER_HOSTS}: the only hosts this node dials; empty for any
         * @return this builder
         */
        public Builder peerHosts(List<String> hosts) {
            return set(PEER_HOSTS, new ArrayList<>(hosts));
        }

        /**
         * @param count {@link #KNOWN_URLS}: the most peer URLs this node keeps
         * @return this builder
         */
        public Builder maxKnownUrls(int count) {
            return set(KNOWN_URLS, count);
        }

        /**
         * @param checked a configuration already built
         * @return this builder, with every key and the secret of that configuration
         */
        @SuppressWarnings({"unchecked", "rawtypes"})
        Builder configure(OortConfig checked) {
            for (ConfigOption<?> option : OPTIONS) {
                set((ConfigOption) option, checked.get(option));
            }
            this.url = checked.url();
            return secret(checked.secret());
        }

        /**
         * @return the configuration
         * @throws IllegalArgumentException naming the key and value of the first rule broken
         */
        public OortConfig build() {
            if (url == null || url.isEmpty()) {
                throw new IllegalArgumentException("Invalid Oort configuration: oort.url is missing (an http, https, "
                        + "ws or wss URL of this node's Bayeux endpoint)");
            }
            set(URL, url);
            if (secret == null) {
                throw new IllegalArgumentException("Invalid Oort configuration: oort.secret is missing (a shared secret"
                        + " of at least " + MIN_SECRET_BYTES + " bytes is required; Oort does not start without one)");
            }
            if (secret.length < MIN_SECRET_BYTES) {
                throw new InvalidConfigurationException("oort.secret", "<" + secret.length + " bytes>",
                        "at least " + MIN_SECRET_BYTES + " bytes");
            }
            return new OortConfig(new IdentityHashMap<>(values()), secret.clone());
        }
    }
}
