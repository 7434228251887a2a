package org.bayeux.oort;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The forwards of one link that the peer has not acknowledged yet, in the order they were numbered: the chain that
 * lets a link that flaps resend what was lost without delivering anything twice or out of order.
 *
 * <p>Each forward carries its origin's sequence number and {@code prev}, the number of the forward queued on this
 * chain before it (0 for the first of a chain). The receiver ({@link OriginSequences}) delivers a forward only if it
 * has delivered {@code prev} already, answers it as taken if it delivered it before (a duplicate), and refuses it
 * otherwise (a forward before it was lost): nothing is delivered out of order whatever the transport does. A forward
 * is dropped from here when its reply says taken. A refusal or a failed reply stops the flow: new forwards are only
 * queued, and the whole chain still unacknowledged is sent again, in order, when the link is connected again
 * ({@link #resend}). Replies to sends of an earlier round are told apart by the round number and only count when they
 * say taken.</p>
 *
 * <p>The queue is bounded by {@code oort.maxQueue} forwards and {@code oort.maxQueueBytes}: past it a forward is not
 * queued (the caller counts it), and the next forward's {@code prev} makes the receiver count the numbers skipped as a
 * gap. {@link #reset} starts a new chain: when the peer joins (a new incarnation) or leaves (nothing is resent to an
 * incarnation that left).</p>
 */
final class ForwardQueue {
    /** Sends one forward of a round; the reply must come back through {@link #replied}. */
    interface Sender {
        void send(Entry entry, long round);
    }

    /** One forward, until the peer takes it. */
    static final class Entry {
        final long seq;
        final long prev;
        final Map<String, Object> data;
        final int bytes;
        boolean acked;
        boolean sent;

        Entry(long seq, long prev, Map<String, Object> data, int bytes) {
            this.seq = seq;
            this.prev = prev;
            this.data = data;
            this.bytes = bytes;
        }
    }

    private final int maxCount;
    private final long maxBytes;
    private final Sender sender;
    private final ArrayDeque<Entry> entries = new ArrayDeque<>();
    private long bytes;
    private long lastQueued;
    /** Bumped by every reset and every resend: failures of an earlier round are stale. */
    private long round;
    /** True while new forwards go out at once: the link is connected and nothing is waiting to be resent. */
    private boolean flowing;
    private boolean needsResend;
    private long resent;

    ForwardQueue(int maxCount, long maxBytes, Sender sender) {
        this.maxCount = maxCount;
        this.maxBytes = maxBytes;
        this.sender = sender;
    }

    /**
     * Queues a forward, and sends it at once if the chain flows.
     *
     * @param seq the origin's number for it
     * @param fields origin, channel and message (prev and seq are added)
     * @param size what it weighs against the byte bound
     * @return false if the queue is full: it was not queued
     */
    synchronized boolean offer(long seq, Map<String, Object> fields, int size) {
        if (entries.size() >= maxCount || bytes + size > maxBytes) {
            return false;
        }
        Map<String, Object> data = new java.util.HashMap<>(fields);
        data.put("seq", seq);
        data.put("prev", lastQueued);
        Entry entry = new Entry(seq, lastQueued, data, size);
        lastQueued = seq;
        entries.addLast(entry);
        bytes += size;
        if (flowing) {
            entry.sent = true;
            sender.send(entry, round);
        }
        return true;
    }

    /**
     * A reply to a forward.
     *
     * @param entry the forward
     * @param sentInRound the round it was sent in
     * @param taken whether the peer took it (delivered it now or before)
     */
    synchronized void replied(Entry entry, long sentInRound, boolean taken) {
        if (taken) {
            entry.acked = true;
            while (!entries.isEmpty() && entries.peekFirst().acked) {
                bytes -= entries.pollFirst().bytes;
            }
        } else if (sentInRound == round) {
            // Lost or refused: stop here, and send the rest again from the first one not taken, in order.
            flowing = false;
            needsResend = true;
        }
    }

    /** The link is no longer connected: hold new forwards, and resend what is not acknowledged once it is. */
    synchronized void pause() {
        if (flowing) {
            flowing = false;
            needsResend = true;
        }
    }

    /**
     * The link is connected: sends again, in order, every forward not acknowledged (if the flow had stopped), then lets
     * new ones go at once.
     *
     * @return how many forwards were sent again
     */
    synchronized int resend() {
        if (flowing) {
            return 0;
        }
        round++;
        flowing = true;
        int count = 0;
        needsResend = false;
        for (Entry entry : entries) {
            if (!entry.acked) {
                if (entry.sent) {
                    count++;
                }
                entry.sent = true;
                sender.send(entry, round);
            }
        }
        resent += count;
        return count;
    }

    /** @return whether the flow stopped and waits for {@link #resend} */
    synchronized boolean needsResend() {
        return needsResend;
    }

    /**
     * Starts a new chain: everything queued is dropped, unsent or not.
     *
     * @return how many forwards were dropped without an acknowledgement
     */
    synchronized int reset() {
        int dropped = 0;
        for (Entry entry : entries) {
            if (!entry.acked) {
                dropped++;
            }
        }
        entries.clear();
        bytes = 0;
        lastQueued = 0;
        round++;
        needsResend = false;
        return dropped;
    }

    /** @return forwards held, not yet acknowledged */
    synchronized int size() {
        return entries.size();
    }

    /** @return bytes held, not yet acknowledged */
    synchronized long bytes() {
        return bytes;
    }

    /** @return forwards sent again since the link was made */
    synchronized long resent() {
        return resent;
    }

    /** @return the numbers of the forwards held, for tests */
    synchronized List<Long> held() {
        List<Long> numbers = new ArrayList<>();
        for (Entry entry : entries) {
            numbers.add(entry.seq);
        }
        return numbers;
    }
}
