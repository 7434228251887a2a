package org.bayeux.server.config;

import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What every typed configuration (the engine's, the transports') does with its list of {@link ConfigOption}s:
 * read them from text and document them.
 */
public final class ConfigOptions {
    private ConfigOptions() {
    }

    /**
     * @param options the known options
     * @return each option mapped to its default
     */
    public static Map<ConfigOption<?>, Object> defaults(List<ConfigOption<?>> options) {
        Map<ConfigOption<?>, Object> values = new IdentityHashMap<>();
        options.forEach(option -> values.put(option, option.defaultValue()));
        return values;
    }

    /**
     * Reads text settings over the defaults.
     *
     * @param options the known options
     * @param settings key to text value
     * @return each option mapped to its value
     * @throws InvalidConfigurationException for an unknown key or a bad value
     */
    public static Map<ConfigOption<?>, Object> parse(List<ConfigOption<?>> options, Map<String, String> settings) {
        Map<ConfigOption<?>, Object> values = defaults(options);
        Map<String, ConfigOption<?>> byKey = new LinkedHashMap<>();
        options.forEach(option -> byKey.put(option.key(), option));
        settings.forEach((key, text) -> {
            ConfigOption<?> option = byKey.get(key);
            if (option == null) {
                throw new InvalidConfigurationException(key, text, "a known key: " + byKey.keySet());
            }
            values.put(option, option.parse(text));
        });
        return values;
    }

    /**
     * @param options the options
     * @return a Markdown table with a row per option: key, type, default, rule and meaning
     */
    public static String markdownTable(List<ConfigOption<?>> options) {
        StringBuilder table = new StringBuilder("| Key | Type | Default | Allowed | Meaning |\n|---|---|---|---|---|\n");
        for (ConfigOption<?> option : options) {
            table.append("| `").append(option.key()).append("` | ").append(option.type().getSimpleName())
                    .append(" | `").append(option.defaultText()).append("` | ").append(option.ruleText())
                    .append(" | ").append(option.description()).append(" |\n");
        }
        return table.toString();
    }
}
