package org.bayeux.backplane.redis;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.ScriptOutputType;
import org.bayeux.api.ChannelId;
import org.bayeux.api.server.ServerChannel;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.api.server.SubscriptionListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who is subscribed to which plain channel, across nodes, kept in Redis with expiry (Centrifugo-style): per channel a
 * hash of session id to node id and a sorted set of each session's expiry time, in the channel's shard slot. This node
 * writes its sessions' subscriptions as they happen and refreshes them every third of
 * {@link RedisBackplaneConfig#PRESENCE_TTL}; a node that dies stops refreshing, and the first sweep after the TTL (every
 * node sweeps every channel with presence at each refresh) removes its entries. Joins and leaves, the expired ones
 * included, are appended to the channel's fan-out stream by the same scripts, so every node tells its
 * {@link PresenceListener}s of each one once, in the channel's order.
 */
final class Presence implements SubscriptionListener {
    private static final Logger LOG = LoggerFactory.getLogger(Presence.class);
    /** The fan-out entry field that marks a presence event: {@code join} or {@code leave}. */
    static final String EVENT_FIELD = "p";
    private static final String NOW = "local t = redis.call('TIME')\n"
            + "local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)\n";
    /** KEYS: hash, expiry set, channel set, fan-out. ARGV: session, node, ttl ms, channel, fan-out max length. */
    private static final String JOIN = NOW
            + "local new = redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])\n"
            + "redis.call('ZADD', KEYS[2], now + tonumber(ARGV[3]), ARGV[1])\n"
            + "redis.call('SADD', KEYS[3], ARGV[4])\n"
            + "if new == 1 then redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[5], '*', 'p', 'join', 'c', ARGV[4],"
            + " 's', ARGV[1], 'n', ARGV[2]) end\n"
            + "return new";
    /** KEYS: hash, expiry set, fan-out. ARGV: session, channel, fan-out max length. */
    private static final String LEAVE = "local node = redis.call('HGET', KEYS[1], ARGV[1])\n"
            + "redis.call('ZREM', KEYS[2], ARGV[1])\n"
            + "if not node then return 0 end\n"
            + "redis.call('HDEL', KEYS[1], ARGV[1])\n"
            + "redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[3], '*', 'p', 'leave', 'c', ARGV[2], 's', ARGV[1],"
            + " 'n', node)\n"
            + "return 1";
    /** KEYS: hash, expiry set, channel set, fan-out. ARGV: channel, fan-out max length. Returns how many expired. */
    private static final String SWEEP = NOW
            + "local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now)\n"
            + "for _, session in ipairs(expired) do\n"
            + "  local node = redis.call('HGET', KEYS[1], session)\n"
            + "  redis.call('ZREM', KEYS[2], session)\n"
            + "  if node then\n"
            + "    redis.call('HDEL', KEYS[1], session)\n"
            + "    redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[2], '*', 'p', 'leave', 'c', ARGV[1], 's', session,"
            + " 'n', node)\n"
            + "  end\n"
            + "end\n"
            + "if redis.call('HLEN', KEYS[1]) == 0 then redis.call('SREM', KEYS[3], ARGV[1]) end\n"
            + "return #expired";
    /** KEYS: hash, expiry set. Returns session, node, ... of the entries not expired. */
    private static final String MEMBERS = NOW
            + "local live = redis.call('ZRANGEBYSCORE', KEYS[2], now, '+inf')\n"
            + "local result = {}\n"
            + "for _, session in ipairs(live) do\n"
            + "  local node = redis.call('HGET', KEYS[1], session)\n"
            + "  if node then result[#result + 1] = session; result[#result + 1] = node end\n"
            + "end\n"
            + "return result";

    private final RedisBackplane backplane;
    private final StreamShards shards;
    private final RedisBackplaneConfig config;
    private final String nodeId;
    /** This node's subscriptions with presence: channel to session ids. */
    private final ConcurrentMap<String, Set<String>> local = new ConcurrentHashMap<>();
    private final List<PresenceListener> listeners = new CopyOnWriteArrayList<>();
    /**
     * Held while a change of {@link #local} and its script are queued on the connection (asynchronously, never
     * waiting for Redis): a refresh then never re-adds, after its leave, a subscription that just ended.
     */
    private final Object updates = new Object();
    private volatile ScheduledExecutorService timer;

    Presence(RedisBackplane backplane, StreamShards shards, RedisBackplaneConfig config, String nodeId) {
        this.backplane = backplane;
        this.shards = shards;
        this.config = config;
        this.nodeId = nodeId;
    }

