package org.bayeux.backplane.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.bayeux.api.ChannelId;
import org.bayeux.server.config.ConfigOption;

/**
 * Which channels keep a history, and how much: the first rule whose pattern matches the channel; a channel no rule
 * matches keeps none (history is opt-in: a history is readable by recovering subscribers, and takes Redis memory per
 * channel name). Rules are written {@code <pattern>=<size>/<age>} or just {@code <pattern>} (then
 * {@link RedisBackplaneConfig#HISTORY_SIZE} and {@link RedisBackplaneConfig#HISTORY_AGE}), separated by commas, for
 * example {@code /chat/**=1000/10m, /chat/noisy=0/1s, /news/*}; a pattern is a channel name or a wildcard
 * ({@code /a/*}, {@code /a/**}); a size of 0 keeps none (an exception to a wider rule after it). A channel without
 * history has no position: its messages carry none, and its subscribes are not recovered.
 *
 * <p>With the session store (failover), every plain channel keeps at least a failover history
 * ({@link RedisBackplaneConfig#FAILOVER_HISTORY_MAX_LENGTH}, {@link RedisBackplaneConfig#FAILOVER_HISTORY_AGE}), and
 * so has positions, so that a session another node adopts resumes from it ({@link #storedRuleFor}); a client's own
 * recovery still reads only the channels a rule names ({@link #keepsHistory}).</p>
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
    private final Rule none = new Rule(ChannelId.of("/**"), 0, MIN_AGE);
    /** With the session store: the least every plain channel keeps, for failover; null without it. */
    private final Rule failover;

    /**
     * @param rules as {@link #parse} made them, a size or age of -1 / null standing for the defaults
     * @param defaultSize the size of a rule that names none
     * @param defaultAge the age of a rule that names none
     */
    HistoryRules(List<Rule> rules, int defaultSize, Duration defaultAge) {
        this(rules, defaultSize, defaultAge, 0, null);
    }

    /**
     * @param rules as {@link #parse} made them, a size or age of -1 / null standing for the defaults
     * @param defaultSize the size of a rule that names none
     * @param defaultAge the age of a rule that names none
     * @param failoverSize with the session store, the least every plain channel's history keeps
     *        ({@link RedisBackplaneConfig#FAILOVER_HISTORY_MAX_LENGTH}); 0 without it
     * @param failoverAge with the session store, the least age every plain channel's history keeps
     *        ({@link RedisBackplaneConfig#FAILOVER_HISTORY_AGE}); null without it
     */
    HistoryRules(List<Rule> rules, int defaultSize, Duration defaultAge, int failoverSize, Duration failoverAge) {
        this.failover = failoverSize > 0 && failoverAge != null ? new Rule(ChannelId.of("/**"), failoverSize,
                failoverAge) : null;
        List<Rule> resolved = new ArrayList<>();
        for (Rule rule : rules) {
            resolved.add(rule.size() < 0 ? new Rule(rule.pattern(), defaultSize, defaultAge) : rule);
        }
        this.rules = List.copyOf(resolved);
    }

    /** @return true if some rule keeps a history (else recovery is not offered at all) */
    boolean any() {
        for (Rule rule : rules) {
            if (rule.size() > 0) {
                return true;
            }
        }
        return false;
    }

    /** @return true if every plain channel keeps a failover history (the session store is on) */
    boolean failover() {
        return failover != null;
    }

    /**
     * @return the bounds the publish script keeps a plain channel's history within: its rule's, raised to the
     *         failover history's with the session store (even for a channel no rule names, or one a rule turns off:
     *         an adopted session resumes from it); what a client's own recovery may ask is still
     *         {@link #keepsHistory}
     */
    Rule storedRuleFor(String channel) {
        Rule rule = ruleFor(channel);
        if (failover == null) {
            return rule;
        }
        return new Rule(rule.pattern(), Math.max(rule.size(), failover.size()),
                rule.size() > 0 && rule.age().compareTo(failover.age()) > 0 ? rule.age() : failover.age());
    }

    /** @return true if the channel keeps a history a client's own recovery may read (a rule names it) */
    boolean keepsHistory(String channel) {
        return ruleFor(channel).size() > 0;
    }

    /** @return the rule of a plain channel: the first that matches, else one of size 0 (no history) */
    Rule ruleFor(String channel) {
        if (!rules.isEmpty()) {
            ChannelId id = ChannelId.of(channel);
            for (Rule rule : rules) {
                if (rule.pattern().matches(id)) {
                    return rule;
                }
            }
        }
        return none;
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
     * @param text rules as {@code <pattern>=<size>/<age>} or {@code <pattern>}, separated by commas; blank for none
     * @return the rules, in order (size -1 and age null: the defaults)
     * @throws IllegalArgumentException naming the rule that is wrong
     */
    static List<Rule> parse(String text) {
        List<Rule> parsed = new ArrayList<>();
        if (text == null || text.isBlank()) {
            return parsed;
        }
        for (String part : text.split(",")) {
            String rule = part.trim();
            if (rule.indexOf('=') < 0) {
                if (!ChannelId.isValid(rule) || ChannelId.of(rule).isMeta() || ChannelId.of(rule).isService()) {
                    throw new IllegalArgumentException("not a broadcast channel pattern: " + rule);
                }
                parsed.add(new Rule(ChannelId.of(rule), -1, null));
                continue;
            }
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
