package org.bayeux.oort;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.bayeux.api.ChannelId;

/**
 * An Oort node's configuration, typed and checked when it is {@link Builder#build() built}: a value that breaks a
 * rule fails with an {@link IllegalArgumentException} that names its key and value (the secret's length only, never
 * the secret).
 *
 * <table>
 *   <caption>Keys</caption>
 *   <tr><th>Key</th><th>Type</th><th>Default</th><th>Meaning</th></tr>
 *   <tr><td>{@code oort.url}</td><td>URL</td><td>required</td><td>This node's Bayeux endpoint as the other nodes
 *       reach it ({@code http(s)://host:port/path}).</td></tr>
 *   <tr><td>{@code oort.seeds}</td><td>URLs</td><td>none</td><td>Nodes dialled at start.</td></tr>
 *   <tr><td>{@code oort.channels}</td><td>globs</td><td>{@code /**}</td><td>The channels whose messages are
 *       forwarded to and accepted from other nodes; {@code *} one segment, {@code **} any.</td></tr>
 *   <tr><td>{@code oort.secret}</td><td>bytes</td><td>required</td><td>The shared secret, at least 32 bytes.</td></tr>
 *   <tr><td>{@code oort.heartbeatInterval}</td><td>Duration</td><td>2 s</td><td>How often a link says it is
 *       alive.</td></tr>
 *   <tr><td>{@code oort.peerTimeout}</td><td>Duration</td><td>10 s</td><td>A peer silent this long has left.</td></tr>
 *   <tr><td>{@code oort.maxMessageBytes}</td><td>int</td><td>512 KiB</td><td>The largest message (its JSON) a link
 *       carries. A forwarded message travels as a JSON string inside a publish, and escaping can double it: keep this
 *       at most half the peers' endpoint {@code maxMessageSizeBytes} (1 MiB by default).</td></tr>
 *   <tr><td>{@code oort.maxQueue}</td><td>int</td><td>10,000</td><td>The most forwards a link holds that its peer
 *       has not acknowledged (kept to be resent if the link flaps); more are not queued (and counted as gaps by the
 *       peer).</td></tr>
 *   <tr><td>{@code oort.maxQueueBytes}</td><td>long</td><td>32 MiB</td><td>The most bytes of forwards a link holds
 *       unacknowledged; more are not queued (and counted as gaps by the peer).</td></tr>
 *   <tr><td>{@code oort.fanOutLanes}</td><td>int</td><td>1</td><td>The threads that deliver the messages of peers
 *       to this node's subscribers, each channel's on one of them (one order per channel, but one origin's messages on
 *       different channels may arrive in another order); 1, the default, delivers them in the origin's order on the
 *       thread that reads the link.</td></tr>
 *   <tr><td>{@code oort.allowPlainLinks}</td><td>boolean</td><td>false</td><td>Whether links may be plain
 *       {@code http://} or {@code ws://} to a peer that is not on the loopback interface (a reader of such a link sees
 *       every message; forwards stay signed). Off: such a URL is refused at start (seeds, this node's URL) and never
 *       dialled (gossip, dial-backs).</td></tr>
 *   <tr><td>{@code oort.peerHosts}</td><td>hosts</td><td>any</td><td>The hosts this node dials, compared exactly
 *       without case; empty: any host.</td></tr>
 *   <tr><td>{@code oort.maxKnownUrls}</td><td>int</td><td>100</td><td>The most peer URLs this node keeps; a URL
 *       gossiped or claimed past it is not dialled.</td></tr>
 * </table>
 */
public final class OortConfig {
    /** The shortest secret accepted, in bytes. */
    public static final int MIN_SECRET_BYTES = 32;
    /** The most fan-out lanes. */
    public static final int MAX_FAN_OUT_LANES = 64;
    /** The highest {@code oort.maxKnownUrls}. */
    public static final int MAX_KNOWN_URLS = 10_000;

    private final String url;
    private final List<String> seeds;
    private final List<String> channels;
    private final byte[] secret;
    private final Duration heartbeatInterval;
    private final Duration peerTimeout;
    private final int maxMessageBytes;
    private final int maxQueue;
    private final long maxQueueBytes;
    private final int fanOutLanes;
    private final boolean allowPlainLinks;
    private final List<String> peerHosts;
    private final int maxKnownUrls;

