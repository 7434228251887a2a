package org.bayeux.backplane.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.ScriptOutputType;
import org.bayeux.api.ChannelId;
import org.bayeux.api.server.ServerChannel;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.api.server.SubscriptionListener;
import org.bayeux.server.cluster.PresenceEntry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who is subscribed to which plain channel, across nodes, kept in Redis with expiry (Centrifugo-style): per channel a
 * hash of session id to node id and a sorted set of each session's expiry time, in the channel's shard slot. This node
 * writes its sessions' subscriptions as they happen and refreshes them every third of
 * {@link RedisBackplaneConfig#PRESENCE_TTL}, one script call per channel and {@value #REFRESH_CHUNK} sessions, every
 * presence command counted against a budget of commands in flight ({@link #budget(int)}), a round's at most
 * {@value #ROUND_WINDOW} at a time; a node that dies stops
 * refreshing, and the first sweep after the TTL (every node sweeps every channel with presence at each refresh)
 * removes its entries. Joins and leaves, the expired ones
 * included, are appended to the channel's fan-out stream by the same scripts, so every node tells its
 * {@link PresenceListener}s of each one once, in the channel's order.
 *
 * <p>It also keeps the engine's presence seam ({@link RedisPresence}): an entry's value is its node id, followed by
 * {@value #SEPARATOR_NAME} and the user its session is tied to, if any; and a user with a session on this node has an
 * entry of its own in {@link #USERS}, a channel no session can subscribe to, refreshed, expired and swept like the
 * others. The backplane's own listeners and {@link #members} see node ids only, as before.</p>
 *
 * <p>An entry is a session's (its clientId), whichever node holds it: a session another node adopts (failover) and
 * subscribes again there takes the entry over (the node in its value changes, no join); only the node an entry names
 * refreshes it or removes it, so that the dead node's entries expiring, or a paused node coming back and dropping its
 * copy of a session that moved, tells no leave for a session that lives on elsewhere.</p>
 */
final class Presence implements SubscriptionListener {
    private static final Logger LOG = LoggerFactory.getLogger(Presence.class);
    /** The fan-out entry field that marks a presence event: {@code join} or {@code leave}. */
    static final String EVENT_FIELD = "p";
    private static final String NOW = "local t = redis.call('TIME')\n"
            + "local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)\n";
    /** Lua: the node id of an entry's value (what comes before {@link #SEPARATOR}). */
    private static final String NODE_OF = "local function nodeOf(value) return string.match(value, '^[^\\31]*') end\n";
    /**
     * KEYS: hash, expiry set, channel set, fan-out. ARGV: value (node, user), ttl ms, channel, fan-out max length,
     * {@code 1} to take an entry over from another node ({@code 0}: only this node's or a missing one), then one or
     * more sessions. For each session: a new expiry, and the entry (re-)added, with a {@code join} event only if it is
     * new. Both a join (one session, taking over: a session another node owned, now adopted here, stays one member,
     * with no leave nor join) and a refresh (a chunk of a channel's sessions, never taking over: a paused node that
     * comes back does not take back a session that moved) run it. Returns how many were new.
     */
    private static final String JOIN = NOW + NODE_OF
            + "local added = 0\n"
            + "local me = nodeOf(ARGV[1])\n"
            + "for i = 6, #ARGV do\n"
            + "  local session = ARGV[i]\n"
            + "  local was = redis.call('HGET', KEYS[1], session)\n"
            + "  if ARGV[5] == '1' or not was or nodeOf(was) == me then\n"
            + "  redis.call('HSET', KEYS[1], session, ARGV[1])\n"
            + "  redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), session)\n"
            + "  if not was then\n"
            + "    redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[4], '*', 'p', 'join', 'c', ARGV[3], 's', session,"
            + " 'n', ARGV[1])\n"
            + "    added = added + 1\n"
            + "  end\n"
            + "  end\n"
            + "end\n"
            + "redis.call('SADD', KEYS[3], ARGV[3])\n"
            + "return added";
    /**
     * KEYS: hash, expiry set, fan-out. ARGV: session, channel, fan-out max length, node. Only this node's entry
     * leaves: a session that moved to another node (adopted there) stays, with no leave.
     */
    private static final String LEAVE = NODE_OF + "local node = redis.call('HGET', KEYS[1], ARGV[1])\n"
            + "if node and nodeOf(node) ~= ARGV[4] then return 0 end\n"
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

    private static final String JOIN_SHA = HistoryStore.sha1(JOIN);
    private static final String LEAVE_SHA = HistoryStore.sha1(LEAVE);
    private static final String SWEEP_SHA = HistoryStore.sha1(SWEEP);
    private static final String MEMBERS_SHA = HistoryStore.sha1(MEMBERS);
    /**
     * The most sessions one refresh call carries: a channel's sessions of this node go in calls of at most this many,
     * so that one call's script stays short (Redis runs nothing else meanwhile) and its reply small.
     */
    static final int REFRESH_CHUNK = 200;
    /**
     * A refresh round's commands in flight at a time, within the budget: few, so that a round's scripts take their
     * turns in Redis between publishes and stream reads instead of queuing hundreds ahead of them (every node runs a
     * round every third of the TTL, and a burst of them delayed every delivery behind it).
     */
    static final int ROUND_WINDOW = 4;
    /** The cap of {@link #budget(int)}. */
    static final int MAX_BUDGET = 1000;

    /**
     * The entries of users present on a node, kept as those of a channel no session can subscribe to: a field
     * {@code <node><SEPARATOR><user>} per user with a session on that node, so that the TTL, refresh and sweep of
     * channels keep users too.
     */
    static final String USERS = "/meta/presence/users";
    /** Between a node id and a user id, in an entry's value and in a user's field (node ids are alphanumeric). */
    static final char SEPARATOR = '\u001f';
    /** How {@link #SEPARATOR} is named in this class's documentation. */
    static final String SEPARATOR_NAME = "U+001F";

    private final RedisBackplane backplane;
    private final RedisPresence seam;
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
    /**
     * Presence commands in flight on the publishing connection, at most {@link #budget(int)}: see {@link #budget}.
     * A permit is taken before a script is sent and given back when Redis answers (or the command fails).
     */
    private final Semaphore inFlight;
    /** A refresh round's share of {@link #inFlight}: {@value #ROUND_WINDOW} permits. */
    private final Semaphore roundWindow = new Semaphore(ROUND_WINDOW);
    private final int budget;
    private final AtomicLong joinsDeferred = new AtomicLong();
    private final AtomicLong leavesDeferred = new AtomicLong();
    private final AtomicLong roundsCut = new AtomicLong();
    private final AtomicLong rounds = new AtomicLong();
    /** The counts at the last round's log line, so that a round logs what happened since. Timer thread only. */
    private long joinsLogged;
    private long leavesLogged;
    /** Where the last round stopped for want of budget (a channel name, a shard), or null / 0. Timer thread only. */
    private String refreshFrom;
    private int sweepFrom;
    private volatile ScheduledExecutorService timer;

    Presence(RedisBackplane backplane, RedisPresence seam, StreamShards shards, RedisBackplaneConfig config,
            String nodeId) {
        this.backplane = backplane;
        this.seam = seam;
        this.shards = shards;
        this.config = config;
        this.nodeId = nodeId;
        this.budget = budget(config.maxPendingPublishes());
        this.inFlight = new Semaphore(budget);
        for (String user : seam.localUserIds()) {
            local.computeIfAbsent(USERS, n -> ConcurrentHashMap.newKeySet()).add(userField(user));
        }
    }

    /**
     * How many presence commands (joins, leaves, refresh and sweep calls) may be in flight at once: a quarter of
     * {@link RedisBackplaneConfig#MAX_PENDING_PUBLISHES}, at most {@value #MAX_BUDGET}, at least 1.
     *
     * <p>Why a budget on the publishing connection rather than a connection of its own: presence scripts append
     * their join and leave events to the same fan-out streams as the publishes, and one connection keeps a node's
     * presence changes and publishes in the order it made them; a second connection would also double the
     * reconnect handling {@code RedisBackplane} does for the one it has, and would not spare Redis the work (Redis
     * runs one script at a time, whichever connection sent it). What starved publishes was the count of commands
     * queued at once (10,000 refresh scripts filling Lettuce's request queue, bounded by {@code
     * maxPendingPublishes}): with a refresh call per channel, and this budget, which {@link RedisLink} adds to that
     * queue's size, presence never takes a publish's place in it. Over the budget a join is left to the next
     * refresh (which re-adds it), a leave to expiry (the sweep emits it after the TTL), and a refresh or sweep
     * round waits for permits until its period is over, then stops (the next round starts where it stopped).</p>
     *
     * @param maxPendingPublishes {@link RedisBackplaneConfig#maxPendingPublishes()}
     * @return the budget
     */
    static int budget(int maxPendingPublishes) {
        return Math.max(1, Math.min(MAX_BUDGET, maxPendingPublishes / 4));
    }

    void start() {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "redis-backplane-presence");
            thread.setDaemon(true);
            return thread;
        });
        long period = period();
        scheduler.scheduleWithFixedDelay(this::refresh, period, period, TimeUnit.MILLISECONDS);
        timer = scheduler;
    }

    private long period() {
        return Math.max(1, config.presenceTtl().toMillis() / 3);
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

    /** @return joins not sent for want of budget (left to the next refresh), since the start */
    long joinsDeferred() {
        return joinsDeferred.get();
    }

    /** @return leaves not sent for want of budget (left to expiry), since the start */
    long leavesDeferred() {
        return leavesDeferred.get();
    }

    /** @return refresh-and-sweep rounds that stopped before their end for want of budget, since the start */
    long roundsCut() {
        return roundsCut.get();
    }

    /** @return refresh-and-sweep rounds run (to their end or not), since the start */
    long rounds() {
        return rounds.get();
    }

    /** @return presence commands in flight now */
    int inFlight() {
        return budget - inFlight.availablePermits();
    }

    private static boolean tracked(ServerChannel channel) {
        ChannelId id = channel.getChannelId();
        return id.isBroadcast() && !id.isWildcard();
    }

    @Override
    public void subscribed(ServerSession session, ServerChannel channel, ServerMessage message) {
        if (tracked(channel)) {
            join(channel.getId(), session.getId(), valueOf(session.getId()));
        }
    }

    /**
     * @param sessionId a session of this node
     * @return its entries' value: this node's id, and the user it is tied to if any
     */
    private String valueOf(String sessionId) {
        String user = seam.userOf(sessionId);
        return user == null ? nodeId : nodeId + SEPARATOR + user;
    }

    private String userField(String user) {
        return nodeId + SEPARATOR + user;
    }

    /** A user has its first session on this node: its entry is written (and refreshed from now on). */
    void userPresent(String user) {
        join(USERS, userField(user), nodeId);
    }

    /** A user's last session on this node went: its entry is removed. */
    void userAbsent(String user) {
        leave(USERS, userField(user));
    }

    /**
     * A session's tie changed: its entries are written again with the new value (no join event: the entries exist).
     *
     * @param sessionId the session
     * @param channels the plain channels it is subscribed to
     */
    void retie(String sessionId, List<String> channels) {
        String value = valueOf(sessionId);
        for (String channel : channels) {
            join(channel, sessionId, value);
        }
    }

    private void join(String channel, String field, String value) {
        synchronized (updates) {
            local.computeIfAbsent(channel, n -> ConcurrentHashMap.newKeySet()).add(field);
            RedisLink.Connection connection = backplane.connection();
            if (connection == null) {
                return;
            }
            if (!inFlight.tryAcquire()) {
                joinsDeferred.incrementAndGet();
                return;
            }
            send(connection, JOIN, JOIN_SHA, joinKeys(channel), joinArgs(channel, value, true, List.of(field)));
        }
    }

    @Override
    public void unsubscribed(ServerSession session, ServerChannel channel, ServerMessage message) {
        if (tracked(channel)) {
            leave(channel.getId(), session.getId());
        }
    }

    private void leave(String name, String field) {
        synchronized (updates) {
            local.computeIfPresent(name, (n, sessions) -> {
                sessions.remove(field);
                return sessions.isEmpty() ? null : sessions;
            });
            RedisLink.Connection connection = backplane.connection();
            if (connection == null) {
                return;
            }
            if (!inFlight.tryAcquire()) {
                leavesDeferred.incrementAndGet();
                return;
            }
            send(connection, LEAVE, LEAVE_SHA, new String[] {shards.presenceKeyOf(name),
                shards.presenceExpiryKeyOf(name), shards.keyOf(name)}, List.of(field, name,
                    Integer.toString(config.streamMaxLength()), nodeId));
        }
    }

    private String[] joinKeys(String channel) {
        return new String[] {shards.presenceKeyOf(channel), shards.presenceExpiryKeyOf(channel),
            shards.presenceChannelsKey(channel), shards.keyOf(channel)};
    }

    /**
     * @param value each entry's value: the node's id, with the user's after {@link #SEPARATOR} if tied
     * @param takeOver true for a subscription made here (an entry of another node's becomes this node's), false for
     *        a refresh (another node's entry is left alone)
     */
    private List<String> joinArgs(String channel, String value, boolean takeOver, List<String> sessions) {
        List<String> args = new ArrayList<>(5 + sessions.size());
        args.add(value);
        args.add(Long.toString(config.presenceTtl().toMillis()));
        args.add(channel);
        args.add(Integer.toString(config.streamMaxLength()));
        args.add(takeOver ? "1" : "0");
        args.addAll(sessions);
        return args;
    }

    /**
     * One round, on the timer thread: refreshes this node's entries (re-adding any Redis lost), one call per channel
     * and {@value #REFRESH_CHUNK} sessions, then sweeps every channel with presence; within the budget, waiting for
     * permits until the period is over.
     */
    private void refresh() {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(period());
        boolean cut = false;
        try {
            RedisLink.Connection connection = backplane.connection();
            if (connection != null) {
                cut = !refreshOwn(connection, deadline) || !sweep(connection, deadline);
            }
        } catch (InterruptedException stopped) {
            Thread.currentThread().interrupt();
            return;
        } catch (RuntimeException | ExecutionException | TimeoutException failure) {
            LOG.debug("Presence refresh failed: {}", failure.toString());
        }
        if (cut) {
            roundsCut.incrementAndGet();
        }
        rounds.incrementAndGet();
        long joins = joinsDeferred.get();
        long leaves = leavesDeferred.get();
        if (cut || joins != joinsLogged || leaves != leavesLogged) {
            LOG.info("Presence over its budget of {} Redis commands in flight: {} joins left to the next refresh and "
                    + "{} leaves left to expiry since the last round{}", budget, joins - joinsLogged,
                    leaves - leavesLogged, cut ? "; this round stopped early, the next one goes on" : "");
            joinsLogged = joins;
            leavesLogged = leaves;
        }
    }

    /** @return false if it stopped for want of budget ({@link #refreshFrom} then says where the next one starts) */
    private boolean refreshOwn(RedisLink.Connection connection, long deadline) throws InterruptedException {
        List<String> channels = new ArrayList<>(local.keySet());
        Collections.sort(channels);
        int first = 0;
        if (refreshFrom != null) {
            int found = Collections.binarySearch(channels, refreshFrom);
            first = found >= 0 ? found : Math.min(channels.size(), -found - 1);
        }
        refreshFrom = null;
        for (int i = 0; i < channels.size(); i++) {
            String channel = channels.get((first + i) % channels.size());
            Set<String> listed = local.get(channel);
            List<String> sessions = listed == null ? List.of() : new ArrayList<>(listed);
            for (int from = 0; from < sessions.size(); from += REFRESH_CHUNK) {
                if (!acquire(deadline)) {
                    refreshFrom = channel;
                    return false;
                }
                List<String> chunk = sessions.subList(from, Math.min(sessions.size(), from + REFRESH_CHUNK));
                synchronized (updates) {
                    // Only those still subscribed, checked and sent under the lock that a leave takes too.
                    Set<String> current = local.get(channel);
                    // One call per value (sessions tied to different users have different ones): the first takes
                    // the permits acquired, the others one of the budget each if there is one, else the next round.
                    Map<String, List<String>> byValue = new LinkedHashMap<>();
                    for (String session : chunk) {
                        if (current != null && current.contains(session)) {
                            byValue.computeIfAbsent(USERS.equals(channel) ? nodeId : valueOf(session),
                                    v -> new ArrayList<>(chunk.size())).add(session);
                        }
                    }
                    if (byValue.isEmpty()) {
                        release(true);
                    }
                    boolean round = true;
                    for (Map.Entry<String, List<String>> group : byValue.entrySet()) {
                        if (round || inFlight.tryAcquire()) {
                            send(connection, JOIN, JOIN_SHA, joinKeys(channel), joinArgs(channel, group.getKey(),
                                    false, group.getValue()), round);
                        } else {
                            joinsDeferred.incrementAndGet();
                        }
                        round = false;
                    }
                }
            }
        }
        return true;
    }

    /**
     * Sweeps every channel with presence, one call per channel, shards from where the last round stopped.
     *
     * @return false if it stopped for want of budget
     */
    private boolean sweep(RedisLink.Connection connection, long deadline)
            throws InterruptedException, ExecutionException, TimeoutException {
        int count = shards.count();
        int first = sweepFrom % count;
        sweepFrom = 0;
        for (int i = 0; i < count; i++) {
            int shard = (first + i) % count;
            long left = Math.max(1, deadline - System.nanoTime());
            Set<byte[]> channels = connection.async().smembers(shards.presenceChannelsKeyOf(shard))
                    .get(left, TimeUnit.NANOSECONDS);
            for (byte[] raw : channels) {
                if (!acquire(deadline)) {
                    sweepFrom = shard;
                    return false;
                }
                String channel = new String(raw, StandardCharsets.UTF_8);
                send(connection, SWEEP, SWEEP_SHA, joinKeys(channel), List.of(channel,
                        Integer.toString(config.streamMaxLength())), true);
            }
        }
        return true;
    }

    /**
     * Takes a permit of the round's window and one of the budget, waiting until the deadline at most (the timer
     * thread only: it may wait).
     */
    private boolean acquire(long deadline) throws InterruptedException {
        if (!roundWindow.tryAcquire(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
            return false;
        }
        if (!inFlight.tryAcquire(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
            roundWindow.release();
            return false;
        }
        return true;
    }

    private void release(boolean round) {
        inFlight.release();
        if (round) {
            roundWindow.release();
        }
    }

    private void send(RedisLink.Connection connection, String script, String sha, String[] keys, List<String> args) {
        send(connection, script, sha, keys, args, false);
    }

    /**
     * Sends a script by its digest, holding the permits taken by the caller until Redis answers: one of the budget,
     * and one of the round's window if {@code round}.
     */
    private void send(RedisLink.Connection connection, String script, String sha, String[] keys, List<String> args,
            boolean round) {
        byte[][] values = new byte[args.size()][];
        for (int i = 0; i < values.length; i++) {
            values[i] = args.get(i).getBytes(StandardCharsets.UTF_8);
        }
        CompletableFuture<Object> reply;
        try {
            reply = HistoryStore.run(connection, script, sha, ScriptOutputType.INTEGER, keys, values);
        } catch (RuntimeException rejected) {
            release(round);
            LOG.debug("Presence update refused: {}", rejected.toString());
            return;
        }
        reply.whenComplete((value, failure) -> {
            release(round);
            if (failure != null) {
                LOG.debug("Presence update failed: {}", failure.toString());
            }
        });
    }

    /** @return session id to node id, of the live entries of a channel */
    CompletableFuture<Map<String, String>> members(String channel) {
        return values(channel).thenApply(values -> {
            Map<String, String> members = new LinkedHashMap<>();
            values.forEach((session, value) -> members.put(session, split(value)[0]));
            return members;
        });
    }

    /**
     * @param channel a plain channel, or {@link #USERS}
     * @return each live entry's field (a session id, or a user's {@code node<SEPARATOR>user}) to its value
     */
    CompletableFuture<Map<String, String>> values(String channel) {
        RedisLink.Connection connection = backplane.connection();
        if (connection == null) {
            return CompletableFuture.failedFuture(new IllegalStateException("not connected to Redis"));
        }
        return HistoryStore.<List<Object>>run(connection, MEMBERS, MEMBERS_SHA, ScriptOutputType.MULTI,
                new String[] {shards.presenceKeyOf(channel), shards.presenceExpiryKeyOf(channel)})
                .thenApply(flat -> {
                    Map<String, String> members = new LinkedHashMap<>();
                    for (int i = 0; i + 1 < flat.size(); i += 2) {
                        members.put(text(flat.get(i)), text(flat.get(i + 1)));
                    }
                    return members;
                });
    }

    /**
     * Tells the listeners of a presence event read from a fan-out stream: the seam's of every event, the backplane's
     * of channels' events (not users').
     */
    void deliver(Map<String, byte[]> body) {
        String channel = text(body.get("c"));
        boolean joined = "join".equals(text(body.get(EVENT_FIELD)));
        if (USERS.equals(channel)) {
            String[] field = split(text(body.get("s")));
            seam.fire(new org.bayeux.server.cluster.PresenceEvent(null, new PresenceEntry(null, field[1], field[0]),
                    joined));
            return;
        }
        String session = text(body.get("s"));
        String[] value = split(text(body.get("n")));
        seam.fire(new org.bayeux.server.cluster.PresenceEvent(channel, new PresenceEntry(session, value[1], value[0]),
                joined));
        PresenceEvent event = new PresenceEvent(channel, session, value[0], joined);
        for (PresenceListener listener : listeners) {
            try {
                listener.presence(event);
            } catch (RuntimeException failure) {
                LOG.warn("A presence listener failed", failure);
            }
        }
    }

    /**
     * @param value an entry's value ({@code node}, or {@code node<SEPARATOR>user}) or a user's field
     * @return the node id, and the user id or null
     */
    static String[] split(String value) {
        int at = value.indexOf(SEPARATOR);
        return at < 0 ? new String[] {value, null} : new String[] {value.substring(0, at), value.substring(at + 1)};
    }

    private static String text(Object value) {
        return value instanceof byte[] ? new String((byte[]) value, StandardCharsets.UTF_8) : String.valueOf(value);
    }

}
