package org.bayeux.load;

import java.util.BitSet;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Counts, exactly, what each client should have received and what it did: every message has a sequence number, each
 * client keeps the set of numbers it saw, so a second delivery of one message is a duplicate and an expected one never
 * seen is lost. Memory: one bit per message per client (1,000 clients × 100,000 messages = 12.5 MB).
 */
final class DeliveryTracker {
    private final RoomPlan plan;
    private final BitSet[] seen;
    private final long[] unique;
    private final long[] duplicates;
    private final int[][] roomsOfClient;
    private final AtomicLongArray publishedPerRoom;
    private final AtomicLongArray refusedPerRoom;

    DeliveryTracker(RoomPlan plan, int clients) {
        this.plan = plan;
        this.seen = new BitSet[clients];
        this.unique = new long[clients];
        this.duplicates = new long[clients];
        this.roomsOfClient = new int[clients][];
        for (int c = 0; c < clients; c++) {
            seen[c] = new BitSet();
            roomsOfClient[c] = plan.roomsOf(c);
        }
        this.publishedPerRoom = new AtomicLongArray(plan.rooms());
        this.refusedPerRoom = new AtomicLongArray(plan.rooms());
    }

    /** A message was handed to a publisher. */
    void published(long seq) {
        publishedPerRoom.incrementAndGet(plan.roomOf(seq));
    }

    /** The server refused a published message (an unsuccessful reply): nobody should receive it. */
    void refused(long seq) {
        refusedPerRoom.incrementAndGet(plan.roomOf(seq));
    }

    /**
     * @param client the receiving client
     * @param seq the message's sequence number
     * @return true the first time this client sees the message, false for a duplicate
     */
    boolean delivered(int client, long seq) {
        if (seq < 0 || seq > Integer.MAX_VALUE) {
            return false;
        }
        BitSet set = seen[client];
        synchronized (set) {
            if (set.get((int) seq)) {
                duplicates[client]++;
                return false;
            }
            set.set((int) seq);
            unique[client]++;
            return true;
        }
    }

    /** @return the deliveries expected so far: for each client, the messages accepted for its rooms */
    long expected() {
        long expected = 0;
        for (int[] rooms : roomsOfClient) {
            for (int room : rooms) {
                expected += publishedPerRoom.get(room) - refusedPerRoom.get(room);
            }
        }
        return expected;
    }

    /** @return distinct deliveries so far */
    long delivered() {
        long total = 0;
        for (int c = 0; c < seen.length; c++) {
            synchronized (seen[c]) {
                total += unique[c];
            }
        }
        return total;
    }

    /** @return deliveries of a message a client had already received */
    long duplicated() {
        long total = 0;
        for (int c = 0; c < seen.length; c++) {
            synchronized (seen[c]) {
                total += duplicates[c];
            }
        }
        return total;
    }

    /** @return messages handed to publishers */
    long published() {
        long total = 0;
        for (int room = 0; room < publishedPerRoom.length(); room++) {
            total += publishedPerRoom.get(room);
        }
        return total;
    }

    /** @return published messages the server refused */
    long refused() {
        long total = 0;
        for (int room = 0; room < refusedPerRoom.length(); room++) {
            total += refusedPerRoom.get(room);
        }
        return total;
    }
}
