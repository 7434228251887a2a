package org.bayeux.backplane.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

import io.lettuce.core.KeyValue;
import io.lettuce.core.ScriptOutputType;
import org.bayeux.server.cluster.ChannelPosition;
import org.bayeux.server.cluster.SessionFencedException;
import org.bayeux.server.cluster.SessionState;
import org.bayeux.server.cluster.SessionStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link SessionStore} that writes each session's durable state to Redis, where any node can {@link #find} it and
 * {@link #adopt} it: one hash per session, {@code <keyPrefix>:session:{<digest>}} (the digest as hash tag: one key per
 * command, any Redis Cluster slot), holding its subscriptions, its per-channel {@link SessionState#positions()
 * positions}, its acknowledged batch, its delivery count, its {@code maxInterval}, its owner and generation, its
 * browser binding's digest, the positions of its subscriptions' seams, its journal of unacknowledged batches and its
 * portable attributes ({@link SessionHash} names the fields).
 *
 * <p><b>No clientId in Redis.</b> A session is found by its id, never listed, so a digest of the id serves as well as
 * the id: the key holds {@link SessionDigest#of} the id (an HMAC-SHA256 keyed with
 * {@link RedisBackplaneConfig#SESSION_KEY_FILE}, the same on every node, or a plain SHA-256 without it), and the hash
 * holds no id. Whoever reads Redis (a stolen backup, a compromised replica) learns no clientId from it, which in the
 * cookie-less binding would be enough to carry the session.</p>
 *
 * <p><b>Owners and fencing.</b> Each node holds a lease, {@code <keyPrefix>:node:{<nodeId>}} ({@link NodeLease}).
 * Each session names its owner ({@code own}) and a generation ({@code gen}: 1 at creation, one more at each
 * adoption). Every write, renewal and delete of a session is a script that runs only if the hash still names this
 * node and the generation it holds ({@link SessionScripts}); one that finds another owner is fenced: the store stops
 * tracking the session, tells the engine ({@link #onMoved}) and never deletes the key. A node whose lease could not be
 * renewed in time is not {@link #serving()} until Redis answers again and it has checked every session it tracks.</p>
 *
 * <p><b>Never on the engine's threads.</b> The engine's lazy calls ({@link #created}, {@link #changed},
 * {@link #removed}) only note the session in a map, one entry per session however often it changes. One thread of
 * this store writes the noted sessions every {@link RedisBackplaneConfig#SESSION_WRITE_DELAY} (reading each one's
 * state then), deletes removed ones, and renews the expiry of every live session's key every
 * {@link RedisBackplaneConfig#SESSION_REFRESH}. The calls the engine waits for ({@link #writeNow}, {@link #journal},
 * {@link #subscribedAt}, {@link #adopt}, {@link #release}) give it a stage at once; a second thread of the store
 * sends their commands, pipelined on the store's one connection, and renews the lease.</p>
 *
 * <p><b>Expiry.</b> A key expires {@code max(maxInterval, reconnectWindow) + 2 × sessionRefresh} after it was last
 * written or renewed ({@link RedisBackplaneConfig#RECONNECT_WINDOW}): while its node lives it is renewed every
 * {@code sessionRefresh}; once the node is gone it outlives the node's last renewal by at least
 * {@code max(maxInterval, reconnectWindow) + sessionRefresh}, long enough for its client to reach another node. A
 * removed session's key is deleted at once (or expires, if Redis was away then).</p>
 *
 * <p><b>Redis away.</b> Lazy writes, deletes and renewals that fail (refused at once while the connection is down, or
 * unanswered within {@link RedisBackplaneConfig#OPERATION_TIMEOUT}) are retried with the session's latest state at
 * the next period, for as long as the session lives. A write or renewal that finds the key gone (Redis restarted
 * without its data, say) writes the session again; one that finds another owner is fenced.</p>
 */
public final class RedisSessionStore implements SessionStore, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RedisSessionStore.class);
    /** The {@code maxInterval} assumed for a session that does not say its own. */
    static final Duration DEFAULT_MAX_INTERVAL = Duration.ofSeconds(10);
    /** The most removed sessions waiting to be deleted; past it they are left to expire. */
    static final int MAX_PENDING_DELETES = 100_000;
    /** How long a recorded subscription seam is kept for a channel the session no longer subscribes to. */
    private static final long SEAM_GRACE_NANOS = TimeUnit.MINUTES.toNanos(1);
    private static final String CREATE = "create";
    private static final String WRITE = "write";

    private final RedisBackplaneConfig config;
    private final String nodeId;
    private final String prefix;
    private final SessionDigest digest;
    /** The sessions this node owns, by id: their keys are renewed. */
    private final ConcurrentHashMap<String, Owned> owned = new ConcurrentHashMap<>();
    /** The ids of the owned sessions by digest: what another node's release request names. */
    private final ConcurrentHashMap<String, String> byDigest = new ConcurrentHashMap<>();
    /** Sessions of this node whose state changed since it was last written. */
    private final ConcurrentHashMap<String, Owned> dirty = new ConcurrentHashMap<>();
    /** Sessions removed whose keys are still to be deleted, with the generation this node held. */
    private final ConcurrentHashMap<String, Long> deletes = new ConcurrentHashMap<>();
    private final LongAdder writes = new LongAdder();
    private final LongAdder failures = new LongAdder();
    private final LongAdder fenced = new LongAdder();
    private final LongAdder adoptions = new LongAdder();
    private final LongAdder releases = new LongAdder();
    private final int chunk;
    private final NodeLease lease;
    private final OwnerControl control;
    private volatile Consumer<String> moved = id -> { };
    private volatile RedisLink link;
    private volatile RedisLink.Connection connection;
    private volatile Thread writer;
    private volatile ScheduledExecutorService io;
    private volatile boolean running;
    /** With minReplicas: what makes written-through state, seams and journal entries wait for replicas. */
    private final ReplicaAcknowledgement replicas;
    /** True from a lapse of the lease until every session was checked again (and before the first check). */
    private volatile boolean revalidating = true;
    /** Whether the last round failed: one WARN per outage, one INFO when it ends. */
    private boolean failing;
    /** Deletes and renewals Redis answered; only the writer thread counts them. */
    private long renewals;

    /**
     * @param config where Redis is ({@link RedisBackplaneConfig#URI}), the key prefix, the operation timeout, and
     *               the session store's settings
     * @param nodeId this node's name in the hashes it writes and in its lease: unique in the cluster
     * @throws org.bayeux.server.config.InvalidConfigurationException if {@link RedisBackplaneConfig#SESSION_KEY_FILE}
     *         is unsafe, unreadable or too short
     */
    public RedisSessionStore(RedisBackplaneConfig config, String nodeId) {
        this.config = Objects.requireNonNull(config, "config");
        this.nodeId = Objects.requireNonNull(nodeId, "nodeId");
        if (nodeId.isEmpty() || nodeId.contains(" ")) {
            throw new IllegalArgumentException("a node id is a word: '" + nodeId + "'");
        }
        this.prefix = config.keyPrefix() + ":session:";
        this.digest = SessionDigest.from(config);
        // Each round's commands wait in Lettuce's bounded queue together: keep them well within it.
        this.chunk = Math.max(1, Math.min(1000, config.maxPendingPublishes()));
        this.lease = new NodeLease(NodeLease.key(config.keyPrefix(), nodeId), nodeId, config.nodeLease(),
                () -> connection, new NodeLease.Listener() {
                    @Override
                    public void lapsed() {
                        revalidating = true;
                    }

                    @Override
                    public void regained() {
                        ScheduledExecutorService executor = io;
                        if (executor != null) {
                            executor.execute(RedisSessionStore.this::revalidate);
                        }
                    }
                });
        this.control = new OwnerControl(config.keyPrefix(), nodeId, this::releaseAsked);
        this.replicas = config.minReplicas() == 0 ? null
                : new ReplicaAcknowledgement(config.minReplicas(), config.operationTimeout().toMillis() / 2);
    }

    /** @return the key of a session's hash: {@code <keyPrefix>:session:{<digest of the sessionId>}} */
    public String key(String sessionId) {
        return prefix + "{" + digest.of(sessionId) + "}";
    }

    /** @return this node's id, as its sessions' hashes name their owner */
    public String nodeId() {
        return nodeId;
    }

    /** Starts the writer thread, which connects to Redis (and keeps trying while it cannot), and the lease. */
    public synchronized void start() {
        if (running) {
            return;
        }
        running = true;
        link = RedisLink.create(config, RedisLink.MAX_BACKOFF);
        io = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "redis-session-store-io");
            thread.setDaemon(true);
            return thread;
        });
        Thread thread = new Thread(this::run, "redis-session-store");
        thread.setDaemon(true);
        writer = thread;
        thread.start();
        lease.start(io);
    }

    /**
     * Stops writing and gives up the lease: the keys of the sessions still owned are left to expire (an engine stops
     * its cluster before it removes its sessions, so the sessions of a node that stops are not deleted but expire, as
     * those of a node that dies do), and other nodes adopt them at once.
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
        io.shutdownNow();
        lease.stop();
        control.close();
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

    /**
     * @return how many of this node's writes, renewals, journal entries and deletes Redis refused since start
     *         because another node owned the session by then (or its key was gone)
     */
    public long fencedWrites() {
        return fenced.sum();
    }

    /** @return how many sessions this node adopted since start */
    public long adoptions() {
        return adoptions.sum();
    }

    /** @return a line for the backplane's dump */
    public String dump() {
        return "on, node " + nodeId + ", " + (serving() ? "serving" : "NOT serving (lease)") + ", owned "
                + owned.size() + ", writes " + writes() + ", failures " + failures() + ", fenced writes "
                + fencedWrites() + ", adoptions " + adoptions() + ", released " + releases.sum();
    }

    // ---- the engine's calls: never wait -------------------------------------------------------------------------

    @Override
    public boolean adopts() {
        return true;
    }

    @Override
    public void onMoved(Consumer<String> moved) {
        this.moved = Objects.requireNonNull(moved, "moved");
    }

    /** @return false while this node cannot prove its lease current, or checks its sessions after a lapse */
    @Override
    public boolean serving() {
        return !revalidating && lease.held();
    }

    @Override
    public void created(SessionState session) {
        Owned session1 = track(session);
        dirty.put(session1.id, session1);
    }

    @Override
    public void changed(SessionState session) {
        Owned known = owned.get(session.sessionId());
        if (known != null) {
            known.state = session;
            dirty.put(known.id, known);
        }
    }

    @Override
    public void removed(String sessionId) {
        Owned known = owned.remove(sessionId);
        dirty.remove(sessionId);
        if (known != null) {
            byDigest.remove(known.digest, sessionId);
            // Also when its creation is still on its way: a delete that comes first finds nothing, and the key then
            // expires.
            if (deletes.size() < MAX_PENDING_DELETES) {
                deletes.put(sessionId, known.generation);
            }
        }
    }

    /** @return the session's entry: the one an adoption made, or a new one of generation 1 */
    private Owned track(SessionState session) {
        Owned entry = owned.computeIfAbsent(session.sessionId(), id -> {
            Owned created = new Owned(id, digest.of(id), 1, false);
            byDigest.put(created.digest, id);
            return created;
        });
        entry.state = session;
        return entry;
    }

    @Override
    public CompletionStage<Void> writeNow(SessionState session) {
        Owned entry = track(session);
        dirty.remove(entry.id, entry);
        return replicated(onIo(() -> writeState(entry, false)));
    }

    @Override
    public CompletionStage<Void> journal(SessionState session, long batch, Map<String, ChannelPosition> positions) {
        return journal(session, batch, positions, null);
    }

    /**
     * {@inheritDoc}
     *
     * <p>The connect's {@code id} is kept with the entry when it is a short word (at most 64 letters, digits,
     * {@code -} or {@code _}: what clients send); another is not kept, which only makes the resume at most once.</p>
     */
    @Override
    public CompletionStage<Void> journal(SessionState session, long batch, Map<String, ChannelPosition> positions,
            String requestId) {
        Owned entry = owned.get(session.sessionId());
        if (entry == null) {
            return CompletableFuture.failedFuture(new SessionFencedException("not a session of this node"));
        }
        entry.state = session;
        String value = SessionHash.journalEntry(positions, requestId);
        CompletableFuture<Long> written = onIo(() -> stored(entry).thenCompose(done -> {
            List<Long> drops;
            long lastBatch;
            synchronized (entry) {
                entry.journaled.add(batch);
                entry.lastBatch = Math.max(entry.lastBatch, batch);
                lastBatch = entry.lastBatch;
                drops = entry.dropsAtOrBelow(journalFloor(session, lastBatch));
            }
            List<String> removedFields = new ArrayList<>(drops.size());
            drops.forEach(b -> removedFields.add(SessionHash.JOURNAL + b));
            return patch(entry, removedFields, SessionHash.JOURNAL + batch, value,
                    SessionHash.LAST_BATCH, Long.toString(lastBatch)).whenComplete((code, failed) -> {
                        if (failed != null && !(cause(failed) instanceof SessionFencedException)) {
                            synchronized (entry) {
                                entry.journaled.addAll(drops);
                            }
                        }
                    });
        }));
        return replicated(written);
    }

    /**
     * Records, and writes before it completes, the position a channel had when a session's subscription to it took
     * effect (the recovery's seam): where the session resumes on another node if nothing of the channel reached it.
     *
     * @param sessionId a session of this node
     * @param channel a plain channel it just subscribed to
     * @param position the channel's position at the seam
     * @return completes when written; fails with {@link SessionFencedException} if the session moved, or if Redis
     *         could not be written (the seam is written again with the session's next write)
     */
    public CompletionStage<Void> subscribedAt(String sessionId, String channel, ChannelPosition position) {
        Owned entry = owned.get(sessionId);
        if (entry == null) {
            return CompletableFuture.failedFuture(new SessionFencedException("not a session of this node"));
        }
        entry.seams.put(channel, new Seam(position, System.nanoTime()));
        return replicated(onIo(() -> stored(entry).thenCompose(done -> patch(entry, List.of(),
                SessionHash.SUBSCRIBED_AT + channel, position.toString()))));
    }

    /**
     * @param written a write Redis answered on this store's connection
     * @return completes when it is durable: with {@link RedisBackplaneConfig#MIN_REPLICAS}, once a {@code WAIT}
     *         (group-committed with the store's other writes) counted that many replicas, so that a Redis failover
     *         cannot lose what a reply or a delivery already relies on; fails if fewer hold it in time
     */
    private CompletionStage<Void> replicated(CompletionStage<Long> written) {
        ReplicaAcknowledgement waiting = replicas;
        if (waiting == null) {
            return written.thenApply(code -> null);
        }
        return written.thenCompose(code -> {
            RedisLink.Connection current = connection;
            return current == null ? CompletableFuture.failedFuture(new IllegalStateException("not connected"))
                    : waiting.confirm(current);
        });
    }

    @Override
    public CompletionStage<Void> release(SessionState session) {
        Owned entry = owned.get(session.sessionId());
        if (entry == null) {
            return CompletableFuture.completedFuture(null);
        }
        entry.state = session;
        return onIo(() -> letGo(entry)).thenApply(code -> null);
    }

    // ---- reading and adopting any node's session ------------------------------------------------------------

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
        return timed(current.async().hgetall(key(sessionId)).toCompletableFuture())
                .thenApply(fields -> fields == null || fields.isEmpty() ? null : parse(sessionId, fields));
    }

    /**
     * Adopts a session: {@code HGETALL}; if its owner let it go, or the owner's lease is gone ({@code EXISTS}), or it
     * names this node, claims it at once (a compare-and-set script on its generation); if its owner lives, asks it
     * to let the session go (PUB/SUB) and claims it once it did, its lease vanished, or a lease's time passed. Three
     * commands when the owner is gone, two when it let go.
     */
    @Override
    public CompletionStage<SessionState> adopt(String sessionId) {
        RedisLink.Connection current = connection;
        if (current == null || !running) {
            return CompletableFuture.failedFuture(new IllegalStateException("not connected to Redis"));
        }
        String key = key(sessionId);
        return timed(current.async().hgetall(key).toCompletableFuture()).thenCompose(fields -> {
            if (fields == null || fields.isEmpty()) {
                return CompletableFuture.completedFuture(null);
            }
            String owner = fields.containsKey(SessionHash.OWNER) ? SessionHash.text(fields.get(SessionHash.OWNER)) : "";
            long generation = SessionHash.number(fields, SessionHash.GENERATION, 0);
            Duration maxInterval = Duration.ofMillis(SessionHash.number(fields, SessionHash.MAX_INTERVAL,
                    DEFAULT_MAX_INTERVAL.toMillis()));
            if (owner.isEmpty() || owner.equals(nodeId)) {
                return claim(current, sessionId, generation, maxInterval);
            }
            return timed(current.async().exists(NodeLease.key(config.keyPrefix(), owner)).toCompletableFuture())
                    .thenCompose(alive -> alive == 0 ? claim(current, sessionId, generation, maxInterval)
                            : ownerLetsGo(current, key, owner, digest.of(sessionId))
                                    .thenCompose(gone -> claim(current, sessionId, generation, maxInterval)));
        });
    }

    /**
     * @return completes when the owner let the session go, its lease vanished, or a lease's time passed (never
     *         exceptionally)
     */
    private CompletableFuture<Void> ownerLetsGo(RedisLink.Connection current, String key, String owner,
            String sessionDigest) {
        CompletableFuture<Void> done = control.askRelease(current, owner, sessionDigest);
        ScheduledExecutorService executor = io;
        long period = Math.max(1, config.nodeLease().toMillis() / 3);
        // A lost notice (or an owner that died meanwhile) is caught by looking, every third of the lease.
        ScheduledFuture<?> looking = executor.scheduleAtFixedRate(() -> {
            timed(current.async().hget(key, SessionHash.OWNER).toCompletableFuture()).thenCombine(
                    timed(current.async().exists(NodeLease.key(config.keyPrefix(), owner)).toCompletableFuture()),
                    (own, alive) -> (own != null && own.length == 0) || alive == 0)
                    .thenAccept(free -> {
                        if (free) {
                            done.complete(null);
                        }
                    });
        }, period, period, TimeUnit.MILLISECONDS);
        ScheduledFuture<?> deadline = executor.schedule(() -> done.complete(null), config.nodeLease().toMillis(),
                TimeUnit.MILLISECONDS);
        return done.whenComplete((ok, failed) -> {
            looking.cancel(false);
            deadline.cancel(false);
        });
    }

    private CompletableFuture<SessionState> claim(RedisLink.Connection current, String sessionId, long generation,
            Duration maxInterval) {
        CompletableFuture<List<Object>> answer = timed(HistoryStore.run(current, SessionScripts.ADOPT,
                SessionScripts.ADOPT_SHA, ScriptOutputType.MULTI, new String[] {key(sessionId)},
                HistoryStore.ascii(generation), HistoryStore.ascii(nodeId), HistoryStore.ascii(ttl(maxInterval)
                        .toMillis())));
        return answer.thenApply(reply -> {
            if (reply == null || reply.isEmpty() || !"ok".equals(SessionHash.text((byte[]) reply.get(0)))) {
                return null;
            }
            Map<String, byte[]> fields = new java.util.LinkedHashMap<>();
            for (int i = 1; i + 1 < reply.size(); i += 2) {
                fields.put(SessionHash.text((byte[]) reply.get(i)), (byte[]) reply.get(i + 1));
            }
            StoredSession session = parse(sessionId, fields);
            Owned entry = new Owned(sessionId, digest.of(sessionId), session.generation(), true);
            entry.maxInterval = session.maxInterval();
            entry.lastBatch = session.lastBatch();
            entry.journaled.addAll(session.journal().keySet());
            long now = System.nanoTime();
            session.subscribedAt().forEach((channel, position) -> entry.seams.put(channel, new Seam(position, now)));
            Owned former = owned.put(sessionId, entry);
            if (former != null) {
                dirty.remove(sessionId);
            }
            byDigest.put(entry.digest, sessionId);
            adoptions.increment();
            return session;
        });
    }

    /** Another node asks this one to let a session go: final state, no owner, and the engine drops its copy. */
    private void releaseAsked(String sessionDigest, String asker) {
        ScheduledExecutorService executor = io;
        if (executor == null) {
            return;
        }
        executor.execute(() -> {
            RedisLink.Connection current = connection;
            String id = byDigest.get(sessionDigest);
            Owned entry = id == null ? null : owned.get(id);
            if (entry == null) {
                if (current != null) {
                    control.tellReleased(current, asker, sessionDigest);
                }
                return;
            }
            letGo(entry).whenComplete((code, failed) -> {
                if (failed == null) {
                    notifyMoved(entry.id);
                }
                RedisLink.Connection now = connection;
                if (now != null) {
                    control.tellReleased(now, asker, sessionDigest);
                }
            });
        });
    }

    /** Writes the session's final state with no owner, and stops tracking it. */
    private CompletableFuture<Long> letGo(Owned entry) {
        CompletableFuture<Long> written = entry.state == null
                ? patch(entry, List.of(), SessionHash.OWNER, "")
                : writeState(entry, true);
        return written.thenApply(code -> {
            if (owned.remove(entry.id, entry)) {
                byDigest.remove(entry.digest, entry.id);
                dirty.remove(entry.id, entry);
            }
            releases.increment();
            return code;
        });
    }

    /**
     * @param sessionId the session's id
     * @param fields its hash
     * @return its state as written
     */
    static StoredSession parse(String sessionId, Map<String, byte[]> fields) {
        return SessionHash.parse(sessionId, fields);
    }

    // ---- writes through: on the io thread, answered asynchronously --------------------------------------------

    private <T> CompletableFuture<T> onIo(java.util.function.Supplier<CompletableFuture<T>> task) {
        ScheduledExecutorService executor = io;
        if (executor == null || !running) {
            return CompletableFuture.failedFuture(new IllegalStateException("the session store is not running"));
        }
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            executor.execute(() -> {
                try {
                    task.get().whenComplete((value, failed) -> {
                        if (failed != null) {
                            result.completeExceptionally(cause(failed));
                        } else {
                            result.complete(value);
                        }
                    });
                } catch (RuntimeException failed) {
                    result.completeExceptionally(failed);
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException stopped) {
            result.completeExceptionally(new IllegalStateException("the session store is not running", stopped));
        }
        return result;
    }

    /** @return completes when the session's key exists (written now if it was not yet) */
    private CompletableFuture<Long> stored(Owned entry) {
        return entry.stored ? CompletableFuture.completedFuture(SessionScripts.DONE) : writeState(entry, false);
    }

    /**
     * Writes the session's whole state.
     *
     * @param release whether to give up ownership with it
     * @return completes with {@link SessionScripts#DONE}, or fails ({@link SessionFencedException} if fenced)
     */
    private CompletableFuture<Long> writeState(Owned entry, boolean release) {
        RedisLink.Connection current = connection;
        if (current == null) {
            dirty.putIfAbsent(entry.id, entry);
            return CompletableFuture.failedFuture(new IllegalStateException("not connected to Redis"));
        }
        byte[][] args = writeArgs(entry, release);
        return timed(HistoryStore.<Long>run(current, SessionScripts.WRITE, SessionScripts.WRITE_SHA,
                ScriptOutputType.INTEGER, new String[] {key(entry.id)}, args)).handle((code, failed) -> {
                    if (failed != null) {
                        failures.increment();
                        if (owned.get(entry.id) == entry) {
                            dirty.putIfAbsent(entry.id, entry);
                        }
                        throw new CompletionException(cause(failed));
                    }
                    return settle(entry, code);
                });
    }

    /**
     * Changes some fields of a session already written.
     *
     * @param removed fields to remove
     * @param pairs field, value, ... to set
     */
    private CompletableFuture<Long> patch(Owned entry, List<String> removed, String... pairs) {
        return patch(entry, true, removed, pairs);
    }

    /** @param again whether to write the whole state and patch once more if the hash is gone */
    private CompletableFuture<Long> patch(Owned entry, boolean again, List<String> removed, String... pairs) {
        RedisLink.Connection current = connection;
        if (current == null) {
            return CompletableFuture.failedFuture(new IllegalStateException("not connected to Redis"));
        }
        List<byte[]> args = new ArrayList<>(4 + removed.size() + pairs.length);
        args.add(HistoryStore.ascii(nodeId));
        args.add(HistoryStore.ascii(entry.generation));
        args.add(HistoryStore.ascii(WRITE));
        args.add(HistoryStore.ascii(removed.size()));
        removed.forEach(field -> args.add(HistoryStore.ascii(field)));
        for (String part : pairs) {
            args.add(HistoryStore.ascii(part));
        }
        return timed(HistoryStore.<Long>run(current, SessionScripts.PATCH, SessionScripts.PATCH_SHA,
                ScriptOutputType.INTEGER, new String[] {key(entry.id)}, args.toArray(new byte[0][])))
                .handle((code, failed) -> {
                    if (failed != null) {
                        failures.increment();
                        throw new CompletionException(cause(failed));
                    }
                    if (code != null && code == SessionScripts.GONE && again && entry.state != null) {
                        entry.stored = false;
                        return writeState(entry, false).thenCompose(done -> patch(entry, false, removed, pairs));
                    }
                    return CompletableFuture.completedFuture(settle(entry, code));
                }).thenCompose(next -> next);
    }

    /** @return DONE, else the session is fenced: no longer tracked, the engine told, and a failure thrown */
    private long settle(Owned entry, Long code) {
        if (code != null && code == SessionScripts.DONE) {
            entry.stored = true;
            writes.increment();
            return code;
        }
        fencedOff(entry);
        throw new CompletionException(new SessionFencedException(code != null && code == SessionScripts.GONE
                ? "the session's key is gone" : "another node owns the session"));
    }

    /** A write for the session was fenced: forget it here and tell the engine, once. */
    private void fencedOff(Owned entry) {
        fenced.increment();
        if (owned.remove(entry.id, entry)) {
            byDigest.remove(entry.digest, entry.id);
            dirty.remove(entry.id, entry);
            LOG.debug("A session moved to another node; its copy here is dropped");
            notifyMoved(entry.id);
        }
    }

    private void notifyMoved(String sessionId) {
        ScheduledExecutorService executor = io;
        Runnable tell = () -> {
            try {
                moved.accept(sessionId);
            } catch (RuntimeException failed) {
                LOG.warn("The listener of moved sessions failed", failed);
            }
        };
        if (executor == null || executor.isShutdown()) {
            tell.run();
        } else {
            executor.execute(tell);
        }
    }

    /** After the lease lapsed and was held again: checks every owned session's owner and generation, pipelined. */
    private void revalidate() {
        RedisLink.Connection current = connection;
        if (current == null) {
            return;
        }
        List<Owned> all = new ArrayList<>(owned.values());
        revalidate(current, all, 0).whenComplete((ok, failed) -> {
            if (failed == null) {
                revalidating = false;
                if (!all.isEmpty()) {
                    LOG.info("This node's lease is held again; {} sessions checked", all.size());
                }
            } else {
                LOG.warn("This node's sessions could not be checked after its lease lapsed; trying again: {}",
                        failed.toString());
                ScheduledExecutorService executor = io;
                if (executor != null && running) {
                    executor.schedule(() -> revalidate(), config.nodeLease().toMillis() / 3, TimeUnit.MILLISECONDS);
                }
            }
        });
    }

    private CompletableFuture<Void> revalidate(RedisLink.Connection current, List<Owned> all, int from) {
        if (from >= all.size()) {
            return CompletableFuture.completedFuture(null);
        }
        List<Owned> part = all.subList(from, Math.min(all.size(), from + chunk));
        List<CompletableFuture<List<KeyValue<String, byte[]>>>> sent = new ArrayList<>(part.size());
        for (Owned entry : part) {
            sent.add(timed(current.async().hmget(key(entry.id), SessionHash.OWNER, SessionHash.GENERATION)
                    .toCompletableFuture()));
        }
        return CompletableFuture.allOf(sent.toArray(new CompletableFuture<?>[0])).thenCompose(all1 -> {
            for (int i = 0; i < part.size(); i++) {
                Owned entry = part.get(i);
                List<KeyValue<String, byte[]>> values = sent.get(i).join();
                String own = values.get(0).hasValue() ? SessionHash.text(values.get(0).getValue()) : null;
                String gen = values.get(1).hasValue() ? SessionHash.text(values.get(1).getValue()) : null;
                boolean ours = nodeId.equals(own) && Long.toString(entry.generation).equals(gen);
                if (own == null && entry.state != null) {
                    // Gone (see writeArgs): written again.
                    dirty.putIfAbsent(entry.id, entry);
                } else if (!ours) {
                    fencedOff(entry);
                }
            }
            return revalidate(current, all, from + part.size());
        });
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
        if (connection == null) {
            try {
                RedisLink.Connection opened = link.connect();
                opened.setTimeout(config.operationTimeout());
                connection = opened;
            } catch (RuntimeException unreachable) {
                outcome(false, unreachable);
                return false;
            }
        }
        if (!control.open()) {
            try {
                control.open(link);
            } catch (RuntimeException unreachable) {
                // Release requests wait for the next round; adoptions from here still work (they time out).
                LOG.debug("The control channel could not be subscribed to now", unreachable);
            }
        }
        return true;
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
        while (running && !dirty.isEmpty()) {
            List<Owned> taken = new ArrayList<>(Math.min(chunk, dirty.size()));
            Iterator<Map.Entry<String, Owned>> it = dirty.entrySet().iterator();
            while (it.hasNext() && taken.size() < chunk) {
                Map.Entry<String, Owned> entry = it.next();
                if (dirty.remove(entry.getKey(), entry.getValue()) && entry.getValue().state != null) {
                    taken.add(entry.getValue());
                }
            }
            List<CompletableFuture<Long>> sent = new ArrayList<>(taken.size());
            for (Owned entry : taken) {
                sent.add(writeState(entry, false));
            }
            boolean ok = true;
            for (CompletableFuture<Long> one : sent) {
                try {
                    one.get(config.operationTimeout().toMillis() * 2, TimeUnit.MILLISECONDS);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return false;
                } catch (ExecutionException failed) {
                    // Fenced: already dealt with; else counted and noted again by writeState.
                    ok &= cause(failed) instanceof SessionFencedException;
                } catch (TimeoutException late) {
                    ok = false;
                }
            }
            if (!ok) {
                // Redis is away: the rest waits for the next round.
                return false;
            }
        }
        return true;
    }

    /**
     * @param session a session
     * @param lastBatch the newest batch journaled
     * @return the highest journal entry that may be dropped: with the ack extension, those below the acknowledged
     *         batch (its own entry stays: it says where a client that acknowledged it resumes, exactly, whatever the
     *         lazily written positions say); without it, all but the newest two (where at-most-once and
     *         at-least-once resume)
     */
    private static long journalFloor(SessionState session, long lastBatch) {
        return session.acknowledges() ? session.ackBatch() - 1 : lastBatch - 2;
    }

    private byte[][] writeArgs(Owned entry, boolean release) {
        SessionState session = entry.state;
        Set<String> subscriptions = session.subscriptions();
        Map<String, ChannelPosition> positions = session.positions();
        Duration maxInterval = session.maxInterval() == null ? DEFAULT_MAX_INTERVAL : session.maxInterval();
        entry.maxInterval = maxInterval;
        List<Long> drops;
        long lastBatch;
        synchronized (entry) {
            entry.lastBatch = Math.max(entry.lastBatch, session.lastBatch());
            lastBatch = entry.lastBatch;
            drops = entry.dropsAtOrBelow(journalFloor(session, lastBatch));
        }
        List<byte[]> args = new ArrayList<>(2 * (subscriptions.size() + positions.size()) + drops.size() + 40);
        args.add(HistoryStore.ascii(nodeId));
        args.add(HistoryStore.ascii(entry.generation));
        // A missing hash is written again: only the node that owned it last deletes it (fenced), so it is gone because
        // Redis lost it (a restart without its data, a failover to a replica that lagged) or because the session
        // ended on a node that adopted it, whose client then forgot its id: coming back harms no one.
        args.add(HistoryStore.ascii(CREATE));
        args.add(HistoryStore.ascii(ttl(maxInterval).toMillis()));
        args.add(HistoryStore.ascii(drops.size()));
        drops.forEach(batch -> args.add(HistoryStore.ascii(batch)));
        pair(args, SessionHash.OWNER, release ? "" : nodeId);
        pair(args, SessionHash.GENERATION, Long.toString(entry.generation));
        pair(args, SessionHash.NODE, nodeId);
        pair(args, SessionHash.UPDATED, Long.toString(System.currentTimeMillis()));
        pair(args, SessionHash.MAX_INTERVAL, Long.toString(maxInterval.toMillis()));
        pair(args, SessionHash.ACK_BATCH, Long.toString(session.ackBatch()));
        pair(args, SessionHash.DELIVERED, Long.toString(session.deliveryPosition()));
        pair(args, SessionHash.ACKNOWLEDGES, session.acknowledges() ? "1" : "0");
        pair(args, SessionHash.LAST_BATCH, Long.toString(lastBatch));
        pair(args, SessionHash.BROWSER_SHOWN, session.browserCookieShown() ? "1" : "0");
        pair(args, SessionHash.PINNED, session.pinned() ? "1" : "0");
        if (session.browserDigest() != null) {
            pair(args, SessionHash.BROWSER_DIGEST, session.browserDigest());
        }
        for (String channel : subscriptions) {
            pair(args, SessionHash.SUBSCRIPTION + channel, "1");
        }
        for (Map.Entry<String, ChannelPosition> position : positions.entrySet()) {
            pair(args, SessionHash.POSITION + position.getKey(), position.getValue().toString());
        }
        long now = System.nanoTime();
        Map<String, ChannelPosition> engineSeams = session.subscribedAt();
        engineSeams.forEach((channel, position) -> entry.seams.putIfAbsent(channel, new Seam(position, now)));
        for (Iterator<Map.Entry<String, Seam>> it = entry.seams.entrySet().iterator(); it.hasNext();) {
            Map.Entry<String, Seam> seam = it.next();
            String channel = seam.getKey();
            if (!subscriptions.contains(channel) && now - seam.getValue().recordedAt() > SEAM_GRACE_NANOS) {
                it.remove();
                continue;
            }
            ChannelPosition position = engineSeams.getOrDefault(channel, seam.getValue().position());
            pair(args, SessionHash.SUBSCRIBED_AT + channel, position.toString());
        }
        for (Map.Entry<String, String> attribute : session.portableAttributes().entrySet()) {
            pair(args, SessionHash.ATTRIBUTE + attribute.getKey(), attribute.getValue());
        }
        return args.toArray(new byte[0][]);
    }

    private static void pair(List<byte[]> args, String field, String value) {
        args.add(HistoryStore.ascii(field));
        args.add(HistoryStore.ascii(value));
    }

    /** @return how long a session's key lives after its last write or renewal */
    Duration ttl(Duration maxInterval) {
        Duration window = config.reconnectWindow();
        return (maxInterval.compareTo(window) >= 0 ? maxInterval : window)
                .plus(config.sessionRefresh().multipliedBy(2));
    }

    private boolean deleteRemoved() {
        boolean ok = true;
        List<Map.Entry<String, Long>> taken = new ArrayList<>();
        for (Map.Entry<String, Long> entry : deletes.entrySet()) {
            if (taken.size() >= chunk) {
                break;
            }
            taken.add(Map.entry(entry.getKey(), entry.getValue()));
        }
        List<CompletableFuture<Long>> sent = new ArrayList<>(taken.size());
        for (Map.Entry<String, Long> entry : taken) {
            sent.add(HistoryStore.run(connection, SessionScripts.DELETE, SessionScripts.DELETE_SHA,
                    ScriptOutputType.INTEGER, new String[] {key(entry.getKey())}, HistoryStore.ascii(nodeId),
                    HistoryStore.ascii(entry.getValue()), HistoryStore.ascii(WRITE)));
        }
        for (int i = 0; i < sent.size(); i++) {
            Long code = await(sent.get(i));
            if (code != null) {
                renewals++;
                deletes.remove(taken.get(i).getKey(), taken.get(i).getValue());
                if (code == SessionScripts.FENCED) {
                    // Another node adopted it before it ended here: its key is the other node's to delete.
                    fenced.increment();
                }
            } else {
                ok = false;
            }
        }
        return ok;
    }

    /** Renews every owned session's key; one found owned elsewhere (or gone after it was written) is fenced. */
    private boolean renewLive() {
        boolean ok = true;
        List<Owned> all = new ArrayList<>(owned.values());
        for (int from = 0; from < all.size() && running; from += chunk) {
            List<Owned> part = all.subList(from, Math.min(all.size(), from + chunk));
            List<CompletableFuture<Long>> sent = new ArrayList<>(part.size());
            for (Owned entry : part) {
                sent.add(HistoryStore.run(connection, SessionScripts.RENEW, SessionScripts.RENEW_SHA,
                        ScriptOutputType.INTEGER, new String[] {key(entry.id)}, HistoryStore.ascii(nodeId),
                        HistoryStore.ascii(entry.generation), HistoryStore.ascii(WRITE),
                        HistoryStore.ascii(ttl(entry.maxInterval).toMillis())));
            }
            for (int i = 0; i < sent.size(); i++) {
                Long code = await(sent.get(i));
                Owned entry = part.get(i);
                if (code == null) {
                    ok = false;
                    continue;
                }
                renewals++;
                if (code == SessionScripts.GONE && entry.state != null) {
                    // Not written yet (its creation failed while Redis was away), or lost: written at the next round.
                    if (owned.get(entry.id) == entry) {
                        dirty.putIfAbsent(entry.id, entry);
                    }
                } else if (code != SessionScripts.DONE) {
                    fencedOff(entry);
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

    private <T> CompletableFuture<T> timed(CompletableFuture<T> command) {
        return command.orTimeout(config.operationTimeout().toMillis(), TimeUnit.MILLISECONDS);
    }

    private static Throwable cause(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    /** A subscription's seam as recorded here, and when (System.nanoTime). */
    private record Seam(ChannelPosition position, long recordedAt) {
    }

    /** A session this node owns: the generation it holds and what it knows of the session's hash. */
    private static final class Owned {
        final String id;
        final String digest;
        final long generation;
        /** Whether its hash was written (or adopted) and not found gone since. */
        volatile boolean stored;
        /** The engine's session; null for an adopted one until the engine names it. */
        volatile SessionState state;
        volatile Duration maxInterval = DEFAULT_MAX_INTERVAL;
        /** Journal batches in its hash; guarded by this. */
        final TreeSet<Long> journaled = new TreeSet<>();
        /** The newest batch journaled or written; guarded by this. */
        long lastBatch;
        final ConcurrentHashMap<String, Seam> seams = new ConcurrentHashMap<>();

        Owned(String id, String digest, long generation, boolean stored) {
            this.id = id;
            this.digest = digest;
            this.generation = generation;
            this.stored = stored;
        }

        /** @return the journal batches at or below {@code ackBatch}, taken out of {@link #journaled} */
        List<Long> dropsAtOrBelow(long ackBatch) {
            Set<Long> head = journaled.headSet(ackBatch, true);
            List<Long> drops = new ArrayList<>(head);
            head.clear();
            return drops;
        }
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
     * @param node the node that wrote it last
     * @param updatedMillis when it was written (the writing node's clock, ms since the epoch)
     * @param generation its fencing token (after an adoption, the one the adopting node holds)
     * @param browserDigest hex SHA-256 of the browser cookie it is bound to, or null
     * @param browserCookieShown whether its client showed that cookie
     * @param subscribedAt per plain channel, the channel's position when the subscription took effect
     * @param acknowledges whether it negotiated the {@code ack} extension
     * @param lastBatch the newest batch it was sent
     * @param journal per batch not known to be acknowledged, the positions after it
     * @param journalRequests per journaled batch, the {@code id} of the connect it answered, where kept
     * @param portableAttributes its portable attributes
     * @param owner the node that owns it, or (released) the node that owned it last
     * @param released whether its owner let it go (for another node to adopt at once)
     * @param pinned whether it is pinned to its handshake's carrier
     */
    public record StoredSession(String sessionId, Set<String> subscriptions, long deliveryPosition, long ackBatch,
            Map<String, ChannelPosition> positions, Duration maxInterval, String node, long updatedMillis,
            long generation, String browserDigest, boolean browserCookieShown,
            Map<String, ChannelPosition> subscribedAt, boolean acknowledges, long lastBatch,
            NavigableMap<Long, Map<String, ChannelPosition>> journal, Map<Long, String> journalRequests,
            Map<String, String> portableAttributes, String owner, boolean released, boolean pinned)
            implements SessionState {
    }
}
