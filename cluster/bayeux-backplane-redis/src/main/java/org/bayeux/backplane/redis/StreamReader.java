package org.bayeux.backplane.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.SetArgs;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.UnblockType;
import io.lettuce.core.XReadArgs;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.server.cluster.ClusterNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The loop of one of a node's reader threads: reads those of its shard streams this node needs now
 * ({@link ShardReads}; all the shards on one Redis server, one on a Redis Cluster, where one command may only touch
 * one slot), each from where {@link ShardReads} positioned it and then from the last id it delivered, in bounded
 * batches, and hands each entry in order to the node. With nothing to read, it checks the connection and waits up to
 * the read block (woken at once when a shard is positioned). A failure (Redis away) waits with a back-off and tries
 * again from the same ids, so a disconnect loses and repeats nothing.
 *
 * <p>With {@link RedisBackplaneConfig#MIN_REPLICAS}, each batch read is delivered only once that many replicas hold
 * it: the reader writes a marker in its shard's slot on its own connection and {@code WAIT}s for it (replication is
 * one ordered stream: a replica that holds the marker holds every entry read before it). Fewer replicas: the batch is
 * not delivered and is read again after the back-off, so that a promotion cannot take back an entry a node
 * delivered. After each reconnect it tells {@link Promotions} the master's replication id, and checks each entry's
 * offset against the last delivered of its epoch.</p>
 */
final class StreamReader {
    private static final Logger LOG = LoggerFactory.getLogger(StreamReader.class);
    private static final Duration FIRST_BACKOFF = Duration.ofMillis(20);

    private final Listener listener;
    /** Test seam: run before each message is handed to the node; null outside tests. */
    private final Runnable beforeLiveDelivery;
    private final int index;
    private final RedisLink link;
    private final StreamShards shards;
    private final ShardReads reads;
    /** The shards this reader may read, and where each of them is among {@link #lastIds}. */
    private final int[] mine;
    private final int[] slotOf;
    private final RedisBackplaneConfig config;
    private final ClusterNode node;
    private final Promotions promotions;
    /** Batches read but not delivered because too few replicas held them. */
    private final java.util.concurrent.atomic.AtomicLong unreplicatedBatches;
    /** The last id delivered of each of its shard streams; null while not read. Used by this reader only. */
    private final String[] lastIds;
    /** The {@link ShardReads.Read#generation} each of {@link #lastIds} belongs to. */
    private final long[] generations;
    private RedisLink.Connection connection;
    private static final long UNKNOWN = -1;
    /**
     * The Redis client id of this reader's connection (one Redis server only), so that {@link #wake} can end its
     * blocked read; {@value #UNKNOWN} while not known.
     */
    private volatile long clientId = UNKNOWN;

    /** What a reader tells the backplane that runs it, on the reader's thread. */
    interface Listener {
        /** @return whether the backplane still runs: the reader ends when it does not */
        boolean running();

        /** @param reader the reader's index: it knows where each of its streams starts */
        void positioned(int reader);

        /**
         * @param reader the reader's index
         * @param connected whether it reads now, or lost Redis
         */
        void connectionChanged(int reader, boolean connected);

        /** @param body a presence event read from a shard stream */
        void presenceEvent(Map<String, byte[]> body);
    }

    /**
     * @param index this reader's index among the backplane's readers
     * @param link the Redis client the reader connects with
     * @param shards the shard streams' keys
     * @param reads which shards are needed now, and from where
     * @param mine the shards this reader may read
     * @param config the bounds (batch, block)
     * @param node where messages are delivered
     * @param listener told of the reader's position, connection and presence events
     * @param beforeLiveDelivery test seam, run before each message is delivered; null outside tests
     * @param promotions the backplane's watch of master changes and reused offsets
     * @param unreplicatedBatches counts the batches held back for want of replicas
     */
    StreamReader(int index, RedisLink link, StreamShards shards, ShardReads reads, int[] mine,
            RedisBackplaneConfig config, ClusterNode node, Listener listener, Runnable beforeLiveDelivery,
            Promotions promotions, java.util.concurrent.atomic.AtomicLong unreplicatedBatches) {
        this.listener = listener;
        this.promotions = promotions;
        this.unreplicatedBatches = unreplicatedBatches;
        this.beforeLiveDelivery = beforeLiveDelivery;
        this.reads = reads;
        this.index = index;
        this.link = link;
        this.shards = shards;
        this.mine = mine.clone();
        this.slotOf = new int[shards.count()];
        Arrays.fill(slotOf, -1);
        for (int slot = 0; slot < mine.length; slot++) {
            slotOf[mine[slot]] = slot;
        }
        this.config = config;
        this.node = node;
        this.lastIds = new String[mine.length];
        this.generations = new long[mine.length];
    }

