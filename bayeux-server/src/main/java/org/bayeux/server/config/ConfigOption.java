package org.bayeux.server.config;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * One configuration key: its name, type, default, rule and description. The same descriptor parses the key from
 * text, validates it, and documents it in {@code docs/configuration.md}.
 *
 * @param <T> the value type
 */
public final class ConfigOption<T> {
    private final String key;
    private final Class<T> type;
    private final T defaultValue;
    private final Function<String, T> parser;
    private final Predicate<T> rule;
    private final String ruleText;
    private final String description;
    /** The part of a bad value an error names, such as the one item of a list that breaks the rule; null: all of it. */
    private final Function<T, String> culprit;

    private ConfigOption(String key, Class<T> type, T defaultValue, Function<String, T> parser, Predicate<T> rule,
            String ruleText, String description) {
        this(key, type, defaultValue, parser, rule, ruleText, description, null);
    }

    private ConfigOption(String key, Class<T> type, T defaultValue, Function<String, T> parser, Predicate<T> rule,
            String ruleText, String description, Function<T, String> culprit) {
        this.culprit = culprit;
        this.key = key;
        this.type = type;
        this.defaultValue = defaultValue;
        this.parser = parser;
        this.rule = rule;
        this.ruleText = ruleText;
        this.description = description;
    }

    /**
     * @param key the key
     * @param defaultValue the default
     * @param rule what a value must satisfy
     * @param ruleText the rule in words, for errors and docs
     * @param description what the key controls
     * @return a duration option
     */
    public static ConfigOption<Duration> duration(String key, Duration defaultValue, Predicate<Duration> rule, String ruleText,
            String description) {
        return new ConfigOption<>(key, Duration.class, defaultValue, ConfigOption::parseDuration, rule, ruleText, description);
    }

    /**
     * @param key the key
     * @param defaultValue the default
     * @param rule what a value must satisfy
     * @param ruleText the rule in words, for errors and docs
     * @param description what the key controls
     * @return an integer option
     */
    public static ConfigOption<Integer> integer(String key, int defaultValue, Predicate<Integer> rule, String ruleText,
            String description) {
        return new ConfigOption<>(key, Integer.class, defaultValue, text -> Integer.valueOf(text.trim()), rule, ruleText,
                description);
    }

    /**
     * A size in bytes that may pass 2 GiB, written as a whole number of bytes.
     *
     * @param key the key
     * @param defaultValue the default
     * @param rule what a value must satisfy
     * @param ruleText the rule in words, for errors and docs
     * @param description what the key controls
     * @return a size option
     */
    public static ConfigOption<Long> size(String key, long defaultValue, Predicate<Long> rule, String ruleText,
            String description) {
        return new ConfigOption<>(key, Long.class, defaultValue, text -> Long.valueOf(text.trim()), rule, ruleText,
                description);
    }

    /**
     * @param key the key
     * @param defaultValue the default
     * @param description what the key controls
     * @return a boolean option
     */
    public static ConfigOption<Boolean> bool(String key, boolean defaultValue, String description) {
        return new ConfigOption<>(key, Boolean.class, defaultValue, ConfigOption::parseBoolean, value -> true, "true or false",
                description);
    }

    /**
     * @param key the key
     * @param defaultValue the default
     * @param rule what a value must satisfy
     * @param ruleText the rule in words, for errors and docs
     * @param description what the key controls
     * @return a text option
     */
    public static ConfigOption<String> text(String key, String defaultValue, Predicate<String> rule, String ruleText,
            String description) {
        return new ConfigOption<>(key, String.class, defaultValue, String::trim, rule, ruleText, description);
    }

    /**
     * @param key the key
     * @param type the enum type
     * @param defaultValue the default
     * @param description what the key controls
     * @param <E> the enum type
     * @return an option whose value is one of the enum's constants
     */
    public static <E extends Enum<E>> ConfigOption<E> choice(String key, Class<E> type, E defaultValue, String description) {
        StringBuilder names = new StringBuilder();
        for (E constant : type.getEnumConstants()) {
            names.append(names.length() == 0 ? "" : ", ").append(constant.name());
        }
        return new ConfigOption<>(key, type, defaultValue,
                text -> Enum.valueOf(type, text.trim().toUpperCase(Locale.ROOT).replace('-', '_')), value -> true,
                "one of " + names, description);
    }

    /**
     * A list of words, written comma-separated in text.
     *
     * @param key the key
     * @param defaultValue the default
     * @param description what the key controls
     * @return a list option
     */
    public static ConfigOption<java.util.List<String>> list(String key, java.util.List<String> defaultValue,
            String description) {
        return list(key, defaultValue, item -> true, "comma-separated words", description);
    }

