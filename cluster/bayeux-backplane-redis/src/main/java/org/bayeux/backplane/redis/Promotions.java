package org.bayeux.backplane.redis;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.ScriptOutputType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a promotion of a Redis replica can do to channels' positions, seen from a node's readers. A replica promoted
 * without the last writes of its master (Sentinel promotes "the best replica", not always one that holds every
 * write: {@code WAIT} does not make Redis strongly consistent) gives the next publishes of a channel offsets this
 * node already delivered with other messages. Two readers' signs of it:
 * <ul>
 * <li>the master's replication id ({@code INFO replication}, {@code master_replid}) changed across a reconnect: the
 * master is another server ({@link #masterSeen}, counted, logged);</li>
 * <li>an entry of an epoch with an offset at or below the last this node delivered of that epoch ({@link #check}): the
 * offset was reused. The channel then gets a new epoch at once (a script, only if the epoch is still that one, which
 * drops its history), so that a client holding a position of the old epoch is answered {@code recovered: false} and
 * never resumes across messages it did not get; the entries of the old epoch still read are delivered without a
 * position.</li>
 * </ul>
 * With {@link RedisBackplaneConfig#MIN_REPLICAS} nodes deliver only replicated entries, which leaves only the case of
 * a promoted replica other than those that acknowledged. Thread-safe: shared by a backplane's readers.
 */
final class Promotions {
    private static final Logger LOG = LoggerFactory.getLogger(Promotions.class);
    /** The most epochs (channels) whose last delivered offset is remembered: the least recently seen are dropped. */
    static final int MAX_EPOCHS = 65_536;

    /** KEYS: meta, history. ARGV: the epoch whose offsets were reused, a new epoch. Returns 1 if it was replaced. */
    static final String NEW_EPOCH = String.join("\n",
            "if redis.call('HGET', KEYS[1], 'e') ~= ARGV[1] then return 0 end",
            "redis.call('HSET', KEYS[1], 'e', ARGV[2])",
            // Its accounting in the shard's history bytes is forgotten by the next publish (the history is gone).
            "redis.call('DEL', KEYS[2])",
            "return 1");
    private static final String NEW_EPOCH_SHA = HistoryStore.sha1(NEW_EPOCH);

    private final Map<String, Long> lastDelivered = new LinkedHashMap<>(1024, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
            return size() > MAX_EPOCHS;
        }
    };
    /** Epochs found reused: their entries are delivered without a position. */
    private final Set<String> reused = new HashSet<>();
    private String masterReplicationId;
    private final AtomicLong masterChanges = new AtomicLong();
    private final AtomicLong reusedOffsets = new AtomicLong();
    private final AtomicLong newEpochs = new AtomicLong();

    /**
     * @param replicationId the {@code master_replid} a reader's connection sees now (after a connect or reconnect)
     * @return whether it differs from the one seen before (not on the first call)
     */
    synchronized boolean masterSeen(String replicationId) {
        if (replicationId == null || replicationId.isEmpty()) {
            return false;
        }
        String before = masterReplicationId;
        masterReplicationId = replicationId;
        if (before == null || before.equals(replicationId)) {
            return false;
        }
        masterChanges.incrementAndGet();
        LOG.warn("Redis backplane: the master changed (a failover: replication id {} then {}); a channel whose "
                + "offsets are reused gets a new epoch", before, replicationId);
        return true;
    }

    /**
     * @param info the text of {@code INFO replication}
     * @return its {@code master_replid}, or null
     */
    static String replicationIdOf(String info) {
        if (info == null) {
            return null;
        }
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("master_replid:")) {
                return line.substring("master_replid:".length()).trim();
            }
        }
        return null;
    }

    /**
     * Called by a reader for each entry with a position, before delivering it.
     *
     * @param epoch the entry's epoch
     * @param offset its offset
     * @return whether it is delivered with its position, or without because its epoch's offsets were found reused
     *         (now: then the reader calls {@link #renew}, or before)
     */
    synchronized Verdict check(String epoch, long offset) {
        if (reused.contains(epoch)) {
            return Verdict.WITHOUT_POSITION;
        }
        Long last = lastDelivered.get(epoch);
        if (last != null && offset <= last) {
            reused.add(epoch);
            lastDelivered.remove(epoch);
            reusedOffsets.incrementAndGet();
            return Verdict.REUSED;
        }
        lastDelivered.put(epoch, offset);
        return Verdict.DELIVER;
    }

    /** What a reader does with an entry's position. */
    enum Verdict {
        /** Delivered with its position. */
        DELIVER,
        /** Its offset was delivered before in its epoch: without a position, and the channel gets a new epoch. */
        REUSED,
        /** Of an epoch found reused before: without a position. */
        WITHOUT_POSITION
    }

    /**
     * Gives the channel a new epoch, if it still has the reused one.
     *
     * @param connection a reader's connection
     * @param metaKey the channel's meta key
     * @param historyKey the channel's history key
     * @param epoch the reused epoch
     */
    void renew(RedisLink.Connection connection, String metaKey, String historyKey, String epoch) {
        String fresh = HistoryStore.newEpoch();
        HistoryStore.<Long>run(connection, NEW_EPOCH, NEW_EPOCH_SHA, ScriptOutputType.INTEGER,
                new String[] {metaKey, historyKey}, HistoryStore.ascii(epoch), HistoryStore.ascii(fresh))
                .whenComplete((replaced, failure) -> {
                    if (failure != null) {
                        // Tried again at the next entry of that epoch.
                        synchronized (this) {
                            reused.remove(epoch);
                        }
                        LOG.warn("Redis backplane: could not give a channel a new epoch after its offsets were "
                                + "reused: {}", failure.toString());
                    } else if (replaced != null && replaced == 1) {
                        newEpochs.incrementAndGet();
                    }
                });
        LOG.warn("Redis backplane: offsets of epoch {} reused after a failover (the promoted replica lacked "
                + "entries this node delivered): the channel gets a new epoch, its subscribers' positions are not "
                + "recoverable", epoch);
    }

    /** @return how many times a reader saw the master change */
    long masterChanges() {
        return masterChanges.get();
    }

    /** @return how many epochs were found with reused offsets */
    long reusedOffsets() {
        return reusedOffsets.get();
    }

    /** @return how many channels got a new epoch for it */
    long newEpochs() {
        return newEpochs.get();
    }
}