    void run() {
        Duration backoff = FIRST_BACKOFF;
        // After a failure, connected again only once a read succeeded: a cluster connection stays open (its link to
        // another master is up) while the master of this reader's shard is down.
        boolean failed = false;
        // Asked again after each failure: a reconnect may have found another master.
        boolean replicationIdKnown = false;
        while (listener.running()) {
            try {
                if (connection == null) {
                    connect();
                }
                listener.positioned(index);
                if (!connection.isOpen()) {
                    throw new IllegalStateException("not connected");
                }
                if (!failed) {
                    listener.connectionChanged(index, true);
                }
                if (clientId == UNKNOWN && !link.cluster()) {
                    clientId = connection.sync().clientId();
                }
                if (!replicationIdKnown && !link.cluster()) {
                    promotions.masterSeen(Promotions.replicationIdOf(connection.sync().info("replication")));
                    replicationIdKnown = true;
                }
                readOnce();
                failed = false;
                listener.connectionChanged(index, true);
                backoff = FIRST_BACKOFF;
            } catch (RuntimeException failure) {
                if (!listener.running()) {
                    break;
                }
                failed = true;
                replicationIdKnown = false;
                // A reconnect gives the connection another client id: asked again once connected.
                clientId = UNKNOWN;
                listener.connectionChanged(index, false);
                LOG.debug("Redis backplane read failed, retrying in {}", backoff, failure);
                LockSupport.parkNanos(this, backoff.toNanos());
                backoff = backoff.multipliedBy(2).compareTo(RedisLink.MAX_BACKOFF) > 0
                        ? RedisLink.MAX_BACKOFF : backoff.multipliedBy(2);
            }
        }
        // The connection is closed with the client, by RedisBackplane.stop().
    }

    private void connect() {
        RedisLink.Connection connected = link.connect();
        // A blocking read waits up to readBlock, and Redis then has the operation timeout to answer.
        connected.setTimeout(config.readBlock().plus(config.operationTimeout()));
        connection = connected;
    }

    /**
     * Makes this reader take a newly positioned shard now rather than after its blocked read: unparks it if it waits
     * with nothing to read, and ends its blocked {@code XREAD} ({@code CLIENT UNBLOCK}, on another connection) if it
     * is in one. Best effort: an unblock that reaches Redis just before the read is blocked does nothing, and the
     * shard is then taken after at most the read block.
     */
    void wake(Thread thread, RedisLink.Connection other) {
        LockSupport.unpark(thread);
        long id = clientId;
        if (id != UNKNOWN && other != null) {
            try {
                other.async().clientUnblock(id, UnblockType.TIMEOUT);
            } catch (RuntimeException refused) {
                LOG.debug("Could not wake a reader: {}", refused.toString());
            }
        }
    }

    /**
     * Takes in the shards newly positioned and drops those no longer read. A shard dropped and positioned again
     * while this reader still read it goes on from the later of its last id and the new position, so that nothing is
     * delivered twice.
     */
    private int follow() {
        int reading = 0;
        for (int slot = 0; slot < mine.length; slot++) {
            ShardReads.Read read = reads.current(mine[slot]);
            if (read == null) {
                lastIds[slot] = null;
                generations[slot] = 0;
            } else {
                if (generations[slot] != read.generation) {
                    String start = read.startId();
                    lastIds[slot] = lastIds[slot] == null ? start : ShardReads.later(lastIds[slot], start);
                    generations[slot] = read.generation;
                }
                reading++;
            }
        }
        return reading;
    }

    @SuppressWarnings("unchecked")
    private void readOnce() {
        int reading = follow();
        if (reading == 0) {
            // Nothing to read: check that Redis answers (for readiness), then wait to be woken or the read block.
            connection.sync().exists(shards.key(mine[0]));
            LockSupport.parkNanos(this, config.readBlock().toNanos());
            return;
        }
        XReadArgs.StreamOffset<String>[] offsets = new XReadArgs.StreamOffset[reading];
        int next = 0;
        for (int slot = 0; slot < lastIds.length; slot++) {
            if (lastIds[slot] != null) {
                offsets[next++] = XReadArgs.StreamOffset.from(shards.key(mine[slot]), lastIds[slot]);
            }
        }
        XReadArgs args = XReadArgs.Builder.block(config.readBlock()).count(config.readBatch());
        List<StreamMessage<String, byte[]>> entries = await(connection.async().xread(args, offsets), "XREAD");
        if (entries == null || entries.isEmpty()) {
            return;
        }
        if (config.minReplicas() > 0) {
            awaitReplicas(entries.get(entries.size() - 1).getId());
        }
        for (StreamMessage<String, byte[]> entry : entries) {
            int shard = shards.indexOf(entry.getStream());
            if (shard < 0 || slotOf[shard] < 0 || lastIds[slotOf[shard]] == null) {
                continue;
            }
            deliver(entry);
            lastIds[slotOf[shard]] = entry.getId();
        }
    }

