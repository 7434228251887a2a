package org.bayeux.backplane.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

import io.lettuce.core.ScriptOutputType;
import org.bayeux.server.cluster.ChannelPosition;
import org.bayeux.server.cluster.SessionState;
import org.bayeux.server.cluster.SessionStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link SessionStore} that writes each session's durable state to Redis, where any node can {@link #find} it: one
 * hash per session, {@code <keyPrefix>:session:{<digest>}} (the digest as hash tag: one key per command, any Redis
 * Cluster slot), holding its subscriptions, its per-channel {@link SessionState#positions() positions}, its
 * acknowledged batch, its delivery count, its {@code maxInterval}, the node that wrote it and when.
 *
 * <p><b>No clientId in Redis.</b> A session is found by its id, never listed, so a digest of the id serves as well as
 * the id: the key holds {@link SessionDigest#of} the id (an HMAC-SHA256 keyed with
 * {@link RedisBackplaneConfig#SESSION_KEY_FILE}, the same on every node, or a plain SHA-256 without it), and the hash
 * holds no id. Whoever reads Redis (a stolen backup, a compromised replica) learns no clientId from it, which in the
 * cookie-less binding would be enough to carry the session.</p>
 *
 * <p><b>Never on the engine's threads.</b> The engine's calls ({@link #created}, {@link #changed}, {@link #removed})
 * only note the session in a map, one entry per session however often it changes. One thread of this store writes
 * the noted sessions every {@link RedisBackplaneConfig#SESSION_WRITE_DELAY} (reading each one's state then, so that
 * a write carries the latest state and a session is written at most once per period), deletes removed ones, and
 * renews the expiry of every live session's key every {@link RedisBackplaneConfig#SESSION_REFRESH}.</p>
 *
 * <p><b>Expiry.</b> A key expires {@code maxInterval + 2 × sessionRefresh} after it was last written or renewed: while
 * its node lives it is renewed every {@code sessionRefresh}; once the node is gone (or cut off from Redis) it outlives
 * the node's last renewal by at least {@code maxInterval + sessionRefresh}, as long as a live node would have kept the
 * session without its client, and at most {@code maxInterval + 2 × sessionRefresh}. A removed session's key is
 * deleted at once (or expires, if Redis was away then).</p>
 *
 * <p><b>Redis away.</b> Writes, deletes and renewals that fail (refused at once while the connection is down, or
 * unanswered within {@link RedisBackplaneConfig#OPERATION_TIMEOUT}) are retried with the session's latest state at
 * the next period, for as long as the session lives; nothing the engine does waits for them. A renewal that finds the
 * key gone (Redis restarted without its data, or flushed) writes the session again.</p>
 */
public final class RedisSessionStore implements SessionStore, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RedisSessionStore.class);
    /** The {@code maxInterval} assumed for a session that does not say its own. */
    static final Duration DEFAULT_MAX_INTERVAL = Duration.ofSeconds(10);
    /** The most removed sessions waiting to be deleted; past it they are left to expire. */
    static final int MAX_PENDING_DELETES = 100_000;
    /** Field prefixes and fields of a session's hash. */
    static final String SUBSCRIPTION = "s:";
    static final String POSITION = "p:";
    static final String ACK_BATCH = "ackBatch";
    static final String DELIVERED = "delivered";
    static final String MAX_INTERVAL = "maxInterval";
    static final String NODE = "node";
    static final String UPDATED = "updated";

    /** KEYS: the session's hash. ARGV: TTL ms, then field, value, field, value... Replaces the whole hash. */
    static final String WRITE = String.join("\n",
            "redis.call('DEL', KEYS[1])",
            "for i = 2, #ARGV, 200 do",
            "  redis.call('HSET', KEYS[1], unpack(ARGV, i, math.min(i + 199, #ARGV)))",
            "end",
            "redis.call('PEXPIRE', KEYS[1], ARGV[1])",
            "return 1");
    private static final String WRITE_SHA = HistoryStore.sha1(WRITE);

    private final RedisBackplaneConfig config;
    private final String nodeId;
    private final String prefix;
    private final SessionDigest digest;
    /** Sessions of this node that live: their keys are renewed. */
    private final ConcurrentHashMap<String, SessionState> live = new ConcurrentHashMap<>();
    /** Sessions of this node whose state changed since it was last written. */
    private final ConcurrentHashMap<String, SessionState> dirty = new ConcurrentHashMap<>();
    /** Sessions removed whose keys are still to be deleted. */
    private final Set<String> deletes = ConcurrentHashMap.newKeySet();
    private final LongAdder writes = new LongAdder();
    private final LongAdder failures = new LongAdder();
    private final int chunk;
    private volatile RedisLink link;
    private volatile RedisLink.Connection connection;
    private volatile Thread writer;
    private volatile boolean running;
    /** Whether the last round failed: one WARN per outage, one INFO when it ends. */
    private boolean failing;
    /** Deletes and renewals Redis answered; only the writer thread counts them. */
    private long renewals;

    /**
     * @param config where Redis is ({@link RedisBackplaneConfig#URI}), the key prefix, the operation timeout, and
     *               {@link RedisBackplaneConfig#SESSION_WRITE_DELAY} and {@link RedisBackplaneConfig#SESSION_REFRESH}
     * @param nodeId this node's name in the hashes it writes
     * @throws org.bayeux.server.config.InvalidConfigurationException if {@link RedisBackplaneConfig#SESSION_KEY_FILE}
     *         is unsafe, unreadable or too short
     */
    public RedisSessionStore(RedisBackplaneConfig config, String nodeId) {
        this.config = Objects.requireNonNull(config, "config");
        this.nodeId = Objects.requireNonNull(nodeId, "nodeId");
        this.prefix = config.keyPrefix() + ":session:";
        this.digest = SessionDigest.from(config);
        // Each round's commands wait in Lettuce's bounded queue together: keep them well within it.
        this.chunk = Math.max(1, Math.min(1000, config.maxPendingPublishes()));
    }

    /** @return the key of a session's hash: {@code <keyPrefix>:session:{<digest of the sessionId>}} */
    public String key(String sessionId) {
        return prefix + "{" + digest.of(sessionId) + "}";
    }

    /** Starts the writer thread, which connects to Redis (and keeps trying while it cannot). */
    public synchronized void start() {
        if (running) {
            return;
        }
        running = true;
        link = RedisLink.create(config, RedisLink.MAX_BACKOFF);
        Thread thread = new Thread(this::run, "redis-session-store");
        thread.setDaemon(true);
        writer = thread;
        thread.start();
    }

    /**
     * Stops writing: the keys of the sessions still live are left to expire (an engine stops its cluster before it
     * removes its sessions, so the sessions of a node that stops are not deleted but expire, as those of a node that
     * dies do).
     */
    @Override
    public void close() {
        Thread thread;
        synchronized (this) {
            if (!running) {
                return;
            }
            running = false;
            thread = writer;
        }
        LockSupport.unpark(thread);
        try {
            thread.join(config.operationTimeout().multipliedBy(3).plusSeconds(1).toMillis());
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
        link.shutdown();
        connection = null;
    }

    /** @return how many session writes Redis took since start */
    public long writes() {
        return writes.sum();
    }

    /** @return how many writes, deletes or renewals failed since start (each retried) */
    public long failures() {
        return failures.sum();
    }

    // ---- the engine's calls: never wait -------------------------------------------------------------------------

    @Override
    public void created(SessionState session) {
        live.put(session.sessionId(), session);
        dirty.put(session.sessionId(), session);
    }

    @Override
    public void changed(SessionState session) {
        String id = session.sessionId();
        if (live.containsKey(id)) {
            dirty.put(id, session);
        }
    }

    @Override
    public void removed(String sessionId) {
        live.remove(sessionId);
        dirty.remove(sessionId);
        if (deletes.size() < MAX_PENDING_DELETES) {
            deletes.add(sessionId);
        }
    }

    // ---- reading any node's session -------------------------------------------------------------------------

    /**
     * Blocks up to the operation timeout: not for engine threads.
     *
     * @throws IllegalStateException if Redis could not be read (not connected, or no answer in time)
     */
    @Override
    public SessionState find(String sessionId) {
        try {
            return findAsync(sessionId).toCompletableFuture()
                    .get(config.operationTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading a session from Redis", interrupted);
        } catch (ExecutionException | TimeoutException failed) {
            throw new IllegalStateException("could not read a session from Redis", failed);
        }
    }

    @Override
    public CompletionStage<SessionState> findAsync(String sessionId) {
        RedisLink.Connection current = connection;
        if (current == null) {
            return CompletableFuture.failedFuture(new IllegalStateException("not connected to Redis"));
        }
        return current.async().hgetall(key(sessionId)).toCompletableFuture()
                .orTimeout(config.operationTimeout().toMillis(), TimeUnit.MILLISECONDS)
                .thenApply(fields -> fields == null || fields.isEmpty() ? null : parse(sessionId, fields));
    }

    /**
     * @param sessionId the session's id
     * @param fields its hash
     * @return its state as written
     */
    static StoredSession parse(String sessionId, Map<String, byte[]> fields) {
        Set<String> subscriptions = new LinkedHashSet<>();
        Map<String, ChannelPosition> positions = new LinkedHashMap<>();
        for (Map.Entry<String, byte[]> field : fields.entrySet()) {
            String name = field.getKey();
            if (name.startsWith(SUBSCRIPTION)) {
                subscriptions.add(name.substring(SUBSCRIPTION.length()));
            } else if (name.startsWith(POSITION)) {
                positions.put(name.substring(POSITION.length()), ChannelPosition.parse(text(field.getValue())));
            }
        }
        return new StoredSession(sessionId, Set.copyOf(subscriptions), number(fields, DELIVERED, 0),
                number(fields, ACK_BATCH, -1), Map.copyOf(positions),
                Duration.ofMillis(number(fields, MAX_INTERVAL, DEFAULT_MAX_INTERVAL.toMillis())),
                fields.containsKey(NODE) ? text(fields.get(NODE)) : null, number(fields, UPDATED, 0));
    }

    private static long number(Map<String, byte[]> fields, String name, long otherwise) {
        byte[] value = fields.get(name);
        return value == null ? otherwise : Long.parseLong(text(value));
    }

    private static String text(byte[] value) {
        return new String(value, StandardCharsets.UTF_8);
    }

    // ---- the writer thread ----------------------------------------------------------------------------------

    private void run() {
        long period = config.sessionWriteDelay().toNanos();
        long refresh = config.sessionRefresh().toNanos();
        long nextRefresh = System.nanoTime() + refresh;
        while (running) {
            long started = System.nanoTime();
            if (connected()) {
                long failed = failures.sum();
                long answered = writes.sum() + renewals;
                writeChanged();
                deleteRemoved();
                if (started - nextRefresh >= 0) {
                    renewLive();
                    nextRefresh = started + refresh;
                }
                // A round that sent nothing says nothing about Redis.
                if (failures.sum() != failed) {
                    outcome(false, null);
                } else if (writes.sum() + renewals != answered) {
                    outcome(true, null);
                }
            }
            // One round per period, however many sessions changed meanwhile (only close() wakes it early).
            long next = started + period;
            for (long left = next - System.nanoTime(); running && left > 0; left = next - System.nanoTime()) {
                LockSupport.parkNanos(this, left);
            }
        }
    }

    private boolean connected() {
        if (connection != null) {
            return true;
        }
        try {
            RedisLink.Connection opened = link.connect();
            opened.setTimeout(config.operationTimeout());
            connection = opened;
            return true;
        } catch (RuntimeException unreachable) {
            outcome(false, unreachable);
            return false;
        }
    }

    private void outcome(boolean ok, RuntimeException cause) {
        if (!ok && !failing) {
            LOG.warn("Sessions' state cannot be written to {} now; retrying every {} ms{}", link.description(),
                    config.sessionWriteDelay().toMillis(), cause == null ? "" : ": " + cause);
        } else if (ok && failing) {
            LOG.info("Sessions' state is written to {} again", link.description());
        }
        failing = !ok;
    }

    /** Writes the sessions noted since the last round, a chunk at a time. */
    private boolean writeChanged() {
        boolean ok = true;
        while (running && !dirty.isEmpty()) {
            List<SessionState> taken = new ArrayList<>(Math.min(chunk, dirty.size()));
            Iterator<Map.Entry<String, SessionState>> it = dirty.entrySet().iterator();
            while (it.hasNext() && taken.size() < chunk) {
                Map.Entry<String, SessionState> entry = it.next();
                if (dirty.remove(entry.getKey(), entry.getValue())) {
                    taken.add(entry.getValue());
                }
            }
            List<CompletableFuture<Long>> sent = new ArrayList<>(taken.size());
            for (SessionState session : taken) {
                sent.add(HistoryStore.run(connection, WRITE, WRITE_SHA, ScriptOutputType.INTEGER,
                        new String[] {key(session.sessionId())}, writeArgs(session)));
            }
            for (int i = 0; i < sent.size(); i++) {
                if (await(sent.get(i)) != null) {
                    writes.increment();
                } else {
                    ok = false;
                    SessionState session = taken.get(i);
                    if (live.containsKey(session.sessionId())) {
                        dirty.putIfAbsent(session.sessionId(), session);
                    }
                }
            }
            if (!ok) {
                // Redis is away: the rest waits for the next round.
                return false;
            }
        }
        return ok;
    }

    private byte[][] writeArgs(SessionState session) {
        Set<String> subscriptions = session.subscriptions();
        Map<String, ChannelPosition> positions = session.positions();
        Duration maxInterval = session.maxInterval() == null ? DEFAULT_MAX_INTERVAL : session.maxInterval();
        List<byte[]> args = new ArrayList<>(2 * (subscriptions.size() + positions.size()) + 12);
        args.add(HistoryStore.ascii(ttl(maxInterval).toMillis()));
        pair(args, NODE, nodeId);
        pair(args, UPDATED, Long.toString(System.currentTimeMillis()));
        pair(args, MAX_INTERVAL, Long.toString(maxInterval.toMillis()));
        pair(args, ACK_BATCH, Long.toString(session.ackBatch()));
        pair(args, DELIVERED, Long.toString(session.deliveryPosition()));
        for (String channel : subscriptions) {
            pair(args, SUBSCRIPTION + channel, "1");
        }
        for (Map.Entry<String, ChannelPosition> position : positions.entrySet()) {
            pair(args, POSITION + position.getKey(), position.getValue().toString());
        }
        return args.toArray(new byte[0][]);
    }

    private static void pair(List<byte[]> args, String field, String value) {
        args.add(HistoryStore.ascii(field));
        args.add(HistoryStore.ascii(value));
    }

    /** @return how long a session's key lives after its last write or renewal */
    Duration ttl(Duration maxInterval) {
        return maxInterval.plus(config.sessionRefresh().multipliedBy(2));
    }

    private boolean deleteRemoved() {
        boolean ok = true;
        List<String> taken = new ArrayList<>();
        for (String id : deletes) {
            if (taken.size() >= chunk) {
                break;
            }
            taken.add(id);
        }
        List<CompletableFuture<Long>> sent = new ArrayList<>(taken.size());
        for (String id : taken) {
            sent.add(connection.async().del(key(id)).toCompletableFuture());
        }
        for (int i = 0; i < sent.size(); i++) {
            if (await(sent.get(i)) != null) {
                renewals++;
                deletes.remove(taken.get(i));
            } else {
                ok = false;
            }
        }
        return ok;
    }

    /** Renews every live session's key; one whose key is gone is written again. */
    private boolean renewLive() {
        boolean ok = true;
        List<SessionState> all = new ArrayList<>(live.values());
        for (int from = 0; from < all.size() && running; from += chunk) {
            List<SessionState> part = all.subList(from, Math.min(all.size(), from + chunk));
            List<CompletableFuture<Boolean>> sent = new ArrayList<>(part.size());
            for (SessionState session : part) {
                Duration maxInterval = session.maxInterval() == null ? DEFAULT_MAX_INTERVAL : session.maxInterval();
                sent.add(connection.async().pexpire(key(session.sessionId()), ttl(maxInterval).toMillis())
                        .toCompletableFuture());
            }
            for (int i = 0; i < sent.size(); i++) {
                Boolean renewed = await(sent.get(i));
                SessionState session = part.get(i);
                if (renewed == null) {
                    ok = false;
                    continue;
                }
                renewals++;
                if (!renewed && live.containsKey(session.sessionId())) {
                    dirty.putIfAbsent(session.sessionId(), session);
                }
            }
            if (!ok) {
                return false;
            }
        }
        return ok;
    }

    /** @return the command's answer, or null if it failed or was not answered within the operation timeout */
    private <T> T await(CompletableFuture<T> future) {
        try {
            return future.get(config.operationTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            future.cancel(false);
        } catch (ExecutionException | TimeoutException | RuntimeException failed) {
            future.cancel(false);
            LOG.debug("A session store command failed", failed);
        }
        failures.increment();
        return null;
    }

    /**
     * Records, and writes before it completes, the position a channel had when a session's subscription to it took
     * effect (the recovery's seam): where the session resumes on another node if nothing of the channel reached it.
     *
     * @param sessionId a session of this node
     * @param channel a plain channel it just subscribed to
     * @param position the channel's position at the seam
     * @return completes when written (or failed)
     */
    CompletionStage<Void> subscribedAt(String sessionId, String channel, ChannelPosition position) {
        return CompletableFuture.completedFuture(null);
    }

    /**
     * A session's state as a node wrote it to Redis.
     *
     * @param sessionId its id, the client's {@code clientId}
     * @param subscriptions the channels and wildcards it subscribed to
     * @param deliveryPosition how many messages its node had handed to its carriers
     * @param ackBatch the last batch its client acknowledged under the {@code ack} extension, or -1
     * @param positions per plain channel, the last position its client is known to have
     * @param maxInterval how long it lives without its client
     * @param node the node that wrote it
     * @param updatedMillis when it was written (the writing node's clock, ms since the epoch)
     */
    public record StoredSession(String sessionId, Set<String> subscriptions, long deliveryPosition, long ackBatch,
            Map<String, ChannelPosition> positions, Duration maxInterval, String node, long updatedMillis)
            implements SessionState {
    }
}
