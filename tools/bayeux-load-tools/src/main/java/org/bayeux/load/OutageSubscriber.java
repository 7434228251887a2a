package org.bayeux.load;

import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongPredicate;
import java.util.function.LongSupplier;

import org.bayeux.client.BayeuxClient;

/**
 * One subscriber of an {@link OutageRun} and what it saw: every delivery checked for duplicates and order, and, from
 * its first sign of life after the outage, what it had missed by then and how much of that arrived, and when the last
 * of it did. Kept apart from the run so that these checks, which decide the run's figures, read on their own; the run
 * drives the subscriber's client and feeds its events here.
 *
 * <p>All state is guarded by the instance; {@link OutageRun} reads the counts under that lock when it sums them up.
 */
final class OutageSubscriber {
    /** Duplicates described run-wide, at most this many: enough to look into, never a flood. */
    private static final int MAX_DUPLICATES_DESCRIBED = 10;

    final int index;
    final int[] rooms;
    private final String transport;
    private final RoomPlan plan;
    private final LongSupplier published;
    private final LongPredicate refused;
    private final OutageTimeline timeline;
    private final List<Map<String, Object>> duplicates;

    /** Sequence numbers delivered at least once. */
    private final BitSet delivered = new BitSet();
    long unique;
    long duplicated;
    long outOfOrder;
    /** Per channel, the last {@code ext.position} seen (offset, epoch), when the server sends positions. */
    final Map<String, Object[]> lastPosition = new HashMap<>();
    /** Per channel, the last sequence number seen, the order check without positions. */
    private final Map<String, Long> lastSeq = new HashMap<>();
    /** The nano time of the first sign of life after the outage; 0 until then. */
    long reconnectedAt;
    /** The last sequence number published when the subscriber reconnected: anything up to it not yet here is missed. */
    private long missedUpTo = -1;
    long missed;
    /** Missed messages that have not arrived yet (nor been refused). */
    long outstanding;
    long recovered;
    /** The nano time the last missed message arrived (or the reconnection, if nothing was missed). */
    long recoveryDoneAt;
    /** The {@code recovered} flags of the subscribe replies since the cut, true and false. */
    int flagTrue;
    int flagFalse;
    /** Set once by the run after the client is built; read for the timeline and the final disconnect. */
    BayeuxClient client;

    /**
     * @param index the subscriber's index in the run
     * @param transport its Bayeux transport name (for the description of its duplicates)
     * @param plan the run's rooms: which it joins, and which room a sequence number was published to
     * @param published the messages published so far; sequence numbers below it have been (or are being) sent
     * @param refused whether the server refused the message of that sequence number (so no subscriber is owed it)
     * @param timeline the run's timeline, told of every unique delivery and every recovered one
     * @param duplicates the run's first duplicates, described (no message bodies); shared by all subscribers
     */
    OutageSubscriber(int index, String transport, RoomPlan plan, LongSupplier published, LongPredicate refused,
            OutageTimeline timeline, List<Map<String, Object>> duplicates) {
        this.index = index;
        this.rooms = plan.roomsOf(index);
        this.transport = transport;
        this.plan = plan;
        this.published = published;
        this.refused = refused;
        this.timeline = timeline;
        this.duplicates = duplicates;
    }

    private boolean joins(long seq) {
        int room = plan.roomOf(seq);
        for (int joined : rooms) {
            if (joined == room) {
                return true;
            }
        }
        return false;
    }

    /** The first sign of life after the outage: what has not arrived by now counts as missed. */
    synchronized void reconnected(long now) {
        if (reconnectedAt != 0) {
            return;
        }
        reconnectedAt = now;
        missedUpTo = published.getAsLong() - 1;
        for (long seq = 0; seq <= missedUpTo; seq++) {
            if (joins(seq) && !delivered.get((int) seq) && !refused.test(seq)) {
                missed++;
            }
        }
        outstanding = missed;
        if (missed == 0) {
            recoveryDoneAt = now;
        }
    }

    /**
     * @param channel the channel it came on
     * @param seq its sequence number
     * @param position its {@code ext.position}, or null if the server sent none
     * @param now the nano time it arrived
     */
    synchronized void delivered(String channel, long seq, Object position, long now) {
        if (delivered.get((int) seq)) {
            duplicated++;
            if (duplicates.size() < MAX_DUPLICATES_DESCRIBED) {
                Map<String, Object> detail = new LinkedHashMap<>();
                detail.put("subscriber", index);
                detail.put("transport", transport);
                detail.put("channel", channel);
                detail.put("seq", seq);
                detail.put("position", position);
                detail.put("afterReconnection", reconnectedAt != 0);
                detail.put("missedAtReconnection", reconnectedAt != 0 && seq <= missedUpTo);
                detail.put("flags", flagTrue + "/" + flagFalse);
                duplicates.add(detail);
            }
            return;
        }
        delivered.set((int) seq);
        unique++;
        timeline.delivered();
        // Positions order a channel exactly within one epoch; sequence numbers only with one publisher per room.
        if (position instanceof Map<?, ?> at && at.get("offset") instanceof Number offset
                && at.get("epoch") instanceof String epoch) {
            Object[] last = lastPosition.get(channel);
            if (last != null && last[1].equals(epoch) && offset.longValue() < (Long) last[0]) {
                outOfOrder++;
            }
            lastPosition.put(channel, new Object[] {offset.longValue(), epoch});
        } else {
            Long last = lastSeq.get(channel);
            if (last != null && seq < last) {
                outOfOrder++;
            }
            lastSeq.put(channel, seq);
        }
        if (reconnectedAt != 0 && seq <= missedUpTo) {
            recovered++;
            timeline.recovered();
            if (--outstanding == 0) {
                recoveryDoneAt = now;
            }
        }
    }

    /** The server refused that message: if it was counted as missed here, it is owed no more. */
    synchronized void forgive(long seq) {
        if (reconnectedAt != 0 && seq <= missedUpTo && joins(seq) && !delivered.get((int) seq)) {
            missed--;
            if (--outstanding == 0) {
                recoveryDoneAt = System.nanoTime();
            }
        }
    }

    /** @param recoveredFlag the {@code recovered} flag of a subscribe reply after the cut */
    synchronized void flag(boolean recoveredFlag) {
        if (recoveredFlag) {
            flagTrue++;
        } else {
            flagFalse++;
        }
    }

    /**
     * @param expected the messages this subscriber's rooms should get by now (published minus refused)
     * @return whether it has reconnected, received everything it missed, and everything it should
     */
    synchronized boolean done(long expected) {
        return reconnectedAt != 0 && outstanding == 0 && unique >= expected;
    }
}
