package org.bayeux.oort;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The last sequence number delivered here from each origin (one incarnation of a node each), and the chain check that
 * keeps each origin's order whatever a link does.
 *
 * <p>A forward names the incarnation of this node its chain is for ({@code to}): one for an incarnation this node left
 * behind is stale (dropped, answered as taken), and the first for a new one starts that origin's chain here anew.
 * A forward carries its number {@code seq} and {@code prev}, the number its sender queued before it on the same
 * link (0 when the link's chain starts: the peer joined, so a node that joins late counts no gap for what was
 * published before). With {@code last} the last number delivered from that origin:</p>
 * <ul>
 *   <li>{@code seq <= last}: a duplicate (a resend of something delivered): dropped, answered as taken;</li>
 *   <li>{@code prev == 0} when something was delivered from that origin already: refused (a sender starts its chain
 *       once per join, and this node forgets an origin when it leaves; only a forger sends it later);</li>
 *   <li>{@code seq} more than {@value #MAX_SEQUENCE_JUMP} past {@code prev} (or past {@code last}, for a chain that
 *       is already delivered): refused, as no link skips that many numbers while its peer stays joined; a forged
 *       number near the top would otherwise make every later genuine forward a "duplicate";</li>
 *   <li>{@code prev == 0} or {@code prev <= last}: delivered; if {@code prev == last}, the numbers between
 *       {@code prev} and {@code seq} were never queued for this node (the sender's queue was full): a gap;</li>
 *   <li>otherwise a forward before it was lost on the way: refused, not delivered, so that the sender resends from
 *       the one that was lost.</li>
 * </ul>
 *
 * <p>The first forward of an origin (prev 0) is bounded only by its MAC ({@link ForwardAuth}): its number is the
 * origin's count of publishes since it started, which has no bound this node knows.</p>
 */
final class OriginSequences {
    /** What to do with a forward. */
    enum Verdict {
        /** Deliver it, and answer it as taken. */
        DELIVER,
        /** Delivered before: drop it, answer it as taken. */
        DUPLICATE,
        /** Sent to an earlier incarnation of this node: drop it, answer it as taken (the sender starts anew). */
        STALE,
        /** One before it is missing: refuse it (the sender resends). */
        OUT_OF_ORDER,
        /** Not a forward a genuine peer sends (a bad MAC, a second chain start, a jump, another channel): refuse it. */
        REFUSED
    }

    /**
     * The most numbers a forward may skip past the one before it: the numbers a link skips are the origin's publishes
     * while that link's queue was full, and a peer that takes nothing for its timeout leaves long before 2^32 of them.
     */
    static final long MAX_SEQUENCE_JUMP = 1L << 32;

    private final ConcurrentHashMap<String, Chain> lastByOrigin = new ConcurrentHashMap<>();
    private final OortStats stats;

    /** One origin's chain here: the incarnation of this node it was sent to, and the last number delivered. */
    private static final class Chain {
        String to = "";
        long last;
    }

    OriginSequences(OortStats stats) {
        this.stats = stats;
    }

    /** As {@link #accept(String, String, Supplier, long, long, Runnable)}, for a node that never changes its id. */
    Verdict accept(String origin, long sequence, long prev, Runnable deliver) {
        return accept(origin, "", () -> "", sequence, prev, deliver);
    }

    /**
     * @param origin the origin incarnation
     * @param to the incarnation of this node the origin's chain is for (the sender starts a chain when that one
     *           joins, so a chain for an earlier incarnation of this node is stale)
     * @param self this node's incarnation now, read under the origin's lock
     * @param sequence its number for the forward
     * @param prev the number queued before it on its link, 0 if it starts the chain
     * @param deliver delivers it, called under the origin's lock when the verdict is {@link Verdict#DELIVER}, so that
     *                concurrent forwards of one origin are delivered in its order
     * @return what was done with it
     */
    Verdict accept(String origin, String to, Supplier<String> self, long sequence, long prev, Runnable deliver) {
        Chain chain = lastByOrigin.computeIfAbsent(origin, o -> new Chain());
        synchronized (chain) {
            if (!to.equals(self.get())) {
                // Sent to an incarnation this node left behind: never delivered to the new one.
                stats.stale.increment();
                return Verdict.STALE;
            }
            if (!to.equals(chain.to)) {
                // The first forward for this incarnation of this node: the origin starts a new chain for it.
                chain.to = to;
                chain.last = 0;
            }
            long last = chain.last;
            if (sequence <= last) {
                stats.duplicates.increment();
                return Verdict.DUPLICATE;
            }
            if (prev < 0 || prev >= sequence || (prev == 0 && last != 0)
                    || sequence - Math.max(prev, last) > MAX_SEQUENCE_JUMP) {
                stats.refusedForwards.increment();
                return Verdict.REFUSED;
            }
            if (prev != 0 && prev > last) {
                stats.outOfOrder.increment();
                return Verdict.OUT_OF_ORDER;
            }
            if (prev != 0 && prev == last && sequence > prev + 1) {
                stats.gaps.add(sequence - prev - 1);
            }
            chain.last = sequence;
            deliver.run();
            return Verdict.DELIVER;
        }
    }

    /** @param origin an incarnation that left: its numbers are never seen again */
    void forget(String origin) {
        lastByOrigin.remove(origin);
    }
}
