package org.bayeux.backplane.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.bayeux.api.ChannelId;
import org.bayeux.server.config.ConfigOption;

/**
 * How much history each channel keeps: the first rule whose pattern matches the channel, else the defaults
 * ({@link RedisBackplaneConfig#HISTORY_SIZE}, {@link RedisBackplaneConfig#HISTORY_AGE}). Rules are written
 * {@code <pattern>=<size>/<age>} separated by commas, for example {@code /chat/**=1000/10m, /ticks/*=0/1s}; a
 * pattern is a channel name or a wildcard ({@code /a/*}, {@code /a/**}); a size of 0 keeps no history (offsets and
 * epochs are still kept, so a client away while nothing was published still recovers).
 */
final class HistoryRules {
    /** The most messages one channel's history may keep. */
    static final int MAX_SIZE = 1_000_000;
    static final Duration MIN_AGE = Duration.ofSeconds(1);
    static final Duration MAX_AGE = Duration.ofDays(30);

    /** One rule: a channel pattern and its history's bounds. */
    record Rule(ChannelId pattern, int size, Duration age) {
    }

    private final List<Rule> rules;
    private final Rule fallback;

    HistoryRules(List<Rule> rules, int defaultSize, Duration defaultAge) {
        this.rules = List.copyOf(rules);
        this.fallback = new Rule(ChannelId.of("/**"), defaultSize, defaultAge);
    }

    /** @return the rule of a plain channel: the first that matches, else the defaults */
    Rule ruleFor(String channel) {
        if (!rules.isEmpty()) {
            ChannelId id = ChannelId.of(channel);
            for (Rule rule : rules) {
                if (rule.pattern().matches(id)) {
                    return rule;
                }
            }
        }
        return fallback;
    }

    /** @return true if the text is a valid list of rules */
    static boolean isValid(String text) {
        try {
            parse(text);
            return true;
        } catch (IllegalArgumentException invalid) {
            return false;
        }
    }

    /**
     * @param text rules as {@code <pattern>=<size>/<age>, ...}; blank for none
     * @return the rules, in order
     * @throws IllegalArgumentException naming the rule that is wrong
     */
    static List<Rule> parse(String text) {
        List<Rule> parsed = new ArrayList<>();
        if (text == null || text.isBlank()) {
            return parsed;
        }
        for (String part : text.split(",")) {
            String rule = part.trim();
            int equals = rule.indexOf('=');
            int slash = rule.lastIndexOf('/');
            if (equals <= 0 || slash <= equals) {
                throw new IllegalArgumentException("not <pattern>=<size>/<age>: " + rule);
            }
            String pattern = rule.substring(0, equals).trim();
            if (!ChannelId.isValid(pattern) || ChannelId.of(pattern).isMeta() || ChannelId.of(pattern).isService()) {
                throw new IllegalArgumentException("not a broadcast channel pattern: " + pattern);
            }
            int size;
            Duration age;
            try {
                size = Integer.parseInt(rule.substring(equals + 1, slash).trim());
                age = ConfigOption.parseDuration(rule.substring(slash + 1).trim());
            } catch (RuntimeException bad) {
                throw new IllegalArgumentException("not <pattern>=<size>/<age>: " + rule, bad);
            }
            if (size < 0 || size > MAX_SIZE || age.compareTo(MIN_AGE) < 0 || age.compareTo(MAX_AGE) > 0) {
                throw new IllegalArgumentException("size must be 0 to " + MAX_SIZE + " and age 1s to 30d: " + rule);
            }
            parsed.add(new Rule(ChannelId.of(pattern), size, age));
        }
        return parsed;
    }
}
