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

    OortStats() {
    }

    /** @return messages sent to peers, counted once per peer */
    public long forwarded() {
        return forwarded.sum();
    }

    /** @return forwarded messages a peer did not take (refused, or the link's queue was full or it failed) */
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

    /** @return messages from peers dropped because their origin and sequence were seen already */
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

    @Override
    public String toString() {
        return "OortStats[forwarded=" + forwarded() + ", forwardFailures=" + forwardFailures() + ", oversize="
                + oversize() + ", received=" + received() + ", duplicates=" + duplicates() + ", gaps=" + gaps()
                + ", notObserved=" + notObserved() + ", refusedJoins=" + refusedJoins() + ", joins=" + joins()
                + ", leaves=" + leaves() + "]";
    }
}
