package org.bayeux.oort;

import java.nio.file.Path;
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
    /** The file holding the shared secret: the one text key that is not an {@link OortConfig} option. */
    public static final ConfigOption<String> SECRET_FILE = ConfigOption.text("oort.secretFile", "",
            file -> !file.isEmpty(), "a readable file",
            "A file holding the shared secret (`--oort-secret-file`), the same on every node: at least "
                    + OortConfig.MIN_SECRET_BYTES + " bytes once a trailing line break is cut. Required with "
                    + "`oort.url`; the secret is never logged.");

    /** Every key, in documentation order: {@link OortConfig#OPTIONS} with the secret's file after the channels. */
    public static final List<ConfigOption<?>> OPTIONS = List.of(OortConfig.URL, OortConfig.SEEDS, OortConfig.CHANNELS,
            SECRET_FILE, OortConfig.HEARTBEAT_INTERVAL, OortConfig.PEER_TIMEOUT, OortConfig.MAX_MESSAGE_BYTES,
            OortConfig.MAX_QUEUE, OortConfig.MAX_QUEUE_BYTES, OortConfig.FAN_OUT_LANES, OortConfig.ALLOW_PLAIN_LINKS,
            OortConfig.PEER_HOSTS, OortConfig.KNOWN_URLS);

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
                    .append(" | ").append(option == OortConfig.URL || option == SECRET_FILE ? "required"
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
        return get(OortConfig.URL);
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
        return builder.configure(toConfig(url)); // every rule checked now, before the engine is touched
    }

    /** Sets every typed key given as text on the builder; each is already checked against its own rule. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private OortConfig.Builder apply(OortConfig.Builder builder) {
        for (ConfigOption<?> option : OortConfig.OPTIONS) {
            if (option != OortConfig.URL) {
                builder.set((ConfigOption) option, values.get(option));
            }
        }
        return builder.secret(readSecret());
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
}
