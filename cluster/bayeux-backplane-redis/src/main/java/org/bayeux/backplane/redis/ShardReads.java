package org.bayeux.backplane.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import org.bayeux.api.ChannelId;
import org.bayeux.api.Message;
import org.bayeux.api.Promise;
import org.bayeux.api.server.BayeuxServer;
import org.bayeux.api.server.ServerChannel;
import org.bayeux.api.server.ServerExtension;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.api.server.SubscriptionListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which fan-out streams this node reads: only the shards something on this node needs. A shard is needed while
 * <ul>
 * <li>a session of this node (remote client on any transport, or a {@code LocalSession}) is subscribed to a plain
 * broadcast channel of that shard;</li>
 * <li>a session of this node is subscribed to a wildcard channel ({@code /a/*}, {@code /**}): it may match a channel
 * of any shard, so every shard is needed;</li>
 * <li>a {@link PresenceListener} is registered on this node: it hears the joins and leaves of every channel, so
 * every shard is needed.</li>
 * </ul>
 * Nothing else on a node consumes the fan-out streams: recovery's held messages and live floor are messages of a
 * channel its session is subscribed to (needed by the first rule), idempotency and presence membership are read with
 * their own keys, and a node's own publishes are delivered from the streams only to its own subscribers, so a node
 * whose client publishes on a channel nobody on it subscribes to does not read that channel's shard.
 *
 * <p><b>Nothing lost at the boundary.</b> When a shard starts being needed, it is positioned: its last entry id is
 * read ({@code XREVRANGE key + - COUNT 1}, asynchronously, on the publishing connection) and its reader starts
 * after it. A subscribe's successful reply waits (this extension completes it later) until every shard it needs is
 * positioned: the subscription has taken effect by then, so a message published after the reply has a later id and
 * is read and delivered to it. Without a connection to Redis, positioning waits for one for up to
 * {@link RedisBackplaneConfig#OPERATION_TIMEOUT} (before the node's first connection, while it starts, as long as it
 * takes). If the position cannot be read by then (Redis away, or no answer within the timeout), the session is
 * unsubscribed again and the reply fails with {@code 503::backplane_unavailable}: accepting it and positioning later
 * would lose what other nodes publish in between. A subscription made on the server without a reply
 * ({@code ServerChannel.subscribe}) starts the positioning too, but nothing waits for it (retried at each sweep
 * while Redis is away). Subscriptions made before the backplane starts are counted when it starts.</p>
 *
 * <p><b>Late start.</b> A reader already blocked in {@code XREAD BLOCK} on other shards takes a newly positioned one
 * into its next read, after at most {@link RedisBackplaneConfig#READ_BLOCK}; its first messages may be that late
 * (nothing is lost: it reads from the position). A reader reading nothing is woken at once.</p>
 *
 * <p><b>Stop.</b> A shard no longer needed is read on for {@link RedisBackplaneConfig#SHARD_READ_GRACE} (a client
 * that resubscribes finds it still read), then dropped; needed again, it is positioned afresh (what was published in
 * between was for nobody here).</p>
 */
final class ShardReads implements SubscriptionListener, ServerExtension {
    private static final Logger LOG = LoggerFactory.getLogger(ShardReads.class);
    private static final long RETRY_MILLIS = 20;

    private final PublishingConnection publishing;
    private final PositionListener positioned;
    private final StreamShards shards;
    private final RedisBackplaneConfig config;
    /** Per shard: how many subscriptions of this node's sessions to plain channels of it. */
    private final AtomicIntegerArray subscriptions;
    /** How many subscriptions of this node's sessions to wildcard channels. */
    private final AtomicInteger wildcards = new AtomicInteger();
    /**
     * The subscriptions counted, so that one seen twice (by the listener and by the scan at start) counts once.
     */
    private final Set<Subscription> counted = ConcurrentHashMap.newKeySet();
    /** How many presence listeners are registered on this node. */
    private final AtomicInteger listeners = new AtomicInteger();
    /** Per shard: how it is read now, or null while it is not. Changed under this; read by readers without. */
    private final AtomicReferenceArray<Read> reads;
    /** Guarded by this. */
    private long generations;
    private volatile BayeuxServer server;
    private volatile Executor executor;
    private volatile ScheduledExecutorService timer;

    /** One period of reading a shard: from its position on, until no longer needed past the grace. */
    static final class Read {
        final long generation;
        /** Completes with the id the reader starts after; failed if it could not be read. */
        final CompletableFuture<String> start = new CompletableFuture<>();
        /** When it was first seen not needed (nanoTime), or 0 while needed. Guarded by the ShardReads. */
        long idleSince;

        Read(long generation) {
            this.generation = generation;
        }

        /** @return the start id, or null while not positioned (or failed) */
        String startId() {
            return start.isDone() && !start.isCompletedExceptionally() ? start.join() : null;
        }
    }

    private record Subscription(String session, String channel) {
    }

    /** Told when a shard is positioned, so that the readers take it at once. */
    @FunctionalInterface
    interface PositionListener {
        /** @param shard a shard whose start is known now */
        void positioned(int shard);
    }

    /**
     * @param shards the shard streams' keys
     * @param config the bounds (grace, operation timeout)
     * @param publishing the connection a shard's position is read on
     * @param positioned told when a shard is positioned
     */
    ShardReads(StreamShards shards, RedisBackplaneConfig config, PublishingConnection publishing,
            PositionListener positioned) {
        this.publishing = publishing;
        this.positioned = positioned;
        this.shards = shards;
        this.config = config;
        this.subscriptions = new AtomicIntegerArray(shards.count());
        this.reads = new AtomicReferenceArray<>(shards.count());
    }

    void start(BayeuxServer server, Executor executor) {
        this.server = server;
        this.executor = executor;
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "redis-backplane-shards");
            thread.setDaemon(true);
            return thread;
        });
        long period = Math.max(50, Math.min(1000, config.shardReadGrace().toMillis() / 2));
        scheduler.scheduleWithFixedDelay(this::sweep, period, period, TimeUnit.MILLISECONDS);
        timer = scheduler;
        if (listeners.get() > 0) {
            ensureAll();
        }
    }

    /**
     * Counts the subscriptions made before the backplane started (an application's local sessions may subscribe
     * before the engine starts). Called once the listener is registered: one seen by both counts once.
     */
    void countExisting() {
        BayeuxServer current = server;
        if (current == null) {
            return;
        }
        for (ServerChannel channel : current.getChannels()) {
            for (ServerSession session : channel.getSubscribers()) {
                subscribed(session, channel, null);
            }
        }
    }

    void stop() {
        ScheduledExecutorService scheduler = timer;
        if (scheduler != null) {
            scheduler.shutdownNow();
            timer = null;
        }
        synchronized (this) {
            for (int shard = 0; shard < reads.length(); shard++) {
                reads.set(shard, null);
                subscriptions.set(shard, 0);
            }
            wildcards.set(0);
            counted.clear();
        }
    }

    /** @return how the shard is read now, or null if it is not (or not positioned yet) */
    Read current(int shard) {
        Read read = reads.get(shard);
        return read == null || read.startId() == null ? null : read;
    }

    /** @return the shards read now (positioned) */
    SortedSet<Integer> read() {
        SortedSet<Integer> read = new TreeSet<>();
        for (int shard = 0; shard < reads.length(); shard++) {
            if (current(shard) != null) {
                read.add(shard);
            }
        }
        return read;
    }

    boolean needed(int shard) {
        return subscriptions.get(shard) > 0 || wildcards.get() > 0 || listeners.get() > 0;
    }

    void listenerAdded() {
        if (listeners.incrementAndGet() == 1 && timer != null) {
            ensureAll();
        }
    }

    void listenerRemoved() {
        listeners.decrementAndGet();
    }

    private static ChannelId broadcast(String name) {
        if (name == null || !ChannelId.isValid(name)) {
            return null;
        }
        ChannelId id = ChannelId.of(name);
        return id.isBroadcast() ? id : null;
    }

    @Override
    public void subscribed(ServerSession session, ServerChannel channel, ServerMessage message) {
        ChannelId id = channel.getChannelId();
        if (!id.isBroadcast() || timer == null) {
            return;
        }
        if (!counted.add(new Subscription(session.getId(), channel.getId()))) {
            return;
        }
        if (id.isWildcard()) {
            wildcards.incrementAndGet();
            ensureAll();
        } else {
            int shard = shards.shardOf(channel.getId());
            subscriptions.incrementAndGet(shard);
            ensure(shard);
        }
    }

    @Override
    public void unsubscribed(ServerSession session, ServerChannel channel, ServerMessage message) {
        ChannelId id = channel.getChannelId();
        if (!id.isBroadcast() || timer == null) {
            return;
        }
        if (!counted.remove(new Subscription(session.getId(), channel.getId()))) {
            return;
        }
        if (id.isWildcard()) {
            wildcards.decrementAndGet();
        } else {
            subscriptions.decrementAndGet(shards.shardOf(channel.getId()));
        }
    }

    /** Holds a successful subscribe reply until the shards it needs are positioned; fails it if they cannot be. */
    @Override
    public void outgoing(ServerSession sender, ServerSession receiver, ServerMessage.Mutable message,
            Promise<Boolean> promise) {
        if (receiver == null || !Message.META_SUBSCRIBE.equals(message.getChannel()) || !message.isSuccessful()
                || timer == null) {
            promise.succeed(true);
            return;
        }
        List<String> names = names(message.get(Message.SUBSCRIPTION_FIELD));
        List<CompletableFuture<String>> starts = new ArrayList<>();
        for (String name : names) {
            ChannelId id = broadcast(name);
            if (id == null) {
                continue;
            }
            if (id.isWildcard()) {
                starts.addAll(ensureAll());
            } else {
                starts.add(ensure(shards.shardOf(name)));
            }
        }
        if (starts.stream().allMatch(start -> start.isDone() && !start.isCompletedExceptionally())) {
            promise.succeed(true);
            return;
        }
        CompletableFuture.allOf(starts.toArray(CompletableFuture[]::new)).whenCompleteAsync((done, failure) -> {
            try {
                if (failure != null) {
                    refuse(receiver, message, names, failure);
                }
            } catch (RuntimeException unexpected) {
                LOG.warn("Failing a subscribe whose shard could not be positioned failed", unexpected);
            } finally {
                promise.succeed(true);
            }
        }, executor);
    }

    /** Unsubscribes the session again and fails the reply: its shard is not read, so it would miss messages. */
    private void refuse(ServerSession session, ServerMessage.Mutable reply, List<String> names, Throwable failure) {
        LOG.debug("Subscribe to {} failed: its shard could not be positioned: {}", names, failure.toString());
        BayeuxServer current = server;
        for (String name : names) {
            ServerChannel channel = current == null ? null : current.getChannel(name);
            if (channel != null) {
                channel.unsubscribe(session);
            }
        }
        reply.setSuccessful(false);
        reply.setError("503::" + RedisBackplane.UNAVAILABLE);
    }

    private static List<String> names(Object field) {
        List<String> names = new ArrayList<>();
        if (field instanceof String) {
            names.add((String) field);
        } else if (field instanceof List) {
            for (Object entry : (List<?>) field) {
                if (entry instanceof String) {
                    names.add((String) entry);
                }
            }
        }
        return names;
    }

    private List<CompletableFuture<String>> ensureAll() {
        List<CompletableFuture<String>> starts = new ArrayList<>(shards.count());
        for (int shard = 0; shard < shards.count(); shard++) {
            starts.add(ensure(shard));
        }
        return starts;
    }

    /** @return the shard's start position: at once if it is read, else once positioned (failed if it cannot be) */
    CompletableFuture<String> ensure(int shard) {
        Read read;
        synchronized (this) {
            read = reads.get(shard);
            if (read != null) {
                read.idleSince = 0;
                return read.start;
            }
            read = new Read(++generations);
            reads.set(shard, read);
        }
        position(shard, read, System.nanoTime() + config.operationTimeout().toNanos());
        return read.start;
    }

    /**
     * Reads the shard stream's last id now: the reader starts after it. Without a connection it tries again every
     * {@value #RETRY_MILLIS} ms, until the deadline; before this node's first connection to Redis, until it connects
     * (subscriptions made while the node starts wait for it rather than fail).
     */
    private void position(int shard, Read read, long deadline) {
        RedisLink.Connection connection = publishing.open();
        if (connection == null) {
            ScheduledExecutorService scheduler = timer;
            if (scheduler != null && (!publishing.everOpened() || System.nanoTime() - deadline < 0)) {
                try {
                    scheduler.schedule(() -> position(shard, read, deadline), RETRY_MILLIS, TimeUnit.MILLISECONDS);
                    return;
                } catch (RejectedExecutionException stopped) {
                    // Stopped: fails below.
                }
            }
            failed(shard, read, new IllegalStateException("not connected to Redis"));
            return;
        }
        try {
            connection.async().xrevrange(shards.key(shard), Range.unbounded(), Limit.from(1)).toCompletableFuture()
                    .orTimeout(config.operationTimeout().toMillis(), TimeUnit.MILLISECONDS)
                    .whenComplete((last, failure) -> {
                        if (failure != null) {
                            failed(shard, read, failure);
                            return;
                        }
                        read.start.complete(last.isEmpty() ? "0-0" : last.get(0).getId());
                        LOG.debug("Redis backplane reads shard {} from {}", shard, read.startId());
                        positioned.positioned(shard);
                    });
        } catch (RuntimeException rejected) {
            failed(shard, read, rejected);
        }
    }

    private void failed(int shard, Read read, Throwable failure) {
        synchronized (this) {
            reads.compareAndSet(shard, read, null);
        }
        LOG.debug("Redis backplane could not position shard {}: {}", shard, failure.toString());
        read.start.completeExceptionally(failure);
    }

    /** Drops the shards not needed for longer than the grace; positions again those needed but not read. */
    void sweep() {
        long graceNanos = config.shardReadGrace().toNanos();
        for (int shard = 0; shard < reads.length(); shard++) {
            boolean position = false;
            synchronized (this) {
                Read read = reads.get(shard);
                boolean needed = needed(shard);
                if (read == null) {
                    position = needed && timer != null;
                } else if (needed || !read.start.isDone()) {
                    read.idleSince = 0;
                } else if (read.idleSince == 0) {
                    read.idleSince = System.nanoTime() | 1;
                } else if (System.nanoTime() - read.idleSince >= graceNanos) {
                    reads.set(shard, null);
                    LOG.debug("Redis backplane stops reading shard {}", shard);
                }
            }
            if (position) {
                try {
                    ensure(shard);
                } catch (RuntimeException failure) {
                    LOG.debug("Positioning shard {} failed: {}", shard, failure.toString());
                }
            }
        }
    }

    /** @return the later of two stream ids ({@code ms-seq}) */
    static String later(String a, String b) {
        int dashA = a.indexOf('-');
        int dashB = b.indexOf('-');
        long msA = Long.parseLong(dashA < 0 ? a : a.substring(0, dashA));
        long msB = Long.parseLong(dashB < 0 ? b : b.substring(0, dashB));
        if (msA != msB) {
            return Long.compareUnsigned(msA, msB) > 0 ? a : b;
        }
        long seqA = dashA < 0 ? 0 : Long.parseLong(a.substring(dashA + 1));
        long seqB = dashB < 0 ? 0 : Long.parseLong(b.substring(dashB + 1));
        return Long.compareUnsigned(seqA, seqB) >= 0 ? a : b;
    }

}
