package org.bayeux.backplane.redis;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import org.bayeux.api.server.ServerMessage;

/**
 * The two scripts that keep each channel's position and history, and run them: one per publish, one per recovery.
 *
 * <p><b>Publish</b>, in one script so that fan-out order and offsets are one and the same: skip a retry (idempotency
 * key), take the channel's epoch (making one, and dropping any history left from a lost epoch, if it has none),
 * increment its offset, append to its history (exact {@code MAXLEN}, then {@code XTRIM MINID} by age, and an expiry
 * of the age so that an idle channel's history goes), and append to its shard's fan-out stream with the offset and
 * epoch beside the message.</p>
 *
 * <p><b>Recover</b>: read the epoch and last offset (making an epoch if the channel has none, so that the client
 * learns one) and, if the client's epoch is the same and it missed no more than the bound, the entries after its
 * offset, each checked to be the next offset and younger than the age; else "not recovered".</p>
 */
final class HistoryStore {
    /** KEYS: meta, history, fan-out, [idempotency]. ARGV: json, fan-out max length, history size, age ms, meta TTL
     *  ms, a new epoch, idempotency window ms. Returns the fan-out entry's id (the first one's, for a retry). */
    static final String PUBLISH = String.join("\n",
            "if KEYS[4] then",
            "  local first = redis.call('GET', KEYS[4])",
            "  if first then return first end",
            "end",
            "local epoch = redis.call('HGET', KEYS[1], 'e')",
            "if not epoch then",
            "  epoch = ARGV[6]",
            "  redis.call('HSET', KEYS[1], 'e', epoch)",
            "  redis.call('DEL', KEYS[2])",
            "end",
            "local offset = redis.call('HINCRBY', KEYS[1], 'o', 1)",
            "redis.call('PEXPIRE', KEYS[1], ARGV[5])",
            "if tonumber(ARGV[3]) > 0 then",
            "  redis.call('XADD', KEYS[2], 'MAXLEN', ARGV[3], '*', 'm', ARGV[1], 'o', offset)",
            "  local now = redis.call('TIME')",
            "  local minid = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000) - tonumber(ARGV[4])",
            "  if minid > 0 then redis.call('XTRIM', KEYS[2], 'MINID', string.format('%.0f', minid)) end",
            "  redis.call('PEXPIRE', KEYS[2], ARGV[4])",
            "else",
            "  redis.call('DEL', KEYS[2])",
            "end",
            "local id = redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[2], '*', "
                    + "'" + RedisBackplane.MESSAGE_FIELD + "', ARGV[1], 'o', offset, 'e', epoch)",
            "if KEYS[4] then redis.call('SET', KEYS[4], id, 'PX', ARGV[7]) end",
            "return id");

    /** KEYS: meta, history. ARGV: the client's offset (-1: none), its epoch, max messages, age ms, a new epoch,
     *  meta TTL ms. Returns {epoch, last offset, 1 or 0 (recovered), then json and offset of each missed entry}. */
    static final String RECOVER = String.join("\n",
            "local epoch = redis.call('HGET', KEYS[1], 'e')",
            "if not epoch then",
            "  epoch = ARGV[5]",
            "  redis.call('HSET', KEYS[1], 'e', epoch, 'o', 0)",
            "  redis.call('DEL', KEYS[2])",
            "  redis.call('PEXPIRE', KEYS[1], ARGV[6])",
            "end",
            "local top = tonumber(redis.call('HGET', KEYS[1], 'o') or '0')",
            "local since = tonumber(ARGV[1])",
            "if since < 0 or epoch ~= ARGV[2] then return {epoch, top, 0} end",
            "local missed = top - since",
            "if missed == 0 then return {epoch, top, 1} end",
            "if missed < 0 or missed > tonumber(ARGV[3]) then return {epoch, top, 0} end",
            "local entries = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', missed)",
            "if #entries < missed then return {epoch, top, 0} end",
            "local now = redis.call('TIME')",
            "local oldest = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000) - tonumber(ARGV[4])",
            "local result = {epoch, top, 1}",
            "local expected = since + 1",
            "for i = #entries, 1, -1 do",
            "  local ms = tonumber(string.match(entries[i][1], '^(%d+)'))",
            "  local fields = entries[i][2]",
            "  local offset = tonumber(fields[4])",
            "  if ms < oldest or offset ~= expected then return {epoch, top, 0} end",
            "  result[#result + 1] = fields[2]",
            "  result[#result + 1] = offset",
            "  expected = expected + 1",
            "end",
            "return result");

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final char[] ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".toCharArray();
    private static final String PUBLISH_SHA = sha1(PUBLISH);
    private static final String RECOVER_SHA = sha1(RECOVER);

