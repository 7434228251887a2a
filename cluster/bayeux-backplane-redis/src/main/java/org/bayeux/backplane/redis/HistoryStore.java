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
 * The two scripts that keep each channel's position and history, and run them: one per publish, one per page of a
 * recovery.
 *
 * <p><b>Publish</b>, in one script so that fan-out order and offsets are one and the same: skip a retry (idempotency
 * key, scoped to its publisher). A channel without history (no {@code historyRules} rule turns it on, and the session
 * store is off: {@link HistoryRules#storedRuleFor}) is only
 * appended to its shard's fan-out stream: no position, no key of its own. A channel with history takes its epoch
 * (making one, and dropping any history left from a lost epoch, if it has none), increments its offset, appends to its
 * history within its bounds, and appends to its shard's fan-out stream with the offset and epoch beside the message.
 * The history's bounds are kept by the script itself, oldest first: at most {@code size} entries, none older than
 * {@code age}, at most {@code historyMaxBytes} bytes of messages per channel and {@code historyShardMaxBytes} per shard
 * (a shard over its cap drops the histories of its channels that would expire first); a message that still does not
 * fit is published without being kept (recovering across it then answers "not recovered": offsets are checked to be
 * contiguous). The shard's accounting ({@code history-bytes}, {@code history-expiry}) forgets histories that expired.
 * </p>
 *
 * <p><b>Recover</b>, one page per call, newest first, so that no call copies more than a page out of Redis (a page:
 * at most {@code pageEntries} entries and {@code pageBytes} bytes, but at least one entry): read the epoch and last
 * offset (creating nothing: a channel never published has none, position 0 of epoch ""), and, if the client's epoch is
 * the same, the entries before the previous page's last, each younger than the age, until the one after the client's
 * offset or the recovery's remaining byte budget. The caller ({@link HistoryCalls}) checks that the offsets are
 * contiguous and that the epoch stayed the same across pages.</p>
 */
final class HistoryStore {
    /** KEYS: meta, history, fan-out, shard history bytes, shard history expiry, [idempotency]. ARGV: json, fan-out
     *  max length, history size (0: no history), age ms, meta TTL ms, a new epoch, idempotency window ms, channel
     *  max bytes, shard max bytes. Returns the fan-out entry's id (the first one's, for a retry). */
    static final String PUBLISH = String.join("\n",
            "if KEYS[6] then",
            "  local first = redis.call('GET', KEYS[6])",
            "  if first then return first end",
            "end",
            "if tonumber(ARGV[3]) == 0 then",
            "  local plain = redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[2], '*', "
                    + "'" + RedisBackplane.MESSAGE_FIELD + "', ARGV[1])",
            "  if KEYS[6] then redis.call('SET', KEYS[6], plain, 'PX', ARGV[7]) end",
            "  return plain",
            "end",
            "local now = redis.call('TIME')",
            "local nowms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)",
            // Forget the shard's histories that expired by themselves (PEXPIRE): their bytes no longer count.
            "local expired = redis.call('ZRANGEBYSCORE', KEYS[5], '-inf', nowms, 'LIMIT', 0, 16)",
            "for _, key in ipairs(expired) do",
            "  local b = tonumber(redis.call('HGET', KEYS[4], key) or '0')",
            "  redis.call('HINCRBY', KEYS[4], 'total', -b)",
            "  redis.call('HDEL', KEYS[4], key)",
            "  redis.call('ZREM', KEYS[5], key)",
            "end",
            "local function forget(key)",
            "  local b = tonumber(redis.call('HGET', KEYS[4], key) or '0')",
            "  if b ~= 0 then redis.call('HINCRBY', KEYS[4], 'total', -b) end",
            "  redis.call('HDEL', KEYS[4], key)",
            "  redis.call('ZREM', KEYS[5], key)",
            "  redis.call('DEL', key)",
            "end",
            "local epoch = redis.call('HGET', KEYS[1], 'e')",
            "if not epoch then",
            "  epoch = ARGV[6]",
            "  redis.call('HSET', KEYS[1], 'e', epoch)",
            "  forget(KEYS[2])",
            "elseif redis.call('EXISTS', KEYS[2]) == 0 then",
            "  forget(KEYS[2])",
            "end",
            "local offset = redis.call('HINCRBY', KEYS[1], 'o', 1)",
            "redis.call('PEXPIRE', KEYS[1], ARGV[5])",
            "local size = #ARGV[1]",
            "local maxlen = tonumber(ARGV[3])",
            "local chanmax = tonumber(ARGV[8])",
            "local shardmax = tonumber(ARGV[9])",
            "local oldest = nowms - tonumber(ARGV[4])",
            "if size <= chanmax and size <= shardmax then",
            "  local len = redis.call('XLEN', KEYS[2])",
            "  local bytes = tonumber(redis.call('HGET', KEYS[4], KEYS[2]) or '0')",
            // Oldest first: too many, too old, or too many bytes with this one.
            "  for i = 1, 256 do",
            "    local head = redis.call('XRANGE', KEYS[2], '-', '+', 'COUNT', 1)",
            "    if #head == 0 then break end",
            "    local ms = tonumber(string.match(head[1][1], '^(%d+)'))",
            "    if not (len >= maxlen or bytes + size > chanmax or ms < oldest) then break end",
            "    local hs = #head[1][2][2]",
            "    redis.call('XDEL', KEYS[2], head[1][1])",
            "    len = len - 1",
            "    bytes = bytes - hs",
            "    redis.call('HINCRBY', KEYS[4], KEYS[2], -hs)",
            "    redis.call('HINCRBY', KEYS[4], 'total', -hs)",
            "  end",
            // The shard over its cap: the histories that would expire first go, whole.
            "  local total = tonumber(redis.call('HGET', KEYS[4], 'total') or '0')",
            "  for i = 1, 16 do",
            "    if total + size <= shardmax then break end",
            "    local victim = redis.call('ZRANGE', KEYS[5], 0, 0)",
            "    if #victim == 0 or victim[1] == KEYS[2] then break end",
            "    total = total - tonumber(redis.call('HGET', KEYS[4], victim[1]) or '0')",
            "    forget(victim[1])",
            "  end",
            "  if len < maxlen and bytes + size <= chanmax and total + size <= shardmax then",
            "    redis.call('XADD', KEYS[2], '*', 'm', ARGV[1], 'o', offset)",
            "    redis.call('HINCRBY', KEYS[4], KEYS[2], size)",
            "    redis.call('HINCRBY', KEYS[4], 'total', size)",
            "    redis.call('PEXPIRE', KEYS[2], ARGV[4])",
            "    redis.call('ZADD', KEYS[5], nowms + tonumber(ARGV[4]), KEYS[2])",
            "  end",
            "end",
            "local id = redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[2], '*', "
                    + "'" + RedisBackplane.MESSAGE_FIELD + "', ARGV[1], 'o', offset, 'e', epoch)",
            "if KEYS[6] then redis.call('SET', KEYS[6], id, 'PX', ARGV[7]) end",
            "return id");

    /** KEYS: meta, history. ARGV: the client's offset (-1: none), its epoch, the previous page's last entry id (""
     *  for the first page), page entries, page bytes, age ms, the recovery's remaining bytes, the most messages it
     *  may recover. Returns {epoch (""
     *  if none), last offset, status (0: not recoverable, 1: more pages, 2: reached the client's offset), Redis time
     *  ms, then id, json and offset of each entry, newest first}. Creates nothing. */
    static final String RECOVER = String.join("\n",
            "local now = redis.call('TIME')",
            "local nowms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)",
            "local epoch = redis.call('HGET', KEYS[1], 'e')",
            "local since = tonumber(ARGV[1])",
            "if not epoch then",
            "  if since == 0 and ARGV[2] == '' then return {'', 0, 2, nowms} end",
            "  return {'', 0, 0, nowms}",
            "end",
            "local top = tonumber(redis.call('HGET', KEYS[1], 'o') or '0')",
            "if since < 0 or epoch ~= ARGV[2] or since > top then return {epoch, top, 0, nowms} end",
            "if since == top then return {epoch, top, 2, nowms} end",
            "if top - since > tonumber(ARGV[8]) then return {epoch, top, 0, nowms} end",
            "local oldest = nowms - tonumber(ARGV[6])",
            "local result = {epoch, top, 1, nowms}",
            "local before = '+'",
            "if ARGV[3] ~= '' then before = '(' .. ARGV[3] end",
            "local bytes = 0",
            "local budget = tonumber(ARGV[7])",
            "for n = 1, tonumber(ARGV[4]) do",
            "  local entry = redis.call('XREVRANGE', KEYS[2], before, '-', 'COUNT', 1)",
            "  if #entry == 0 then result[3] = 0; return result end",
            "  local id = entry[1][1]",
            "  local ms = tonumber(string.match(id, '^(%d+)'))",
            // By name: an entry written by anyone but us (only Redis's other clients could) may order them otherwise.
            "  local json, offset",
            "  local fields = entry[1][2]",
            "  for k = 1, #fields - 1, 2 do",
            "    if fields[k] == 'm' then json = fields[k + 1] elseif fields[k] == 'o' then offset = tonumber(fields[k + 1]) end",
            "  end",
            "  if not json or not offset then result[3] = 0; return result end",
            "  if ms < oldest or #json > budget - bytes then result[3] = 0; return result end",
            "  if n > 1 and bytes + #json > tonumber(ARGV[5]) then return result end",
            "  result[#result + 1] = id",
            "  result[#result + 1] = json",
            "  result[#result + 1] = offset",
            "  bytes = bytes + #json",
            "  if offset <= since + 1 then result[3] = 2; return result end",
            "  before = '(' .. id",
            "end",
            "return result");

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final char[] ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".toCharArray();
    private static final String PUBLISH_SHA = sha1(PUBLISH);
    private static final String RECOVER_SHA = sha1(RECOVER);

    /**
     * What a recovery found: the channel's epoch and last offset, whether every missed message is here, and the missed
     * messages in order with their offsets and their times (ms of their history entry's id, in Redis's clock).
     * The recoveries that share one read ({@link RecoveryReads}) share {@code parsed} too: each entry becomes a message
     * once, by its offset, and that one frozen message (encoded once) is queued for every session that missed it.
     *
     * @param readAt Redis's clock when the read started (ms), where a session's first recovering subscription counts
     *        back from
     */
    record Recovered(String epoch, long offset, boolean recovered, List<byte[]> messages, List<Long> offsets,
            List<Long> times, long readAt, Map<Long, ServerMessage> parsed) {
        Recovered(String epoch, long offset, boolean recovered, List<byte[]> messages, List<Long> offsets,
                List<Long> times, long readAt) {
            this(epoch, offset, recovered, messages, offsets, times, readAt, new ConcurrentHashMap<>());
        }

        /** @return the position only, nothing recovered (or nothing missed, if {@code recovered}) */
        static Recovered position(String epoch, long offset, boolean recovered, long readAt) {
            return new Recovered(epoch, offset, recovered, List.of(), List.of(), List.of(), readAt);
        }

        /** @return the bytes of the missed messages */
        long bytes() {
            long bytes = 0;
            for (byte[] message : messages) {
                bytes += message.length;
            }
            return bytes;
        }
    }

    /** One page of a recovery, as the script answered: entries newest first. */
    record Page(String epoch, long top, int status, long readAt, List<String> ids, List<byte[]> messages,
            List<Long> offsets, long bytes) {
        static final int NOT_RECOVERABLE = 0;
        static final int MORE = 1;
        static final int REACHED = 2;
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

    static CompletableFuture<Page> recoverPage(RedisLink.Connection connection, String[] keys, byte[]... args) {
        CompletableFuture<List<Object>> reply = run(connection, RECOVER, RECOVER_SHA, ScriptOutputType.MULTI, keys,
                args);
        return reply.thenApply(HistoryStore::page);
    }

    private static Page page(List<Object> reply) {
        String epoch = new String((byte[]) reply.get(0), StandardCharsets.UTF_8);
        long top = ((Number) reply.get(1)).longValue();
        int status = ((Number) reply.get(2)).intValue();
        long readAt = ((Number) reply.get(3)).longValue();
        List<String> ids = new ArrayList<>();
        List<byte[]> messages = new ArrayList<>();
        List<Long> offsets = new ArrayList<>();
        long bytes = 0;
        for (int i = 4; i + 2 < reply.size(); i += 3) {
            ids.add(new String((byte[]) reply.get(i), StandardCharsets.US_ASCII));
            byte[] json = (byte[]) reply.get(i + 1);
            messages.add(json);
            bytes += json.length;
            offsets.add(((Number) reply.get(i + 2)).longValue());
        }
        return new Page(epoch, top, status, readAt, ids, messages, offsets, bytes);
    }

    /** @return the ms part of a stream entry id ({@code <ms>-<seq>}) */
    static long timeOf(String id) {
        int dash = id.indexOf('-');
        return Long.parseLong(dash < 0 ? id : id.substring(0, dash));
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