    private OortConfig(Builder builder) {
        this.url = checkUrl("oort.url", builder.url);
        List<String> checkedSeeds = new ArrayList<>();
        for (String seed : builder.seeds) {
            checkedSeeds.add(checkUrl("oort.seeds", seed));
        }
        this.seeds = List.copyOf(checkedSeeds);
        if (builder.channels.isEmpty()) {
            throw invalid("oort.channels", "[]", "at least one channel glob");
        }
        for (String glob : builder.channels) {
            String problem = glob == null ? "null" : ChannelId.problemWith(glob);
            if (problem != null || glob.startsWith(ChannelId.META_PREFIX) || glob.startsWith(ChannelId.SERVICE_PREFIX)) {
                throw invalid("oort.channels", glob, "a broadcast channel or glob such as /chat/** or /**");
            }
        }
        this.channels = List.copyOf(builder.channels);
        if (builder.secret == null) {
            throw new IllegalArgumentException("Invalid Oort configuration: oort.secret is missing (a shared secret of"
                    + " at least " + MIN_SECRET_BYTES + " bytes is required; Oort does not start without one)");
        }
        if (builder.secret.length < MIN_SECRET_BYTES) {
            throw new IllegalArgumentException("Invalid Oort configuration: oort.secret=<" + builder.secret.length
                    + " bytes> (must be at least " + MIN_SECRET_BYTES + " bytes)");
        }
        this.secret = builder.secret.clone();
        this.heartbeatInterval = checkPositive("oort.heartbeatInterval", builder.heartbeatInterval);
        this.peerTimeout = checkPositive("oort.peerTimeout", builder.peerTimeout);
        if (peerTimeout.compareTo(heartbeatInterval.multipliedBy(2)) < 0) {
            throw invalid("oort.peerTimeout", peerTimeout,
                    "at least twice oort.heartbeatInterval (" + heartbeatInterval + ")");
        }
        if (builder.maxMessageBytes < 1024) {
            throw invalid("oort.maxMessageBytes", builder.maxMessageBytes, "at least 1024");
        }
        this.maxMessageBytes = builder.maxMessageBytes;
        if (builder.maxQueue < 1) {
            throw invalid("oort.maxQueue", builder.maxQueue, "at least 1");
        }
        this.maxQueue = builder.maxQueue;
        if (builder.maxQueueBytes < maxMessageBytes) {
            throw invalid("oort.maxQueueBytes", builder.maxQueueBytes, "at least oort.maxMessageBytes ("
                    + maxMessageBytes + ")");
        }
        this.maxQueueBytes = builder.maxQueueBytes;
        if (builder.fanOutLanes < 1 || builder.fanOutLanes > MAX_FAN_OUT_LANES) {
            throw invalid("oort.fanOutLanes", builder.fanOutLanes, "an integer from 1 to " + MAX_FAN_OUT_LANES);
        }
        this.fanOutLanes = builder.fanOutLanes;
        if (builder.maxKnownUrls < 1 || builder.maxKnownUrls > MAX_KNOWN_URLS) {
            throw invalid("oort.maxKnownUrls", builder.maxKnownUrls, "an integer from 1 to " + MAX_KNOWN_URLS);
        }
        this.maxKnownUrls = builder.maxKnownUrls;
        if (seeds.size() + 1 > maxKnownUrls) {
            throw invalid("oort.maxKnownUrls", maxKnownUrls, "more than the number of oort.seeds (" + seeds.size()
                    + ")");
        }
        List<String> hosts = new ArrayList<>();
        for (String host : builder.peerHosts) {
            if (host == null || host.isBlank() || host.contains("/") || host.contains(":") && !host.startsWith("[")) {
                throw invalid("oort.peerHosts", host, "host names or addresses, such as node1.example.com or 10.0.0.2");
            }
            hosts.add(host.toLowerCase(Locale.ROOT));
        }
        this.peerHosts = List.copyOf(hosts);
        this.allowPlainLinks = builder.allowPlainLinks;
        // Last, so that a plain URL's error does not hide another rule's.
        String urlProblem = refusalOf(url);
        if (urlProblem != null) {
            throw invalid("oort.url", url, urlProblem);
        }
        for (String seed : seeds) {
            String problem = refusalOf(seed);
            if (problem != null) {
                throw invalid("oort.seeds", seed, problem);
            }
        }
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

    private static String checkUrl(String key, String value) {
        if (value == null) {
            throw new IllegalArgumentException("Invalid Oort configuration: " + key + " is missing (an http(s) URL"
                    + " of a Bayeux endpoint)");
        }
        try {
            URI uri = new URI(value);
            String scheme = uri.getScheme();
            if (("http".equals(scheme) || "https".equals(scheme) || "ws".equals(scheme) || "wss".equals(scheme))
                    && uri.getHost() != null) {
                return value;
            }
        } catch (java.net.URISyntaxException e) {
            // reported below
        }
        throw invalid(key, value, "an http(s) URL of a Bayeux endpoint, such as http://host:8080/bayeux");
    }

    private static Duration checkPositive(String key, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw invalid(key, value, "a positive duration");
        }
        return value;
    }

    private static IllegalArgumentException invalid(String key, Object value, String rule) {
        return new IllegalArgumentException("Invalid Oort configuration: " + key + "=" + value + " (must be " + rule
                + ")");
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
        return heartbeatInterval;
    }