    /**
     * What a recovery found. The recoveries that share one read ({@link RecoveryReads}) share {@code parsed} too:
     * each entry becomes a message once, by its offset, and that one frozen message (encoded once) is queued for
     * every session that missed it.
     */
    record Recovered(String epoch, long offset, boolean recovered, List<byte[]> messages, List<Long> offsets,
            Map<Long, ServerMessage> parsed) {
        Recovered(String epoch, long offset, boolean recovered, List<byte[]> messages, List<Long> offsets) {
            this(epoch, offset, recovered, messages, offsets, new ConcurrentHashMap<>());
        }
    }

    private HistoryStore() {
    }

    /** @return a new random epoch: 12 characters of [0-9a-zA-Z], about 71 bits */
    static String newEpoch() {
        char[] epoch = new char[12];
        for (int i = 0; i < epoch.length; i++) {
            epoch[i] = ALPHABET[RANDOM.nextInt(ALPHABET.length)];
        }
        return new String(epoch);
    }

    static CompletableFuture<byte[]> publish(RedisLink.Connection connection, String[] keys,
            byte[]... args) {
        return run(connection, PUBLISH, PUBLISH_SHA, ScriptOutputType.VALUE, keys, args);
    }

    static CompletableFuture<Recovered> recover(RedisLink.Connection connection, String[] keys,
            byte[]... args) {
        CompletableFuture<List<Object>> reply = run(connection, RECOVER, RECOVER_SHA, ScriptOutputType.MULTI, keys,
                args);
        return reply.thenApply(HistoryStore::recovered);
    }

    private static Recovered recovered(List<Object> reply) {
        String epoch = new String((byte[]) reply.get(0), StandardCharsets.UTF_8);
        long top = ((Number) reply.get(1)).longValue();
        boolean recovered = ((Number) reply.get(2)).longValue() == 1;
        List<byte[]> messages = new ArrayList<>();
        List<Long> offsets = new ArrayList<>();
        for (int i = 3; i + 1 < reply.size(); i += 2) {
            messages.add((byte[]) reply.get(i));
            offsets.add(((Number) reply.get(i + 1)).longValue());
        }
        return new Recovered(epoch, top, recovered, messages, offsets);
    }

    /**
     * Runs a script by its digest, and by its text once if Redis does not have it (after a restart or a flush).
     * Cancelling the returned future cancels the command in flight, so that one still queued in Lettuce is not sent
     * after a reconnect. Package-visible: {@code Presence} runs its scripts the same way.
     *
     * @param sha the script's digest, {@link #sha1}
     */
    static <T> CompletableFuture<T> run(RedisLink.Connection connection, String script,
            String sha, ScriptOutputType type, String[] keys, byte[]... args) {
        CompletableFuture<T> result = new CompletableFuture<>();
        RedisFuture<T> first = connection.async().evalsha(sha, type, keys, args);
        AtomicReference<Future<T>> current = new AtomicReference<>(first);
        result.whenComplete((value, failure) -> {
            if (result.isCancelled()) {
                current.get().cancel(false);
            }
        });
        first.whenComplete((value, failure) -> {
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                    ? failure.getCause() : failure;
            if (cause instanceof RedisNoScriptException) {
                RedisFuture<T> second = connection.async().eval(script, type, keys, args);
                current.set(second);
                if (result.isCancelled()) {
                    second.cancel(false);
                }
                second.whenComplete((again, failed) -> complete(result, again, failed));
            } else {
                complete(result, value, cause);
            }
        });
        return result;
    }

    private static <T> void complete(CompletableFuture<T> result, T value, Throwable failure) {
        if (failure != null) {
            result.completeExceptionally(failure);
        } else {
            result.complete(value);
        }
    }

    static byte[] ascii(long number) {
        return Long.toString(number).getBytes(StandardCharsets.US_ASCII);
    }

    static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** @return the SHA-1 digest of a script, in hex: what {@code EVALSHA} names it by */
    static String sha1(String script) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1")
                    .digest(script.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException impossible) {
            throw new IllegalStateException(impossible);
        }
    }
}