    /**
     * Waits for a read for up to the read block plus the operation timeout; a read that did not answer by then is
     * cancelled, so that one still queued on a connection that is down (a cluster connection queues while a master is
     * away) is not sent after the reconnect, where it would hold the connection for nothing.
     */
    private <T> T await(RedisFuture<T> read, String command) {
        try {
            return read.get(config.readBlock().plus(config.operationTimeout()).toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException late) {
            read.cancel(false);
            throw new IllegalStateException("no answer to " + command, late);
        } catch (ExecutionException failed) {
            throw new IllegalStateException(command + " failed: " + failed.getCause(), failed.getCause());
        } catch (InterruptedException interrupted) {
            read.cancel(false);
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", interrupted);
        }
    }

    /**
     * Makes sure {@link RedisBackplaneConfig#MIN_REPLICAS} replicas hold what was just read: a marker written after
     * the read on this connection, and a {@code WAIT} for it, pipelined.
     *
     * @throws IllegalStateException if fewer replicas hold it within half the operation timeout: the batch is read
     *         again after the back-off
     */
    private void awaitReplicas(String lastId) {
        long timeout = Math.max(1, config.operationTimeout().toMillis() / 2);
        RedisFuture<String> marked = connection.async().set(shards.replicationMarkKeyOf(mine[0]),
                lastId.getBytes(StandardCharsets.US_ASCII),
                SetArgs.Builder.px(config.operationTimeout().multipliedBy(30).toMillis()));
        Long count = await(connection.async().waitForReplication(config.minReplicas(), timeout), "WAIT");
        // A marker refused (READONLY: this server was demoted) would leave WAIT nothing to wait for.
        await(marked, "SET");
        if (count == null || count < config.minReplicas()) {
            unreplicatedBatches.incrementAndGet();
            throw new ReplicaAcknowledgement.NotReplicatedException(count == null ? 0 : count, config.minReplicas(),
                    timeout);
        }
    }

    /** @return the message with its position in {@code ext}, from the entry's offset and epoch */
    private byte[] positioned(StreamMessage<String, byte[]> entry, byte[] json) {
        byte[] offset = entry.getBody().get("o");
        byte[] epoch = entry.getBody().get("e");
        if (offset == null || epoch == null) {
            return json;
        }
        String epochText = new String(epoch, StandardCharsets.UTF_8);
        long number;
        try {
            number = Long.parseLong(new String(offset, StandardCharsets.US_ASCII));
        } catch (NumberFormatException notANumber) {
            return json;
        }
        if (!Positions.isPlainEpoch(epochText)) {
            return json;
        }
        switch (promotions.check(epochText, number)) {
            case DELIVER:
                return Positions.withPosition(json, number, epochText);
            case REUSED:
                renewEpoch(json, epochText);
                return json;
            default:
                return json;
        }
    }

    /** Gives the channel of a message whose offset was reused a new epoch (parsed only in this rare case). */
    private void renewEpoch(byte[] json, String epoch) {
        try {
            ServerMessage message = node.parse(json);
            String channel = message == null ? null : message.getChannel();
            if (channel != null) {
                promotions.renew(connection, shards.metaKeyOf(channel), shards.historyKeyOf(channel), epoch);
            }
        } catch (RuntimeException unparsable) {
            LOG.warn("Redis backplane could not renew a reused epoch: {}", unparsable.toString());
        }
    }

    private void deliver(StreamMessage<String, byte[]> entry) {
        if (entry.getBody() != null && entry.getBody().containsKey(Presence.EVENT_FIELD)) {
            listener.presenceEvent(entry.getBody());
            return;
        }
        byte[] json = entry.getBody() == null ? null : entry.getBody().get(RedisBackplane.MESSAGE_FIELD);
        if (json == null) {
            LOG.warn("Redis backplane skipped entry {} of {}: no message field", entry.getId(), entry.getStream());
            return;
        }
        byte[] positioned = positioned(entry, json);
        Runnable hook = beforeLiveDelivery;
        if (hook != null) {
            hook.run();
        }
        try {
            node.deliver(positioned);
        } catch (RuntimeException refused) {
            // Skipped, not retried: the same bytes would fail again on every read. The body reaches DEBUG only.
            LOG.warn("Redis backplane skipped entry {} of {} ({} bytes): {}", entry.getId(), entry.getStream(),
                    json.length, refused.getMessage());
            if (LOG.isDebugEnabled()) {
                LOG.debug("Skipped entry body: {}", new String(json, StandardCharsets.UTF_8));
            }
        }
    }
}
