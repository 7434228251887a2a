package org.bayeux.oort;

import java.util.concurrent.atomic.LongAdder;

/** One node's Oort counters, since it started. Read at any time; each is exact, together they are not a snapshot. */
public final class OortStats {
    final LongAdder forwarded = new LongAdder();
    final LongAdder forwardFailures = new LongAdder();
    final LongAdder oversize = new LongAdder();
    final LongAdder received = new LongAdder();
    final LongAdder duplicates = new LongAdder();
    final LongAdder gaps = new LongAdder();
    final LongAdder notObserved = new LongAdder();
    final LongAdder refusedJoins = new LongAdder();
    final LongAdder joins = new LongAdder();
    final LongAdder leaves = new LongAdder();
    final LongAdder resent = new LongAdder();
    final LongAdder outOfOrder = new LongAdder();
    final LongAdder unacknowledgedDropped = new LongAdder();
    final LongAdder incarnations = new LongAdder();
    final LongAdder refusedForwards = new LongAdder();
    final LongAdder urlsRefused = new LongAdder();
    final LongAdder urlsForgotten = new LongAdder();
    final LongAdder stale = new LongAdder();

    OortStats() {
    }

    /** @return messages sent to peers, counted once per peer */
    public long forwarded() {
        return forwarded.sum();
    }

    /**
     * @return forwards not queued on a link because it already held {@code oort.maxQueue} or
     *         {@code oort.maxQueueBytes} unacknowledged (the peer counts them as a gap)
     */
    public long forwardFailures() {
        return forwardFailures.sum();
    }

    /** @return messages not forwarded because they are larger than the link's limit */
    public long oversize() {
        return oversize.sum();
    }

    /** @return messages from peers delivered on this node */
    public long received() {
        return received.sum();
    }

    /** @return forwards from peers dropped because their origin and sequence were delivered already (resends) */
    public long duplicates() {
        return duplicates.sum();
    }

    /** @return sequence numbers of peers' messages skipped: messages that never arrived */
    public long gaps() {
        return gaps.sum();
    }

    /** @return messages from peers on channels this node does not observe, dropped */
    public long notObserved() {
        return notObserved.sum();
    }

    /** @return handshakes claiming to be a node whose proof was not good */
    public long refusedJoins() {
        return refusedJoins.sum();
    }

    /** @return peers that joined */
    public long joins() {
        return joins.sum();
    }

    /** @return peers that left */
    public long leaves() {
        return leaves.sum();
    }

    /** @return forwards sent again on a link that flapped, because the peer had not acknowledged them */
    public long resent() {
        return resent.sum();
    }

    /**
     * @return forwards from peers refused because one before them had not arrived (lost on a link that broke; the
     *         sender resends from the lost one)
     */
    public long outOfOrder() {
        return outOfOrder.sum();
    }

    /** @return forwards dropped unacknowledged because their peer left: never resent */
    public long unacknowledgedDropped() {
        return unacknowledgedDropped.sum();
    }

    /** @return new incarnations this node took after a peer declared it left (a restart is not counted) */
    public long incarnations() {
        return incarnations.sum();
    }

    /**
     * @return forwards from peers refused as no genuine peer sends them: a MAC that is not good, a second start of a
     *         chain, a number that jumps too far, or a message whose channel is not the one checked
     */
    public long refusedForwards() {
        return refusedForwards.sum();
    }

    /**
     * @return peer URLs not dialled (gossiped, or claimed by a joining node): not allowed by
     *         {@code oort.allowPlainLinks} or {@code oort.peerHosts}, or past {@code oort.maxKnownUrls}
     */
    public long urlsRefused() {
        return urlsRefused.sum();
    }

    /** @return forwards dropped because they were sent to an earlier incarnation of this node */
    public long stale() {
        return stale.sum();
    }

    /** @return peer URLs forgotten because no member listed them any more */
    public long urlsForgotten() {
        return urlsForgotten.sum();
    }

    @Override
    public String toString() {
        return "OortStats[forwarded=" + forwarded() + ", forwardFailures=" + forwardFailures() + ", oversize="
                + oversize() + ", received=" + received() + ", duplicates=" + duplicates() + ", gaps=" + gaps()
                + ", notObserved=" + notObserved() + ", refusedJoins=" + refusedJoins() + ", joins=" + joins()
                + ", leaves=" + leaves() + ", resent=" + resent() + ", outOfOrder=" + outOfOrder()
                + ", unacknowledgedDropped=" + unacknowledgedDropped() + ", incarnations=" + incarnations() + ", refusedForwards="
                + refusedForwards() + ", urlsRefused=" + urlsRefused() + ", urlsForgotten=" + urlsForgotten() + ", stale=" + stale() + "]";
    }
}