    void start() {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "redis-backplane-presence");
            thread.setDaemon(true);
            return thread;
        });
        long period = Math.max(1, config.presenceTtl().toMillis() / 3);
        scheduler.scheduleWithFixedDelay(this::refresh, period, period, TimeUnit.MILLISECONDS);
        timer = scheduler;
    }

    void stop() {
        ScheduledExecutorService scheduler = timer;
        if (scheduler != null) {
            scheduler.shutdownNow();
        }
    }

    List<PresenceListener> listeners() {
        return listeners;
    }

    private static boolean tracked(ServerChannel channel) {
        ChannelId id = channel.getChannelId();
        return id.isBroadcast() && !id.isWildcard();
    }

    @Override
    public void subscribed(ServerSession session, ServerChannel channel, ServerMessage message) {
        if (!tracked(channel)) {
            return;
        }
        String name = channel.getId();
        synchronized (updates) {
            local.computeIfAbsent(name, n -> ConcurrentHashMap.newKeySet()).add(session.getId());
            join(name, session.getId());
        }
    }

    @Override
    public void unsubscribed(ServerSession session, ServerChannel channel, ServerMessage message) {
        if (!tracked(channel)) {
            return;
        }
        String name = channel.getId();
        synchronized (updates) {
            local.computeIfPresent(name, (n, sessions) -> {
                sessions.remove(session.getId());
                return sessions.isEmpty() ? null : sessions;
            });
            RedisLink.Connection connection = backplane.connection();
            if (connection != null) {
                run(connection, LEAVE, new String[] {shards.presenceKeyOf(name), shards.presenceExpiryKeyOf(name),
                    shards.keyOf(name)}, session.getId(), name, Integer.toString(config.streamMaxLength()));
            }
        }
    }

    private void join(String channel, String session) {
        RedisLink.Connection connection = backplane.connection();
        if (connection != null) {
            run(connection, JOIN, new String[] {shards.presenceKeyOf(channel), shards.presenceExpiryKeyOf(channel),
                shards.presenceChannelsKey(channel), shards.keyOf(channel)}, session, nodeId,
                    Long.toString(config.presenceTtl().toMillis()), channel,
                    Integer.toString(config.streamMaxLength()));
        }
    }

    /** Refreshes this node's entries (re-adding any Redis lost), then sweeps every channel with presence. */
    private void refresh() {
        try {
            local.forEach((channel, sessions) -> sessions.forEach(session -> {
                synchronized (updates) {
                    if (sessions.contains(session)) {
                        join(channel, session);
                    }
                }
            }));
            RedisLink.Connection connection = backplane.connection();
            if (connection == null) {
                return;
            }
            for (int shard = 0; shard < shards.count(); shard++) {
                connection.async().smembers(shards.presenceChannelsKeyOf(shard)).thenAccept(channels -> {
                    for (byte[] raw : channels) {
                        String channel = new String(raw, StandardCharsets.UTF_8);
                        run(connection, SWEEP, new String[] {shards.presenceKeyOf(channel),
                            shards.presenceExpiryKeyOf(channel), shards.presenceChannelsKey(channel),
                            shards.keyOf(channel)}, channel, Integer.toString(config.streamMaxLength()));
                    }
                });
            }
        } catch (RuntimeException failure) {
            LOG.debug("Presence refresh failed: {}", failure.toString());
        }
    }

    /** @return session id to node id, of the live entries of a channel */
    CompletableFuture<Map<String, String>> members(String channel) {
        RedisLink.Connection connection = backplane.connection();
        if (connection == null) {
            return CompletableFuture.failedFuture(new IllegalStateException("not connected to Redis"));
        }
        return connection.async().<List<Object>>eval(MEMBERS, ScriptOutputType.MULTI,
                new String[] {shards.presenceKeyOf(channel), shards.presenceExpiryKeyOf(channel)})
                .toCompletableFuture().thenApply(flat -> {
                    Map<String, String> members = new LinkedHashMap<>();
                    for (int i = 0; i + 1 < flat.size(); i += 2) {
                        members.put(text(flat.get(i)), text(flat.get(i + 1)));
                    }
                    return members;
                });
    }

    /** Tells the listeners of a presence event read from a fan-out stream. */
    void deliver(Map<String, byte[]> body) {
        PresenceEvent event = new PresenceEvent(text(body.get("c")), text(body.get("s")), text(body.get("n")),
                "join".equals(text(body.get(EVENT_FIELD))));
        for (PresenceListener listener : listeners) {
            try {
                listener.presence(event);
            } catch (RuntimeException failure) {
                LOG.warn("A presence listener failed", failure);
            }
        }
    }

    private static String text(Object value) {
        return value instanceof byte[] ? new String((byte[]) value, StandardCharsets.UTF_8) : String.valueOf(value);
    }

    private static void run(RedisLink.Connection connection, String script, String[] keys,
            String... args) {
        byte[][] values = new byte[args.length][];
        for (int i = 0; i < args.length; i++) {
            values[i] = args[i].getBytes(StandardCharsets.UTF_8);
        }
        try {
            connection.async().eval(script, ScriptOutputType.INTEGER, keys, values).exceptionally(failure -> {
                LOG.debug("Presence update failed: {}", failure.toString());
                return null;
            });
        } catch (RuntimeException rejected) {
            LOG.debug("Presence update refused: {}", rejected.toString());
        }
    }
}
