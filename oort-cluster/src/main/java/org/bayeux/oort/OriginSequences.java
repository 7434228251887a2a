package org.bayeux.oort;

import java.util.concurrent.ConcurrentHashMap;

/**
 * The last sequence number seen from each origin node (one incarnation each): a number seen already is a duplicate,
 * a number past the next one means messages were lost (a gap). The first number seen from an origin starts it, so a
 * node that joins late counts no gap for what was published before.
 */
final class OriginSequences {
    /** What to do with a message. */
    enum Verdict { DELIVER, DUPLICATE }

    private final ConcurrentHashMap<String, long[]> lastByOrigin = new ConcurrentHashMap<>();
    private final OortStats stats;

    OriginSequences(OortStats stats) {
        this.stats = stats;
    }

    Verdict accept(String origin, long sequence) {
        long[] last = lastByOrigin.computeIfAbsent(origin, o -> new long[] {sequence - 1});
        synchronized (last) {
            if (sequence <= last[0]) {
                stats.duplicates.increment();
                return Verdict.DUPLICATE;
            }
            if (sequence > last[0] + 1) {
                stats.gaps.add(sequence - last[0] - 1);
            }
            last[0] = sequence;
            return Verdict.DELIVER;
        }
    }

    /** @param origin an incarnation that left: its numbers are never seen again */
    void forget(String origin) {
        lastByOrigin.remove(origin);
    }
}
