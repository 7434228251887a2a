package org.bayeux.oort;

import java.util.concurrent.ConcurrentHashMap;

/**
 * The last sequence number delivered here from each origin (one incarnation of a node each), and the chain check that
 * keeps each origin's order whatever a link does.
 *
 * <p>A forward carries its number {@code seq} and {@code prev}, the number its sender queued before it on the same
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

    private final ConcurrentHashMap<String, long[]> lastByOrigin = new ConcurrentHashMap<>();
    private final OortStats stats;

    OriginSequences(OortStats stats) {
        this.stats = stats;
    }

    /**
     * @param origin the origin incarnation
     * @param sequence its number for the forward
     * @param prev the number queued before it on its link, 0 if it starts the chain
     * @param deliver delivers it, called under the origin's lock when the verdict is {@link Verdict#DELIVER}, so that
     *                concurrent forwards of one origin are delivered in its order
     * @return what was done with it
     */
    Verdict accept(String origin, long sequence, long prev, Runnable deliver) {
        long[] last = lastByOrigin.computeIfAbsent(origin, o -> new long[] {0});
        synchronized (last) {
            if (sequence <= last[0]) {
                stats.duplicates.increment();
                return Verdict.DUPLICATE;
            }
            if (prev < 0 || prev >= sequence || (prev == 0 && last[0] != 0) || sequence - Math.max(prev, last[0]) > MAX_SEQUENCE_JUMP) {
                stats.refusedForwards.increment();
                return Verdict.REFUSED;
            }
            if (prev != 0 && prev > last[0]) {
                stats.outOfOrder.increment();
                return Verdict.OUT_OF_ORDER;
            }
            if (prev != 0 && prev == last[0] && sequence > prev + 1) {
                stats.gaps.add(sequence - prev - 1);
            }
            last[0] = sequence;
            deliver.run();
            return Verdict.DELIVER;
        }
    }

    /** @param origin an incarnation that left: its numbers are never seen again */
    void forget(String origin) {
        lastByOrigin.remove(origin);
    }
}
