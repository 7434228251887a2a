package org.bayeux.standalone;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.bayeux.backplane.redis.RedisBackplaneConfig;
import org.bayeux.oort.OortSettings;
import org.bayeux.server.config.BayeuxServerConfig;
import org.bayeux.server.config.ConfigOption;
import org.bayeux.transport.http.TransportConfig;

/**
 * Where the standalone server's keys come from, lowest first: the defaults, a properties file
 * ({@code --config FILE}), environment variables ({@code BAYEUX_} and the key in upper snake case:
 * {@code maxQueue} is {@code BAYEUX_MAX_QUEUE}, {@code oort.secretFile} is {@code BAYEUX_OORT_SECRET_FILE}),
 * {@code --set KEY=VALUE}, and the flags that stand for a key ({@code --oort-url} for {@code oort.url}). Each
 * later source overrides the earlier ones key by key; each value remembers where it came from, so that an error
 * can name the file or the variable as well as the key and the value.
 */
final class ConfigSources {
    /** The prefix of the environment variables read. */
    static final String ENV_PREFIX = "BAYEUX_";
    /**
     * {@code BAYEUX_} variables that are not keys and are left alone: {@code JAVA_OPTS}-like settings of the launch
     * script, should it have any. Every other {@code BAYEUX_} variable must name a key: a typo is refused, not
     * ignored.
     */
    static final List<String> NOT_KEYS = List.of("BAYEUX_HOME", "BAYEUX_OPTS");

    /** A value and where it was set: {@code --set}, {@code --config FILE} or {@code BAYEUX_NAME}. */
    record Setting(String value, String origin) {
    }

    private ConfigSources() {
    }

    /** @return every key the standalone server takes, in documentation order, with the table it is listed in */
    static Map<String, String> keys() {
        Map<String, String> keys = new LinkedHashMap<>();
        add(keys, BayeuxServerConfig.OPTIONS, "engine");
        add(keys, TransportConfig.OPTIONS, "transport");
        add(keys, ShutdownSettings.OPTIONS, "shutdown");
        add(keys, OperationsConfig.OPTIONS, "operations");
        add(keys, RedisBackplaneConfig.OPTIONS, "backplane");
        add(keys, OortSettings.OPTIONS, "oort");
        return keys;
    }

    private static void add(Map<String, String> keys, List<ConfigOption<?>> options, String table) {
        options.forEach(option -> keys.put(option.key(), table));
    }

    /**
     * @param key a key, such as {@code maxQueue} or {@code oort.secretFile}
     * @return its environment variable, such as {@code BAYEUX_MAX_QUEUE}
     */
    static String envName(String key) {
        StringBuilder name = new StringBuilder(ENV_PREFIX);
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (Character.isUpperCase(c) && i > 0 && key.charAt(i - 1) != '.') {
                name.append('_');
            }
            name.append(c == '.' || c == '-' ? '_' : Character.toUpperCase(c));
        }
        return name.toString();
    }

    /**
     * Merges the sources: the file's keys, then the environment's, then {@code --set}'s, each over the last.
     *
     * @param file the properties file, or null
     * @param env the environment
     * @param sets the {@code --set KEY=VALUE} arguments, in order
     * @return each key's value and origin, in the order the keys were first met
     * @throws IllegalArgumentException naming the file, variable or argument that is wrong
     */
    static Map<String, Setting> merge(Path file, Map<String, String> env, List<String> sets) {
        Map<String, Setting> merged = new LinkedHashMap<>();
        if (file != null) {
            readFile(file).forEach((key, value) -> merged.put(key, new Setting(value, "--config " + file)));
        }
        Map<String, String> byEnvName = new LinkedHashMap<>();
        keys().keySet().forEach(key -> byEnvName.put(envName(key), key));
        byEnvName.put(envName("oort.secret"), "oort.secret"); // refused with the reason, not as unknown
        byEnvName.put(envName("redisPassword"), "redisPassword"); // likewise
        List<String> names = new ArrayList<>(env.keySet());
        names.sort(null); // one order whatever the map's, so that the first error is always the same
        for (String name : names) {
            if (!name.startsWith(ENV_PREFIX) || NOT_KEYS.contains(name)) {
                continue;
            }
            String key = byEnvName.get(name);
            if (key == null) {
                throw new IllegalArgumentException(name + ": not a configuration variable (BAYEUX_ and a key in "
                        + "upper snake case, e.g. BAYEUX_MAX_QUEUE for maxQueue); see docs/configuration.md");
            }
            merged.put(key, new Setting(env.get(name), name));
        }
        for (String setting : sets) {
            int equals = setting.indexOf('=');
            if (equals <= 0) {
                throw new IllegalArgumentException("--set " + setting + ": expected KEY=VALUE");
            }
            merged.put(setting.substring(0, equals), new Setting(setting.substring(equals + 1), "--set"));
        }
        return merged;
    }

    private static Map<String, String> readFile(Path file) {
        Properties properties = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(in);
        } catch (IOException | IllegalArgumentException unreadable) {
            throw new IllegalArgumentException("--config " + file + ": cannot be read as a properties file ("
                    + unreadable.getMessage() + ")", unreadable);
        }
        Map<String, String> settings = new LinkedHashMap<>();
        properties.stringPropertyNames().stream().sorted().forEach(key -> settings.put(key.trim(),
                properties.getProperty(key)));
        return settings;
    }

    /**
     * @return the Markdown table of how each key is set: its {@code --set}/file key, its environment variable, and
     *         the table that documents it
     */
    static String markdownTable() {
        StringBuilder table = new StringBuilder("| Key (`--set KEY=VALUE`, `--config` file) | Environment variable "
                + "| Documented in |\n|---|---|---|\n");
        keys().forEach((key, where) -> table.append("| `").append(key).append("` | `").append(envName(key))
                .append("` | ").append(DOCUMENTED.get(where)).append(" |\n"));
        return table.toString();
    }

    private static final Map<String, String> DOCUMENTED = Map.of(
            "engine", "[engine keys](#keys)",
            "transport", "[transport keys](#transport-keys)",
            "shutdown", "[standalone server keys](#standalone-server-keys)",
            "operations", "[operations keys](#operations-keys)",
            "backplane", "[cluster.md](cluster.md#redis-backplane)",
            "oort", "[cluster.md](cluster.md#oort)");
}