    /** @return how long a peer may be silent before it has left */
    public Duration peerTimeout() {
        return peerTimeout;
    }

    /** @return the largest message a link carries, in bytes */
    public int maxMessageBytes() {
        return maxMessageBytes;
    }

    /** @return the most forwards a link holds unacknowledged */
    public int maxQueue() {
        return maxQueue;
    }

    /** @return the most bytes of forwards a link holds unacknowledged */
    public long maxQueueBytes() {
        return maxQueueBytes;
    }

    /** @return the threads that deliver peers' messages to this node's subscribers (1: the link's own thread) */
    public int fanOutLanes() {
        return fanOutLanes;
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
        return maxKnownUrls;
    }

    @Override
    public String toString() {
        return "OortConfig[url=" + url + ", seeds=" + seeds + ", channels=" + channels + ", heartbeatInterval="
                + heartbeatInterval + ", peerTimeout=" + peerTimeout + ", maxMessageBytes=" + maxMessageBytes
                + ", maxQueue=" + maxQueue + ", maxQueueBytes=" + maxQueueBytes + ", fanOutLanes=" + fanOutLanes
                + ", allowPlainLinks=" + allowPlainLinks + ", peerHosts=" + peerHosts + ", maxKnownUrls=" + maxKnownUrls
                + "]";
    }

    /** Builds an {@link OortConfig}; every rule is checked by {@link #build()}. */
    public static final class Builder {
        private String url;
        private List<String> seeds = List.of();
        private List<String> channels = List.of("/**");
        private byte[] secret;
        private Duration heartbeatInterval = Duration.ofSeconds(2);
        private Duration peerTimeout = Duration.ofSeconds(10);
        private int maxMessageBytes = 512 * 1024;
        private int maxQueue = 10_000;
        private long maxQueueBytes = 32L * 1024 * 1024;
        private int fanOutLanes = 1;
        private boolean allowPlainLinks;
        private List<String> peerHosts = List.of();
        private int maxKnownUrls = 100;

        Builder(String url) {
            this.url = url;
        }

        /**
         * @param url this node's advertised URL
         * @return this builder
         */
        public Builder url(String url) {
            this.url = url;
            return this;
        }

        /**
         * @param seeds the URLs dialled at start
         * @return this builder
         */
        public Builder seeds(List<String> seeds) {
            this.seeds = new ArrayList<>(seeds);
            return this;
        }

        /**
         * @param globs the observed channel globs
         * @return this builder
         */
        public Builder channels(List<String> globs) {
            this.channels = new ArrayList<>(globs);
            return this;
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
         * @param interval how often a link says it is alive
         * @return this builder
         */
        public Builder heartbeatInterval(Duration interval) {
            this.heartbeatInterval = interval;
            return this;
        }

        /**
         * @param timeout how long a peer may be silent before it has left
         * @return this builder
         */
        public Builder peerTimeout(Duration timeout) {
            this.peerTimeout = timeout;
            return this;
        }

        /**
         * @param bytes the largest message a link carries
         * @return this builder
         */
        public Builder maxMessageBytes(int bytes) {
            this.maxMessageBytes = bytes;
            return this;
        }

        /**
         * @param count the most messages a link holds unanswered
         * @return this builder
         */
        public Builder maxQueue(int count) {
            this.maxQueue = count;
            return this;
        }

        /**
         * @param bytes the most bytes of messages a link holds unanswered
         * @return this builder
         */
        public Builder maxQueueBytes(long bytes) {
            this.maxQueueBytes = bytes;
            return this;
        }

        /**
         * @param lanes {@code oort.fanOutLanes}
         * @return this builder
         */
        public Builder fanOutLanes(int lanes) {
            this.fanOutLanes = lanes;
            return this;
        }

        /**
         * @param allow {@code oort.allowPlainLinks}: whether links may be plain {@code http://} or {@code ws://} to a
         *        host other than the loopback interface
         * @return this builder
         */
        public Builder allowPlainLinks(boolean allow) {
            this.allowPlainLinks = allow;
            return this;
        }

        /**
         * @param hosts {@code oort.peerHosts}: the only hosts this node dials; empty for any
         * @return this builder
         */
        public Builder peerHosts(List<String> hosts) {
            this.peerHosts = new ArrayList<>(hosts);
            return this;
        }

        /**
         * @param count {@code oort.maxKnownUrls}: the most peer URLs this node keeps
         * @return this builder
         */
        public Builder maxKnownUrls(int count) {
            this.maxKnownUrls = count;
            return this;
        }

        /**
         * @return the configuration
         * @throws IllegalArgumentException naming the key and value of the first rule broken
         */
        public OortConfig build() {
            return new OortConfig(this);
        }
    }
}
