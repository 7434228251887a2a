package org.bayeux.oort;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;

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
 * <p>Forwards go out in batches (one message each, with one reply), at most {@value #WINDOW} batches unanswered at
 * a time (one over long-polling): while they are, new forwards wait here and go together in the next batch, up to
 * {@value #MAX_BATCH} forwards and a byte bound of messages. A lightly loaded link sends each forward at once; a busy
 * one sends fewer, fuller batches, paced by how fast its peer answers (the peer handles one message of a socket at a
 * time, so a message per forward made it pay the per-message cost of the engine for each of them).</p>
 *
 * <p>The queue is bounded by {@code oort.maxQueue} forwards and {@code oort.maxQueueBytes}: past it a forward is not
 * queued (the caller counts it), and the next forward's {@code prev} makes the receiver count the numbers skipped as a
 * gap. {@link #reset} starts a new chain: when the peer joins (a new incarnation) or leaves (nothing is resent to an
 * incarnation that left).</p>
 */
final class ForwardQueue {
    /**
     * Batches sent and not yet answered, at most, over WebSocket: enough to keep the peer busy while a reply travels.
     * Over long-polling one: two requests in flight may overtake each other, and the second would be refused.
     */
    static final int WINDOW = 2;
    /** Forwards in one batch, at most (well under the server's limit of messages per batch). */
    static final int MAX_BATCH = 256;

    /** Sends a batch of forwards as one message; its reply must come back through {@link #replied}. */
    interface Sender {
        void send(Batch batch);
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

    /** Forwards sent together as one message, in one round, taken or not as a whole. */
    static final class Batch {
        final long round;
        final List<Entry> entries;

        Batch(long round, List<Entry> entries) {
            this.round = round;
            this.entries = entries;
        }
    }

    private final int maxCount;
    private final long maxBytes;
    private final int maxBatchBytes;
    private final Sender sender;
    private final IntSupplier window;
    private final ArrayDeque<Entry> entries = new ArrayDeque<>();
    /** The forwards of this round not sent yet, in order. */
    private final ArrayDeque<Entry> unsent = new ArrayDeque<>();
    private long bytes;
    private long lastQueued;
    /** The incarnation of the peer this chain is for (each forward names it); null between chains. */
    private String chainTo;
    /** Bumped by every reset and every resend: failures of an earlier round are stale. */
    private long round;
    /** Batches of this round sent and not answered in full. */
    private int inFlight;
    /** True while forwards go out: the link is connected and nothing is waiting to be resent. */
    private boolean flowing;
    private boolean needsResend;
    private long resent;
    private long batches;

    /**
     * @param maxCount forwards held at most
     * @param maxBytes bytes held at most
     * @param maxBatchBytes bytes of messages in one batch at most (a batch has one forward at least, whatever it
     *                      weighs)
     * @param window how many batches may be unanswered at a time now ({@link #WINDOW} or 1)
     * @param sender sends the batches
     */
    ForwardQueue(int maxCount, long maxBytes, int maxBatchBytes, IntSupplier window, Sender sender) {
        this.window = window;
        this.maxCount = maxCount;
        this.maxBytes = maxBytes;
        this.maxBatchBytes = maxBatchBytes;
        this.sender = sender;
    }

    /**
     * Queues a forward; it goes at once if the chain flows and fewer than {@value #WINDOW} batches are unanswered,
     * else with the next batch.
     *
     * @param seq the origin's number for it
     * @param fields channel and message (prev and seq are added)
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
        if (chainTo != null) {
            data.put("to", chainTo);
        }
        Entry entry = new Entry(seq, lastQueued, data, size);
        lastQueued = seq;
        entries.addLast(entry);
        bytes += size;
        if (flowing) {
            unsent.addLast(entry);
            pump();
        }
        return true;
    }

    /** Sends batches of the unsent forwards while the window has room. */
    private void pump() {
        while (flowing && inFlight < window.getAsInt() && !unsent.isEmpty()) {
            List<Entry> batch = new ArrayList<>(Math.min(unsent.size(), MAX_BATCH));
            int batchBytes = 0;
            while (!unsent.isEmpty() && batch.size() < MAX_BATCH
                    && (batch.isEmpty() || batchBytes + unsent.peekFirst().bytes <= maxBatchBytes)) {
                Entry entry = unsent.pollFirst();
                if (entry.acked) {
                    continue; // A late "taken" of an earlier round: the peer has it.
                }
                batchBytes += entry.bytes;
                entry.sent = true;
                batch.add(entry);
            }
            if (batch.isEmpty()) {
                return;
            }
            inFlight++;
            batches++;
            // The sender may answer at once (a failure), re-entering replied(): the batch is counted first.
            sender.send(new Batch(round, batch));
        }
    }

    /**
     * The reply to a batch.
     *
     * @param batch the batch
     * @param taken whether the peer took every forward of it (delivered now or before); if not, it may have taken the
     *              first ones, and answers them as taken (duplicates) when they are resent
     */
    synchronized void replied(Batch batch, boolean taken) {
        if (taken) {
            for (Entry entry : batch.entries) {
                entry.acked = true;
            }
            while (!entries.isEmpty() && entries.peekFirst().acked) {
                bytes -= entries.pollFirst().bytes;
            }
        } else if (batch.round == round) {
            // Lost or refused: stop here, and send the rest again from the first one not taken, in order.
            flowing = false;
            needsResend = true;
        }
        if (batch.round == round) {
            inFlight--;
            pump();
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
     * new ones go as they come.
     *
     * @return how many forwards are sent again (they had been sent before)
     */
    synchronized int resend() {
        if (flowing) {
            return 0;
        }
        round++;
        inFlight = 0;
        flowing = true;
        needsResend = false;
        unsent.clear();
        int count = 0;
        for (Entry entry : entries) {
            if (!entry.acked) {
                if (entry.sent) {
                    count++;
                }
                unsent.addLast(entry);
            }
        }
        resent += count;
        pump();
        return count;
    }

    /**
     * Starts a new chain for a peer's incarnation that joined: as {@link #reset}, and each forward from now on names
     * that incarnation, so that one which arrives after the peer took a new incarnation is not taken as the new one's.
     *
     * @param to the peer's incarnation
     * @return how many forwards were dropped without an acknowledgement
     */
    synchronized int startChain(String to) {
        int dropped = reset();
        chainTo = to;
        return dropped;
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
        unsent.clear();
        bytes = 0;
        lastQueued = 0;
        chainTo = null;
        round++;
        inFlight = 0;
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

    /** @return batches sent since the link was made */
    synchronized long batches() {
        return batches;
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
