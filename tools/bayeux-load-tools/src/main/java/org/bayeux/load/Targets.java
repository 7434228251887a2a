package org.bayeux.load;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code --target NAME=LIMIT} options: a latency percentile at most a duration, or a count (lost, duplicated,
 * errors) at most a number; each is passed or failed against the result, for the report.
 */
final class Targets {
    private static final Set<String> LATENCY = Set.of("p50", "p90", "p99", "p99.9", "max");
    private static final Set<String> COUNTS = Set.of("lost", "duplicated", "errors");

    private Targets() {
    }

    /** @return null when {@code target} is well formed, else what is wrong with it, naming the option and value */
    static String problem(String target) {
        int equals = target.indexOf('=');
        String name = equals < 0 ? target : target.substring(0, equals).trim();
        if (equals < 0 || !(LATENCY.contains(name) || COUNTS.contains(name))) {
            return "--target must be NAME=LIMIT with NAME one of p50, p90, p99, p99.9, max, lost, duplicated, "
                    + "errors, got '" + target + "'";
        }
        try {
            limit(name, target.substring(equals + 1).trim());
            return null;
        } catch (IllegalArgumentException bad) {
            return "--target " + name + ": " + bad.getMessage() + ", got '" + target + "'";
        }
    }

    /** @return the limit in milliseconds (latency) or as a count */
    private static double limit(String name, String value) {
        if (LATENCY.contains(name)) {
            String text = value.matches("\\d+(\\.\\d+)?") ? value + "ms" : value;
            if (text.matches("\\d+\\.\\d+ms")) {
                return Double.parseDouble(text.substring(0, text.length() - 2));
            }
            try {
                return new LoadOptions.DurationConverter().convert(text).toNanos() / 1e6;
            } catch (IllegalArgumentException bad) {
                throw new IllegalArgumentException("the limit must be a duration such as 50ms or 1s");
            }
        }
        try {
            long count = Long.parseLong(value);
            if (count < 0) {
                throw new NumberFormatException();
            }
            return count;
        } catch (NumberFormatException bad) {
            throw new IllegalArgumentException("the limit must be a count, 0 or more");
        }
    }

    /**
     * @param targets the {@code --target} values, each already valid
     * @param result the result as written to result.json (its {@code latency} and {@code messages})
     * @return each target with its limit, the actual value and whether it passed
     */
    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> evaluate(List<String> targets, Map<String, Object> result) {
        List<Map<String, Object>> evaluated = new ArrayList<>();
        for (String target : targets) {
            int equals = target.indexOf('=');
            String name = target.substring(0, equals).trim();
            double limit = limit(name, target.substring(equals + 1).trim());
            Map<String, Object> section = (Map<String, Object>) result.get(LATENCY.contains(name) ? "latency"
                    : "messages");
            Object actual = section == null ? null : section.get(name);
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("name", name);
            entry.put("unit", LATENCY.contains(name) ? "ms" : "count");
            entry.put("limit", limit);
            entry.put("actual", actual);
            entry.put("pass", actual instanceof Number number && number.doubleValue() <= limit);
            evaluated.add(entry);
        }
        return evaluated;
    }
}
