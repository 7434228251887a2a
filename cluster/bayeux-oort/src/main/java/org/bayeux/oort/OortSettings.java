package org.bayeux.oort;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.bayeux.server.config.ConfigOption;
import org.bayeux.server.config.ConfigOptions;
import org.bayeux.server.config.InvalidConfigurationException;
import org.bayeux.server.config.SecretFileReader;

/**
 * Oort's configuration as text keys ({@code oort.url=…}), for the standalone server's {@code --oort-*} flags and
 * {@code --set}: each key parsed and checked with the engine's {@link ConfigOption}s, then every rule of
 * {@link OortConfig} checked at once by {@link #toConfig()}. A bad value fails naming its key and value; for the
 * secret, which is read from a file ({@code oort.secretFile}) and never given on a command line, the file and its
 * length only.
 *
 * <p>The table of keys in {@code docs/cluster.md} is generated from {@link #OPTIONS} ({@link #markdownTable()}).</p>
 */
public final class OortSettings {
    /** This node's advertised URL: required, it turns Oort on. */
    public static final ConfigOption<String> URL = ConfigOption.text("oort.url", "", OortSettings::isUrl,
            "an http(s) URL of this node's Bayeux endpoint",
            "This node's Bayeux endpoint as the other nodes reach it (`--oort-url`). Required: giving it turns Oort on. "
                    + "Port 0 in it stands for the port the server bound (with `--port 0`).");
    /** The URLs dialled at start. */
    public static final ConfigOption<List<String>> SEEDS = ConfigOption.list("oort.seeds", List.of(),
            "Nodes dialled at start, comma-separated (`--oort-seeds`); this node's own URL is skipped.");
    /** The observed channel globs. */
    public static final ConfigOption<List<String>> CHANNELS = ConfigOption.list("oort.channels", List.of("/**"),
            "The channels forwarded to and accepted from other nodes, comma-separated globs (`--oort-channels`; "
                    + "`*` one segment, `**` any; no meta or service channel).");
    /** The file holding the shared secret. */
    public static final ConfigOption<String> SECRET_FILE = ConfigOption.text("oort.secretFile", "",
            file -> !file.isEmpty(), "a readable file",
            "A file holding the shared secret (`--oort-secret-file`), the same on every node: at least "
                    + OortConfig.MIN_SECRET_BYTES + " bytes once a trailing line break is cut. Required with "
                    + "`oort.url`; the secret is never logged.");
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
    public static final ConfigOption<Integer> MAX_QUEUE_BYTES = ConfigOption.integer("oort.maxQueueBytes",
            32 * 1024 * 1024, n -> n >= 1024, "an integer of at least oort.maxMessageBytes",
            "The most bytes of forwards a link holds unacknowledged; past it a forward is not queued for that peer.");

    /** The threads that deliver peers' messages. */
    public static final ConfigOption<Integer> FAN_OUT_LANES = ConfigOption.integer("oort.fanOutLanes", 1,
            n -> n >= 1 && n <= OortConfig.MAX_FAN_OUT_LANES, "an integer from 1 to " + OortConfig.MAX_FAN_OUT_LANES,
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
            "The only hosts this node dials, comma-separated, compared exactly without case (seeds, gossiped URLs, "
                    + "dial-backs); empty: any host. A peer on another host never joins: it is never dialled back.");
    /** The most peer URLs kept. */
    public static final ConfigOption<Integer> MAX_KNOWN_URLS = ConfigOption.integer("oort.maxKnownUrls", 100,
            n -> n >= 1 && n <= OortConfig.MAX_KNOWN_URLS, "an integer from 1 to " + OortConfig.MAX_KNOWN_URLS
                    + ", more than the seeds",
            "The most peer URLs this node keeps (seeds, members, gossiped); a URL gossiped or claimed past it is not "
                    + "dialled. URLs no member lists any more, not seeds and not joined, are forgotten.");

    /** Every key, in documentation order. */
    public static final List<ConfigOption<?>> OPTIONS = List.of(URL, SEEDS, CHANNELS, SECRET_FILE, HEARTBEAT_INTERVAL,
            PEER_TIMEOUT, MAX_MESSAGE_BYTES, MAX_QUEUE, MAX_QUEUE_BYTES, FAN_OUT_LANES, ALLOW_PLAIN_LINKS, PEER_HOSTS,
            MAX_KNOWN_URLS);

    private final Map<ConfigOption<?>, Object> values;

    private OortSettings(Map<ConfigOption<?>, Object> values) {
        this.values = values;
    }

    /**
     * @param key a key
     * @return whether it is one of {@link #OPTIONS}
     */
    public static boolean isKey(String key) {
        return OPTIONS.stream().anyMatch(option -> option.key().equals(key));
    }

    /**
     * Parses the settings; {@link #toConfig()} checks the rules that span keys and reads the secret.
     *
     * @param settings key to text value, keys from {@link #OPTIONS}
     * @return the settings
     * @throws InvalidConfigurationException for an unknown key or a bad value, naming both
     */
    public static OortSettings fromMap(Map<String, String> settings) {
        return new OortSettings(ConfigOptions.parse(OPTIONS, settings));
    }