    /**
     * A list of words, written comma-separated in text, each of which must follow a rule; an error names the first
     * item that breaks it, not the whole list.
     *
     * @param key the key
     * @param defaultValue the default
     * @param itemRule what each item must satisfy (a null item breaks every rule)
     * @param ruleText the rule in words, for errors and docs
     * @param description what the key controls
     * @return a list option
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public static ConfigOption<java.util.List<String>> list(String key, java.util.List<String> defaultValue,
            Predicate<String> itemRule, String ruleText, String description) {
        Predicate<String> item = word -> word != null && itemRule.test(word);
        return new ConfigOption<>(key, (Class) java.util.List.class, defaultValue, text -> {
            java.util.List<String> items = new java.util.ArrayList<>();
            for (String word : text.split(",")) {
                if (!word.isBlank()) {
                    items.add(word.trim());
                }
            }
            return java.util.List.copyOf(items);
        }, (java.util.List<String> words) -> words.stream().allMatch(item), ruleText, description,
                (java.util.List<String> words) -> firstBreaking(words, item));
    }

    private static String firstBreaking(java.util.List<String> words, Predicate<String> item) {
        for (String word : words) {
            if (!item.test(word)) {
                return String.valueOf(word);
            }
        }
        return String.valueOf(words);
    }

    /**
     * Parses a duration: a whole number of milliseconds ({@code 30000}), a number with a unit ({@code 500ms},
     * {@code 30s}, {@code 5m}, {@code 1h}), or ISO-8601 ({@code PT30S}).
     *
     * @param text the text
     * @return the duration
     * @throws IllegalArgumentException if the text is none of these
     */
    public static Duration parseDuration(String text) {
        String value = text.trim().toLowerCase(Locale.ROOT);
        if (value.startsWith("pt") || value.startsWith("p")) {
            return Duration.parse(value.toUpperCase(Locale.ROOT));
        }
        int unitStart = 0;
        while (unitStart < value.length() && (Character.isDigit(value.charAt(unitStart)) || value.charAt(unitStart) == '-')) {
            unitStart++;
        }
        if (unitStart == 0) {
            throw new IllegalArgumentException("not a duration");
        }
        long amount = Long.parseLong(value.substring(0, unitStart));
        switch (value.substring(unitStart).trim()) {
            case "":
            case "ms":
                return Duration.ofMillis(amount);
            case "s":
                return Duration.ofSeconds(amount);
            case "m":
            case "min":
                return Duration.ofMinutes(amount);
            case "h":
                return Duration.ofHours(amount);
            default:
                throw new IllegalArgumentException("unknown unit; use ms, s, m or h");
        }
    }

    private static Boolean parseBoolean(String text) {
        String value = text.trim().toLowerCase(Locale.ROOT);
        if (value.equals("true") || value.equals("false")) {
            return Boolean.valueOf(value);
        }
        throw new IllegalArgumentException("not true or false");
    }

    /** @return the key, as written in configuration */
    public String key() {
        return key;
    }

    /** @return the Java type of the value */
    public Class<T> type() {
        return type;
    }

    /** @return the value used when the key is not set */
    public T defaultValue() {
        return defaultValue;
    }

    /** @return the rule a value must follow, in words */
    public String ruleText() {
        return ruleText;
    }

    /** @return what the key controls */
    public String description() {
        return description;
    }

    /** @return the default as written in configuration text */
    @SuppressWarnings("unchecked")
    public String defaultText() {
        if (defaultValue instanceof java.util.List) {
            return String.join(",", (java.util.List<String>) defaultValue);
        }
        if (defaultValue instanceof Duration) {
            return ((Duration) defaultValue).toMillis() + "ms";
        }
        return String.valueOf(defaultValue);
    }

    /**
     * @param text the value as text
     * @return the parsed, validated value
     * @throws InvalidConfigurationException naming this key and the bad value
     */
    public T parse(String text) {
        T value;
        try {
            value = parser.apply(Objects.requireNonNull(text, "value"));
        } catch (RuntimeException failure) {
            throw new InvalidConfigurationException(key, text, ruleText + " (" + failure.getMessage() + ")");
        }
        if (!rule.test(value)) {
            throw new InvalidConfigurationException(key, culprit == null ? text : culprit.apply(value),
                    ruleText);
        }
        return value;
    }

    /**
     * @param value a typed value
     * @return the value, if it follows the rule
     * @throws InvalidConfigurationException naming this key and the bad value
     */
    public T validate(T value) {
        if (value == null || !rule.test(value)) {
            throw new InvalidConfigurationException(key, value == null || culprit == null ? String.valueOf(value)
                    : culprit.apply(value), ruleText);
        }
        return value;
    }
}
