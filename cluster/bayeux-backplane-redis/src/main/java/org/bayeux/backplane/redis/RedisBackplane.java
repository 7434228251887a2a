package org.bayeux.backplane.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.bayeux.api.server.HistoryAccess;
import org.bayeux.api.server.HistoryAuthorizer;
import org.bayeux.server.cluster.Cluster;
import org.bayeux.server.cluster.ClusterMessage;
import org.bayeux.server.cluster.ClusterNode;
import org.bayeux.server.cluster.ClusterUnavailableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Cluster} on Redis streams: every node's publishes are stored in Redis, and every node, the publisher's
 * included, delivers them from there ({@link #deliversLocalPublishes()} is false), so every node sees one order per
 * channel.
 *
 * <p><b>Fan-out.</b> A publish is appended by a script ({@link HistoryStore#PUBLISH}; {@code XADD}, trimmed to about
 * {@link RedisBackplaneConfig#STREAM_MAX_LENGTH} entries) to one of a fixed set of shard streams,
 * {@code <keyPrefix>:fanout:{<n>}}, chosen by a hash of the channel name ({@link StreamShards}): one channel is
 * always in one stream, so the stream's order is the channel's order. The publish's stage completes true only once
 * Redis answered the append: acknowledged means stored. Each key carries its shard in a hash tag, so that on a Redis
 * Cluster the shards spread over the masters.</p>
 *
 * <p><b>Why shard streams, not one stream per channel.</b> A stream per channel would let a node read exactly the
 * channels its clients subscribe to, but a wildcard subscription ({@code /chat/**}) matches channels nobody has named
 * yet, and a node would need to learn of every new channel before its first message: a fixed set of shards has no
 * such race and bounds the number of streams a node reads whatever the number of channels.</p>
 *
 * <p><b>Which shards a node reads.</b> Only those its subscriptions need ({@link ShardReads}): the shards of the plain
 * channels its sessions subscribe to; every shard while one of its sessions has a wildcard subscription or a
 * {@link PresenceListener} is registered. A subscribe's reply waits until its shard is positioned, so nothing
 * published after the reply is missed; a shard no longer needed is dropped after
 * {@link RedisBackplaneConfig#SHARD_READ_GRACE}. A node still reads messages of channels of its shards it has no
 * subscriber for (the engine drops them at once). {@link #shardsRead()} says how many it reads now.</p>
 *
 * <p><b>Reading.</b> On one Redis server, one reader thread per node (never an engine or Lettuce thread) reads
 * the shards it needs with a blocking {@code XREAD} on its own connection, at most
 * {@link RedisBackplaneConfig#READ_BATCH} entries per stream per read, and hands each entry, in order, to {@link ClusterNode#deliver}. On a Redis Cluster
 * ({@code redis-cluster://h:p,h:p,...}) a command may only touch keys of one slot, and each shard is a slot of its
 * own: there a node runs one reader thread, with its own connection, per shard (idle, but for a connection check
 * every read block, while its shard is not needed). Either way a reader starts a stream after the last entry it held
 * when the shard was positioned, and remembers the last id it delivered of each stream:
 * after a Redis disconnect it resumes from there, so nothing stored while it was away is lost and nothing is
 * delivered twice (as long as the stream still holds that id: see {@link RedisBackplaneConfig#STREAM_MAX_LENGTH}).
 * A channel is in one stream, read by one reader: its order is kept.</p>
 *
 * <p><b>Redis away.</b> Commands are rejected at once while the connection is down (on a Redis Cluster they wait
 * for the master's connection instead, see {@code RedisLink}), a publish fails after
 * {@link RedisBackplaneConfig#OPERATION_TIMEOUT} at the latest, and at most
 * {@link RedisBackplaneConfig#MAX_PENDING_PUBLISHES} wait at once; a publish Redis did not store fails its stage with
 * a {@link ClusterUnavailableException}, so its publisher is answered {@code 503::backplane_unavailable}, while the
 * node's local work goes on. Lettuce reconnects with a back-off capped at two
 * seconds, and the reader resumes. A publish that timed out may still have been stored (Redis took it, the answer
 * was lost): it is then delivered although its publisher was told it failed; never the other way round.</p>
 *
 * <p><b>Retries.</b> A publish whose {@code ext} carries an {@value #IDEMPOTENCY_KEY_FIELD} (a string of 1 to
 * {@value #MAX_IDEMPOTENCY_KEY_LENGTH} characters; a client should use a random one, such as a UUID) is appended by a
 * script that first checks whether that key was seen from the same publishing session on that channel within
 * {@link RedisBackplaneConfig#IDEMPOTENCY_WINDOW}: a retry is then acknowledged without being stored again.</p>
 *
 * <p><b>History and recovery.</b> Off unless {@link RedisBackplaneConfig#HISTORY_RULES} turns it on for a channel
 * pattern. For such a channel the publish script also gives the message its channel's next offset (within the
 * channel's epoch) and appends it to the channel's history, bounded per channel in count, age and bytes and per shard
 * in bytes; every node delivers each message with its position in {@code ext.position}, and a
 * {@link RecoveryExtension} answers subscribes that carry a client's last position with what it missed, as far back
 * as the {@link HistoryAuthorizer} allows and within the session's queue ({@link HistoryStore}; the wire is in
 * {@code docs/protocol.md}, the threat model in {@code docs/security.md}).</p>
 *
 * <p><b>Presence.</b> Who is subscribed to which plain channel, across nodes, with expiry when a node stops
 * refreshing ({@link #presence(String)}, {@link #addPresenceListener}; see {@code Presence}).</p>
 *
 * <p><b>Redis Cluster.</b> Every key carries its shard as a hash tag, so each publish, recovery and presence script
 * touches one slot; the channels spread over the masters by shard. Lettuce routes each command to the master of its
 * slot and follows redirects ({@code RedisLink}); what a failover does is in {@code docs/cluster.md}.</p>
 *
 * <p><b>Redis high availability.</b> With {@code redis-sentinel://H:P,H:P/MASTER} every connection asks the sentinels
 * where the master is and follows a promotion. With {@link RedisBackplaneConfig#MIN_REPLICAS} N, a publish is
 * acknowledged only once {@code WAIT N} counts N replicas holding it ({@link ReplicaAcknowledgement}, one
 * {@code WAIT} for the publishes answered together), else it fails with {@code 503::backplane_unavailable}; and a
 * reader delivers a batch only once N replicas hold it, so that a promoted replica cannot give a delivered message's
 * offset to another. Should it happen anyway (Redis promotes "the best replica", not always one that acknowledged),
 * the readers see the reused offsets and give the channel a new epoch ({@link Promotions}). Not on a Redis Cluster
 * yet: there {@code minReplicas} is refused at start.</p>
 *
 * <p>Not built yet: membership ({@code joined}/{@code left} are not reported).</p>
 */
public final class RedisBackplane implements Cluster {
    private static final Logger LOG = LoggerFactory.getLogger(RedisBackplane.class);
    /** The field of a stream entry that holds the message's JSON. */
    static final String MESSAGE_FIELD = "m";
    /** Threads that queue recovered messages to sessions (each recovery is bounded by recoveryMaxMessages). */
    private static final int RECOVERY_THREADS = 2;
    /** The field of a publish's {@code ext} whose string makes a retry of it not stored twice. */
    public static final String IDEMPOTENCY_KEY_FIELD = "idempotencyKey";
    /** The longest idempotency key taken; a longer one is ignored. */
    public static final int MAX_IDEMPOTENCY_KEY_LENGTH = 128;
    /** The reason of a publish's error while Redis is out of reach: {@code 503::backplane_unavailable}. */
    public static final String UNAVAILABLE = "backplane_unavailable";

    private final RedisBackplaneConfig config;
    private final StreamShards shards;
    /** Where Redis is, hosts and ports only: never the password. */
    private final String endpoint;
    private final HistoryCalls calls;
    private final HistoryAuthorizer historyAuthorizer;
    private volatile RecoveryExtension recovery;
    private volatile ExecutorService recoveries;
    /** This process's node id in presence entries. */
    private final String nodeId = HistoryStore.newEpoch();
    private final List<PresenceListener> presenceListeners = new CopyOnWriteArrayList<>();
    private volatile Presence presence;
    /** The engine's presence seam on this backplane ({@link #presence()}): the same across restarts. */
    private final RedisPresence presenceSeam;
    private final ShardReads shardReads;
    private volatile ClusterNode node;
    private volatile boolean running;
    private volatile RedisLink link;
    private final PublishingConnection publishing = new PublishingConnection();
    /** Master changes and reused offsets, as the readers see them. */
    private final Promotions promotions = new Promotions();
    /** Batches the readers held back because fewer than minReplicas replicas held them. */
    private final java.util.concurrent.atomic.AtomicLong unreplicatedBatches =
            new java.util.concurrent.atomic.AtomicLong();
    private volatile List<Thread> readers = List.of();
    private volatile List<StreamReader> loops = List.of();
    /**
     * Test seam: run by a reader before it hands a message to this node, so that a test can hold the live stream
     * back behind a history read. Null (nothing run) outside tests.
     */
    private final Runnable beforeLiveDelivery;
    /** Where subscriptions' seams go: the session store's, or a test's; null with the store off. */
    private final RecoveryExtension.Seams seams;
    /** Per reader: whether it has positioned itself, and whether it is connected now. */
    private volatile boolean[] readersPositioned = new boolean[0];
    private volatile boolean[] readersConnected = new boolean[0];
    private volatile boolean readerConnected;
    /** True while a reader opens the publishing connection. Guarded by this. */
    private boolean connectingPublisher;

    /** What the readers tell this backplane. */
    private final StreamReader.Listener readerEvents = new StreamReader.Listener() {
        @Override
        public boolean running() {
            return running;
        }

        @Override
        public void positioned(int reader) {
            readerPositioned(reader);
        }

        @Override
        public void connectionChanged(int reader, boolean connected) {
            readerConnected(reader, connected);
        }

        @Override
        public void presenceEvent(Map<String, byte[]> body) {
            RedisBackplane.this.presenceEvent(body);
        }
    };

    /** With {@link RedisBackplaneConfig#SESSION_STORE}: this node's sessions' state in Redis; else null. */
    private final RedisSessionStore sessionStore;

    /**
     * A backplane whose sessions read history as far back as {@link RedisBackplaneConfig#HISTORY_LOOK_BACK} before
     * their first recovering subscription to a channel (by default: only what was published since).
     *
     * @param config where Redis is, and the bounds
     * @throws org.bayeux.server.config.InvalidConfigurationException if the password file is unsafe or unreadable,
     *         or the credentials contradict the URI (checked now, so that a bad setting stops the start; read again
     *         at {@link #start})
     */
    public RedisBackplane(RedisBackplaneConfig config) {
        this(config, HistoryAuthorizer.always(HistoryAccess.lookBack(config.historyLookBack())));
    }

    /**
     * @param config where Redis is, and the bounds
     * @param historyAuthorizer decides, for each recovering subscribe to a channel with history, how far back the
     *        session may read ({@link HistoryAccess}); asked on the thread of the subscribe, must not block
     * @throws org.bayeux.server.config.InvalidConfigurationException as {@link #RedisBackplane(RedisBackplaneConfig)}
     */
    public RedisBackplane(RedisBackplaneConfig config, HistoryAuthorizer historyAuthorizer) {
        this(config, historyAuthorizer, null);
    }

    /**
     * @param config where Redis is, and the bounds
     * @param historyAuthorizer as {@link #RedisBackplane(RedisBackplaneConfig, HistoryAuthorizer)}
     * @param beforeLiveDelivery test seam: run by a reader before it hands each message to this node (a test holds
     *        the live stream back behind a history read with it); null outside tests
     */
    RedisBackplane(RedisBackplaneConfig config, HistoryAuthorizer historyAuthorizer, Runnable beforeLiveDelivery) {
        this(config, historyAuthorizer, beforeLiveDelivery, null);
    }

    /**
     * @param config where Redis is, and the bounds
     * @param historyAuthorizer as {@link #RedisBackplane(RedisBackplaneConfig, HistoryAuthorizer)}
     * @param beforeLiveDelivery as {@link #RedisBackplane(RedisBackplaneConfig, HistoryAuthorizer, Runnable)}
     * @param seams test seam: with the session store, where subscriptions' seams go instead of the store (a test
     *        sees them, and holds a reply back); null outside tests
     */
    RedisBackplane(RedisBackplaneConfig config, HistoryAuthorizer historyAuthorizer, Runnable beforeLiveDelivery,
            RecoveryExtension.Seams seams) {
        this.config = Objects.requireNonNull(config, "config");
        this.beforeLiveDelivery = beforeLiveDelivery;
        this.endpoint = RedisEndpoint.resolve(config).description();
        this.historyAuthorizer = Objects.requireNonNull(historyAuthorizer, "historyAuthorizer");
        this.sessionStore = config.sessionStore() ? new RedisSessionStore(config, nodeId) : null;
        RedisSessionStore store = sessionStore;
        this.seams = store == null ? null : seams != null ? seams : store::subscribedAt;
        this.shards = new StreamShards(config.keyPrefix(), config.shards());
        this.shardReads = new ShardReads(shards, config, publishing, shard -> wakeReaders());
        this.presenceSeam = new RedisPresence(nodeId, () -> presence, shardReads::listenerAdded,
                shardReads::listenerRemoved, config.operationTimeout());
        this.calls = new HistoryCalls(config, shards);
    }

    /** @return a builder for embedding, starting from {@link RedisBackplaneConfig#defaults()} */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the settings */
    public RedisBackplaneConfig config() {
        return config;
    }

    /**
     * @return with {@link RedisBackplaneConfig#SESSION_STORE} on, the store that writes this node's sessions' state
     *         to Redis, started and stopped with the backplane; install it before the engine starts
     *         ({@code engine.setSessionStore(backplane.sessionStore())}); null when the option is off
     */
    public RedisSessionStore sessionStore() {
        return sessionStore;
    }

    /**
     * @return true while this node is connected to Redis for both reading its streams and publishing (for
     *         readiness); false before the first connection and while Redis is away
     */
    public boolean isConnected() {
        return readerConnected && publishing.open() != null;
    }

    /**
     * @return {@link #isConnected()}, and with the session store its lease held: false while this node's publishes
     *         would fail for want of Redis, or while it cannot prove it still owns its sessions
     */
    @Override
    public boolean isAvailable() {
        // With the session store, a node whose lease lapsed serves nothing until it checked its sessions again.
        return isConnected() && (sessionStore == null || sessionStore.serving());
    }

    @Override
    public synchronized void start(ClusterNode node) {
        if (running) {
            throw new IllegalStateException("already started");
        }
        this.node = Objects.requireNonNull(node, "node");
        running = true;
        publishing.reset();
        link = RedisLink.create(config, RedisLink.MAX_BACKOFF);
        if (sessionStore != null) {
            sessionStore.start();
        }
        recoveries = Executors.newFixedThreadPool(RECOVERY_THREADS, runnable -> {
            Thread thread = new Thread(runnable, "redis-backplane-recovery");
            thread.setDaemon(true);
            return thread;
        });
        ExecutorService pool = recoveries;
        // Before the recovery extension: a subscribe's reply waits for its shard's position before recovery reads
        // the history, so that the live stream starts no later than the history ends.
        shardReads.start(node.server(), task -> {
            try {
                pool.execute(task);
            } catch (RejectedExecutionException stopped) {
                task.run();
            }
        });
        node.server().addExtension(shardReads);
        node.server().addSubscriptionListener(shardReads);
        shardReads.countExisting();
        // After stop() the pool refuses work: a reply still waiting then completes on the caller's thread.
        recovery = new RecoveryExtension(this::recover, node, config, calls.rules(), historyAuthorizer, seams, task -> {
            try {
                pool.execute(task);
            } catch (RejectedExecutionException stopped) {
                task.run();
            }
        });
        node.server().addExtension(recovery);
        Presence tracker = new Presence(this, presenceSeam, shards, config, nodeId);
        tracker.listeners().addAll(presenceListeners);
        presence = tracker;
        node.server().addSubscriptionListener(tracker);
        tracker.start();
        // One Redis server: one reader, one XREAD over the shard streams this node needs. A Redis Cluster refuses a
        // command whose keys are in different slots (CROSSSLOT), and each shard is a slot of its own: one reader per
        // shard there.
        List<int[]> groups = new ArrayList<>();
        if (link.cluster()) {
            for (int shard = 0; shard < shards.count(); shard++) {
                groups.add(new int[] {shard});
            }
        } else {
            int[] all = new int[shards.count()];
            for (int shard = 0; shard < all.length; shard++) {
                all[shard] = shard;
            }
            groups.add(all);
        }
        readersPositioned = new boolean[groups.size()];
        readersConnected = new boolean[groups.size()];
        List<Thread> threads = new ArrayList<>();
        List<StreamReader> started = new ArrayList<>();
        for (int index = 0; index < groups.size(); index++) {
            StreamReader loop = new StreamReader(index, link, shards, shardReads, groups.get(index), config, node,
                    readerEvents, beforeLiveDelivery, promotions, unreplicatedBatches);
            Thread thread = new Thread(loop::run, groups.size() == 1 ? "redis-backplane-reader"
                    : "redis-backplane-reader-" + index);
            thread.setDaemon(true);
            threads.add(thread);
            started.add(loop);
        }
        readers = List.copyOf(threads);
        loops = List.copyOf(started);
        threads.forEach(Thread::start);
    }

    /**
     * Called by the reader once it knows where each stream starts: only then may this node publish, so that nothing
     * it stores can be missed by its own reader.
     */
    private void readerPositioned(int reader) {
        if (!running || publishing.isSet()) {
            return;
        }
        synchronized (this) {
            readersPositioned[reader] = true;
            for (boolean positioned : readersPositioned) {
                if (!positioned) {
                    return;
                }
            }
            // With one reader per shard, the last to position itself connects; the others go on reading.
            if (connectingPublisher) {
                return;
            }
            connectingPublisher = true;
        }
        RedisLink.Connection connection;
        try {
            connection = link.connect();
        } finally {
            synchronized (this) {
                connectingPublisher = false;
            }
        }
        synchronized (this) {
            if (running && !publishing.isSet()) {
                publishing.set(connection);
                LOG.info("Redis backplane connected to {} ({} shard streams)", redactedUri(), shards.count());
                return;
            }
        }
        connection.closeAsync();
    }

    /** Called by each reader when it connects or loses Redis: the backplane is connected while all readers are. */
    private synchronized void readerConnected(int reader, boolean connected) {
        boolean[] states = readersConnected;
        if (reader >= states.length) {
            return;
        }
        states[reader] = connected;
        if (connected) {
            for (boolean state : states) {
                connected &= state;
            }
        }
        if (readerConnected != connected) {
            readerConnected = connected;
            if (connected) {
                LOG.info("Redis backplane reading from {}", redactedUri());
            } else {
                LOG.warn("Redis backplane lost {}: publishes fail until it is back", redactedUri());
            }
        }
    }

    /** @return the connection publishes and presence use, or null while there is none */
    RedisLink.Connection connection() {
        return publishing.open();
    }

    /** @return the watch of master changes and reused offsets (for tests: its counters) */
    Promotions promotions() {
        return promotions;
    }

    /** @return the batches read but held back for want of replicas since start (for tests) */
    long unreplicatedBatches() {
        return unreplicatedBatches.get();
    }

    /** @return the presence tracker while started, else null (for tests: its counters) */
    Presence presenceTracker() {
        return presence;
    }

    /** Wakes the readers that wait with nothing to read, so that they take a newly positioned shard at once. */
    void wakeReaders() {
        List<Thread> threads = readers;
        List<StreamReader> started = loops;
        RedisLink.Connection other = connection();
        for (int index = 0; index < threads.size() && index < started.size(); index++) {
            started.get(index).wake(threads.get(index), other);
        }
    }

    /**
     * @return how many shard streams this node reads now: those its subscriptions and presence listeners need, and
     *         those within {@link RedisBackplaneConfig#SHARD_READ_GRACE} of no longer being needed
     */
    public int shardsRead() {
        return shardReads.read().size();
    }

    /**
     * A text dump of this backplane's state, for an operator: whether it runs, where Redis is (hosts and ports only,
     * never a password), the shard streams read and each reader's state, the publishes waiting for Redis, the
     * recovery permits in use and waiting, and the history counters. It names no client, session or message.
     *
     * @return several lines, each {@code key: value}
     */
    public String dump() {
        StringBuilder text = new StringBuilder();
        text.append("redis backplane: ").append(running ? "running" : "stopped").append('\n');
        text.append("  endpoint: ").append(endpoint).append('\n');
        text.append("  connected: ").append(isConnected()).append(" (publishing ")
                .append(publishing.open() != null).append(", readers ").append(readerConnected).append(")\n");
        text.append("  shards: ").append(shards.count()).append(", read now: ").append(shardReads.read())
                .append('\n');
        boolean[] positioned = readersPositioned;
        boolean[] connected = readersConnected;
        for (int reader = 0; reader < positioned.length && reader < connected.length; reader++) {
            text.append("  reader ").append(reader).append(": positioned ").append(positioned[reader])
                    .append(", connected ").append(connected[reader]).append('\n');
        }
        text.append("  pending publishes: ").append(calls.pendingPublishes()).append(" of at most ")
                .append(config.maxPendingPublishes()).append('\n');
        RecoveryPermits permits = calls.permits();
        text.append("  recovery permits: ").append(permits.running()).append(" running of ")
                .append(permits.permits()).append(", ").append(permits.waiting()).append(" waiting, ")
                .append(permits.started()).append(" started").append('\n');
        text.append("  history reads: ").append(calls.pagesRead()).append(" pages, ").append(calls.bytesRead())
                .append(" bytes").append('\n');
        ReplicaAcknowledgement replicas = calls.replicaAcknowledgement();
        text.append("  min replicas: ").append(config.minReplicas());
        if (replicas != null) {
            text.append(" (").append(replicas.waits()).append(" waits, ").append(replicas.shortfalls())
                    .append(" short, ").append(unreplicatedBatches.get()).append(" batches read held back)");
        }
        text.append('\n');
        text.append("  master changes: ").append(promotions.masterChanges()).append(", epochs with reused offsets: ")
                .append(promotions.reusedOffsets()).append(", renewed: ").append(promotions.newEpochs())
                .append('\n');
        text.append("  presence listeners: ").append(presenceListeners.size()).append('\n');
        text.append("  session store: ").append(sessionStore == null ? "off" : sessionStore.dump()).append('\n');
        return text.toString();
    }

    /** @return the shards read now, for tests */
    java.util.SortedSet<Integer> shardsReadNow() {
        return shardReads.read();
    }

    /** @return the shard of a channel, for tests */
    int shardOf(String channel) {
        return shards.shardOf(channel);
    }

    private void presenceEvent(Map<String, byte[]> body) {
        Presence tracker = presence;
        if (tracker != null) {
            tracker.deliver(body);
        }
    }

    /** @return this node's id in presence entries: random, new at each start of the process */
    public String nodeId() {
        return nodeId;
    }

    /**
     * Adds a listener of every join and leave of every plain channel, on every node. While one is registered, this
     * node reads every shard stream (the events are in the channels' shards).
     *
     * @param listener the listener; must not block
     */
    public void addPresenceListener(PresenceListener listener) {
        presenceListeners.add(Objects.requireNonNull(listener, "listener"));
        // It hears every channel's events: this node reads every shard from now on (see ShardReads).
        shardReads.listenerAdded();
        Presence tracker = presence;
        if (tracker != null) {
            tracker.listeners().add(listener);
        }
    }

    /** @param listener a listener added before */
    public void removePresenceListener(PresenceListener listener) {
        if (presenceListeners.remove(listener)) {
            shardReads.listenerRemoved();
        }
        Presence tracker = presence;
        if (tracker != null) {
            tracker.listeners().remove(listener);
        }
    }

    /**
     * @param channel a plain channel
     * @return who is subscribed to it across the cluster, session id to node id (entries past
     *         {@link RedisBackplaneConfig#PRESENCE_TTL} without a refresh left out); failed while Redis is away
     */
    public CompletionStage<Map<String, String>> presence(String channel) {
        Presence tracker = presence;
        return tracker == null ? CompletableFuture.failedFuture(new IllegalStateException("not started"))
                : tracker.members(channel).orTimeout(config.operationTimeout().toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * @return the engine's presence seam on this backplane: channels' entries with their sessions' users, users
     *         present on any node, and every join and leave, from Redis ({@link org.bayeux.server.cluster.Presence})
     */
    @Override
    public org.bayeux.server.cluster.Presence presence() {
        return presenceSeam;
    }

    @Override
    public void stop() {
        List<Thread> threads;
        synchronized (this) {
            if (!running) {
                return;
            }
            running = false;
            threads = readers;
            publishing.clear();
            readers = List.of();
            loops = List.of();
        }
        for (Thread thread : threads) {
            thread.interrupt();
            LockSupport.unpark(thread);
        }
        long deadline = System.nanoTime() + config.readBlock().plus(config.operationTimeout()).plusSeconds(1).toNanos();
        for (Thread thread : threads) {
            try {
                thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        // Closes every connection of the link: the publishing one and the readers'.
        link.shutdown();
        if (sessionStore != null) {
            sessionStore.close();
        }
        readerConnected = false;
        RecoveryExtension installed = recovery;
        if (installed != null) {
            node.server().removeExtension(installed);
            recovery = null;
        }
        node.server().removeExtension(shardReads);
        node.server().removeSubscriptionListener(shardReads);
        shardReads.stop();
        Presence tracker = presence;
        if (tracker != null) {
            tracker.stop();
            node.server().removeSubscriptionListener(tracker);
            presence = null;
        }
        ExecutorService executor = recoveries;
        if (executor != null) {
            executor.shutdownNow();
            recoveries = null;
        }
        node = null;
    }

    @Override
    public CompletionStage<Boolean> publish(ClusterMessage message) {
        return calls.publish(publishing.current(), message);
    }

    /**
     * Reads what a subscriber missed on a channel since its position; also tells a subscriber without a position the
     * channel's current one ({@link HistoryCalls#recover}).
     *
     * @param channel a plain channel
     * @param offset the last offset the subscriber has, or -1 for none
     * @param epoch the epoch of that offset, or "" for none
     * @param maxMessages the most messages it may deliver
     * @param maxBytes the most bytes of messages it may deliver
     * @return what Redis has; failed with a {@link ClusterUnavailableException} if Redis is away
     */
    CompletableFuture<HistoryStore.Recovered> recover(String channel, long offset, String epoch, int maxMessages,
            long maxBytes) {
        return calls.recover(publishing.current(), channel, offset, epoch, maxMessages, maxBytes);
    }

    /** @return the recovery extension while started, else null (for tests) */
    RecoveryExtension recoveryExtension() {
        return recovery;
    }

    /** @return the history calls, for tests (pages and bytes read, the recovery budget) */
    HistoryCalls historyCalls() {
        return calls;
    }

    @Override
    public boolean deliversLocalPublishes() {
        return false;
    }

    /** @return the URI without a password, for logs */
    private String redactedUri() {
        RedisLink current = link;
        return current == null ? "Redis" : current.description();
    }

    /** Builds a backplane for embedding: {@code RedisBackplane.builder().uri("redis://h:6379").build()}. */
    public static final class Builder {
        private final RedisBackplaneConfig.Builder config = RedisBackplaneConfig.builder();
        private HistoryAuthorizer historyAuthorizer;

        private Builder() {
        }

        /**
         * @param uri {@link RedisBackplaneConfig#URI}
         * @return this builder
         */
        public Builder uri(String uri) {
            config.uri(uri);
            return this;
        }

        /**
         * @param maxLength {@link RedisBackplaneConfig#STREAM_MAX_LENGTH}
         * @return this builder
         */
        public Builder streamMaxLength(int maxLength) {
            config.streamMaxLength(maxLength);
            return this;
        }

        /**
         * @param timeout {@link RedisBackplaneConfig#OPERATION_TIMEOUT}
         * @return this builder
         */
        public Builder operationTimeout(Duration timeout) {
            config.operationTimeout(timeout);
            return this;
        }

        /**
         * @param window {@link RedisBackplaneConfig#IDEMPOTENCY_WINDOW}
         * @return this builder
         */
        public Builder idempotencyWindow(Duration window) {
            config.idempotencyWindow(window);
            return this;
        }

        /**
         * @param rules {@link RedisBackplaneConfig#HISTORY_RULES}: the channels that keep a history
         * @return this builder
         */
        public Builder historyRules(String rules) {
            config.historyRules(rules);
            return this;
        }

        /**
         * @param authorizer how far back each recovering session may read (else
         *        {@link RedisBackplaneConfig#HISTORY_LOOK_BACK} for every session)
         * @return this builder
         */
        public Builder historyAuthorizer(HistoryAuthorizer authorizer) {
            this.historyAuthorizer = Objects.requireNonNull(authorizer, "authorizer");
            return this;
        }

        /** @return the backplane, not started: give it to {@code BayeuxEngine.setCluster} */
        public RedisBackplane build() {
            RedisBackplaneConfig built = config.build();
            return historyAuthorizer == null ? new RedisBackplane(built)
                    : new RedisBackplane(built, historyAuthorizer);
        }
    }
}