    /** @return the table of {@link #OPTIONS} for {@code docs/cluster.md} ("required" for the URL and the secret) */
    public static String markdownTable() {
        StringBuilder table = new StringBuilder("| Key | Type | Default | Allowed | Meaning |\n|---|---|---|---|---|\n");
        for (ConfigOption<?> option : OPTIONS) {
            String defaultText = option.defaultText();
            table.append("| `").append(option.key()).append("` | ").append(option.type().getSimpleName())
                    .append(" | ").append(option == URL || option == SECRET_FILE ? "required"
                            : defaultText.isEmpty() ? "none" : "`" + defaultText + "`")
                    .append(" | ").append(option.ruleText()).append(" | ").append(option.description()).append(" |\n");
        }
        return table.toString();
    }

    @SuppressWarnings("unchecked")
    private <T> T get(ConfigOption<T> option) {
        return (T) values.get(option);
    }

    /** @return {@code oort.url} as given (port 0 not yet replaced) */
    public String url() {
        return get(URL);
    }

    /**
     * @return the whole configuration, every rule checked and the secret read
     * @throws IllegalArgumentException naming the first key broken (the secret file and its length only)
     */
    public OortConfig toConfig() {
        return toConfig(url());
    }

    /**
     * @param url the advertised URL to use instead of {@code oort.url} (the standalone server's, with port 0
     *        replaced by the port bound)
     * @return the whole configuration, every rule checked and the secret read
     * @throws IllegalArgumentException naming the first key broken (the secret file and its length only)
     */
    public OortConfig toConfig(String url) {
        if (url.isEmpty()) {
            throw new IllegalArgumentException("Invalid Oort configuration: oort.url is missing (give --oort-url "
                    + "URL, this node's Bayeux endpoint as the other nodes reach it)");
        }
        return apply(OortConfig.builder(url)).build();
    }

    /**
     * @param builder an Oort node's builder
     * @param url the advertised URL (see {@link #toConfig(String)})
     * @return the builder with every setting applied, the secret read from its file
     */
    public Oort.Builder apply(Oort.Builder builder, String url) {
        toConfig(url); // every rule, with the errors OortSettings words, before the builder checks them again
        return builder.url(url).seeds(get(SEEDS)).channels(get(CHANNELS)).secret(readSecret())
                .heartbeatInterval(get(HEARTBEAT_INTERVAL)).peerTimeout(get(PEER_TIMEOUT))
                .maxMessageBytes(get(MAX_MESSAGE_BYTES)).maxQueue(get(MAX_QUEUE)).maxQueueBytes(get(MAX_QUEUE_BYTES))
                .fanOutLanes(get(FAN_OUT_LANES)).allowPlainLinks(get(ALLOW_PLAIN_LINKS)).peerHosts(get(PEER_HOSTS))
                .maxKnownUrls(get(MAX_KNOWN_URLS));
    }

    private OortConfig.Builder apply(OortConfig.Builder builder) {
        return builder.seeds(get(SEEDS)).channels(get(CHANNELS)).secret(readSecret())
                .heartbeatInterval(get(HEARTBEAT_INTERVAL)).peerTimeout(get(PEER_TIMEOUT))
                .maxMessageBytes(get(MAX_MESSAGE_BYTES)).maxQueue(get(MAX_QUEUE)).maxQueueBytes(get(MAX_QUEUE_BYTES))
                .fanOutLanes(get(FAN_OUT_LANES)).allowPlainLinks(get(ALLOW_PLAIN_LINKS)).peerHosts(get(PEER_HOSTS))
                .maxKnownUrls(get(MAX_KNOWN_URLS));
    }

    /** Reads the secret file; one trailing line break (LF or CRLF), as editors and {@code echo} add, is cut. */
    private byte[] readSecret() {
        String file = get(SECRET_FILE);
        if (file.isEmpty()) {
            throw new IllegalArgumentException("Invalid Oort configuration: oort.secretFile is missing (give "
                    + "--oort-secret-file FILE, a file holding the shared secret of at least "
                    + OortConfig.MIN_SECRET_BYTES + " bytes; Oort does not start without one)");
        }
        byte[] secret = SecretFileReader.read(SECRET_FILE.key(), Path.of(file));
        int length = secret.length;
        if (length < OortConfig.MIN_SECRET_BYTES) {
            throw new IllegalArgumentException("Invalid Oort configuration: oort.secretFile=" + file + " holds "
                    + length + " bytes (the secret must be at least " + OortConfig.MIN_SECRET_BYTES + " bytes)");
        }
        return secret;
    }

    private static boolean isUrl(String text) {
        try {
            java.net.URI uri = new java.net.URI(text);
            String scheme = uri.getScheme();
            return ("http".equals(scheme) || "https".equals(scheme)) && uri.getHost() != null;
        } catch (java.net.URISyntaxException bad) {
            return false;
        }
    }
}
