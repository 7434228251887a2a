package org.bayeux.backplane.redis;

import java.util.List;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * What a test's redis-server did, read from the outside ({@code INFO}, {@code SCAN}): bytes it sent, scripts it ran,
 * keys it holds. Counts, not times.
 */
final class RedisStats implements AutoCloseable {
    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisCommands<String, String> redis;

    RedisStats(String uri) {
        client = RedisClient.create(uri);
        connection = client.connect();
        redis = connection.sync();
    }

    RedisCommands<String, String> commands() {
        return redis;
    }

    /** @return the bytes Redis has sent to its clients since it started */
    long netOutputBytes() {
        return field(redis.info("stats"), "total_net_output_bytes");
    }

    /** @return how many scripts Redis has run (EVAL and EVALSHA) since it started */
    long scriptsRun() {
        String info = redis.info("commandstats");
        return calls(info, "cmdstat_evalsha") + calls(info, "cmdstat_eval");
    }

    /** @return how many times Redis ran each command since it started (from scripts too), by lower-case name */
    java.util.Map<String, Long> commandCalls() {
        java.util.Map<String, Long> calls = new java.util.TreeMap<>();
        for (String line : redis.info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_")) {
                String name = line.substring("cmdstat_".length(), line.indexOf(':'));
                calls.put(name, calls(line, "cmdstat_" + name));
            }
        }
        return calls;
    }

    /** @return the keys matching a pattern */
    List<String> keys(String pattern) {
        ScanIterator<String> keys = ScanIterator.scan(redis, ScanArgs.Builder.matches(pattern).limit(1000));
        return keys.stream().toList();
    }

    private static long calls(String info, String command) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(command + ":")) {
                for (String part : line.substring(command.length() + 1).split(",")) {
                    if (part.startsWith("calls=")) {
                        return Long.parseLong(part.substring("calls=".length()));
                    }
                }
            }
        }
        return 0;
    }

    private static long field(String info, String name) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(name + ":")) {
                return Long.parseLong(line.substring(name.length() + 1).trim());
            }
        }
        throw new IllegalStateException("no " + name + " in INFO");
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown();
    }
}
