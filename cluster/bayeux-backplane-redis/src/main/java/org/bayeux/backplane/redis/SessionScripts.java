package org.bayeux.backplane.redis;

/**
 * The scripts through which {@link RedisSessionStore} changes a session's hash: each one runs only if the hash still
 * names this node as its owner ({@code own}) with the generation ({@code gen}) this node holds, so that a node that
 * was paused or cut off while another adopted the session (a higher generation) cannot change or delete it: it is
 * fenced. Each answers {@link #DONE}, {@link #GONE} (no such hash) or {@link #FENCED}.
 */
final class SessionScripts {
    /** The script did what it was asked. */
    static final long DONE = 1;
    /** The session's hash does not exist (and the script was not allowed to create it). */
    static final long GONE = 0;
    /** Another node owns the session now, or this node's generation is an older one. */
    static final long FENCED = -1;

    /** The check every script starts with: ARGV[1] this node, ARGV[2] the generation it holds. */
    private static final String OWNED = String.join("\n",
            "local k = KEYS[1]",
            "if redis.call('EXISTS', k) == 0 then",
            "  if ARGV[3] ~= 'create' then return 0 end",
            "else",
            "  local f = redis.call('HMGET', k, 'own', 'gen')",
            "  if f[1] ~= ARGV[1] or f[2] ~= ARGV[2] then return -1 end",
            "end");

    /**
     * Replaces a session's state. ARGV: node, generation, {@code create} (a missing hash is created) or
     * {@code write}, TTL ms, the number n of journal batches to drop,
     * those n batch numbers, then field, value, ... Every field not given is removed except the journal entries
     * ({@code j:<batch>}), which only the drops remove.
     */
    static final String WRITE = String.join("\n", OWNED,
            "local drops = tonumber(ARGV[5])",
            "local first = 6 + drops",
            "local keep = {}",
            "for i = first, #ARGV, 2 do keep[ARGV[i]] = true end",
            "local stale = {}",
            "for _, name in ipairs(redis.call('HKEYS', k)) do",
            "  if not keep[name] and string.sub(name, 1, 2) ~= 'j:' then stale[#stale + 1] = name end",
            "end",
            "for i = 6, first - 1 do stale[#stale + 1] = 'j:' .. ARGV[i] end",
            "for i = 1, #stale, 200 do",
            "  redis.call('HDEL', k, unpack(stale, i, math.min(i + 199, #stale)))",
            "end",
            "for i = first, #ARGV, 200 do",
            "  redis.call('HSET', k, unpack(ARGV, i, math.min(i + 199, #ARGV)))",
            "end",
            "redis.call('PEXPIRE', k, ARGV[4])",
            "return 1");
    static final String WRITE_SHA = HistoryStore.sha1(WRITE);

    /**
     * Changes some fields of an existing session's hash. ARGV: node, generation, {@code write}, the number n of fields
     * to remove, those n fields, then field, value, ...
     */
    static final String PATCH = String.join("\n", OWNED,
            "local removed = tonumber(ARGV[4])",
            "for i = 5, 4 + removed, 200 do",
            "  redis.call('HDEL', k, unpack(ARGV, i, math.min(i + 199, 4 + removed)))",
            "end",
            "for i = 5 + removed, #ARGV, 200 do",
            "  redis.call('HSET', k, unpack(ARGV, i, math.min(i + 199, #ARGV)))",
            "end",
            "return 1");
    static final String PATCH_SHA = HistoryStore.sha1(PATCH);

    /** Renews a session's expiry. ARGV: node, generation, {@code write}, TTL ms. */
    static final String RENEW = String.join("\n", OWNED,
            "redis.call('PEXPIRE', k, ARGV[4])",
            "return 1");
    static final String RENEW_SHA = HistoryStore.sha1(RENEW);

    /** Deletes a session's hash. ARGV: node, generation, {@code write}. */
    static final String DELETE = String.join("\n", OWNED,
            "redis.call('DEL', k)",
            "return 1");
    static final String DELETE_SHA = HistoryStore.sha1(DELETE);

    /**
     * Claims a session for this node if its generation is still the one read (compare and set): the next generation,
     * this node as owner, the expiry renewed. ARGV: the generation read, this node, TTL ms. Answers
     * {@code {'ok', field, value, ...}} (the whole hash after the claim), {@code {'taken'}} if another node claimed
     * it meanwhile, {@code {'gone'}} if it no longer exists.
     */
    static final String ADOPT = String.join("\n",
            "local k = KEYS[1]",
            "if redis.call('EXISTS', k) == 0 then return {'gone'} end",
            "local g = redis.call('HGET', k, 'gen')",
            "if not g then g = '0' end",
            "if g ~= ARGV[1] then return {'taken'} end",
            "redis.call('HSET', k, 'own', ARGV[2], 'gen', tostring(tonumber(g) + 1))",
            "redis.call('PEXPIRE', k, ARGV[3])",
            "local all = redis.call('HGETALL', k)",
            "table.insert(all, 1, 'ok')",
            "return all");
    static final String ADOPT_SHA = HistoryStore.sha1(ADOPT);

    private SessionScripts() {
    }
}
