package org.bayeux.transport.websocket;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * Writes text messages on one WebSocket in order, one at a time, without blocking the caller, and keeps count of the
 * bytes not yet written.
 *
 * <p>{@link #write(List)} queues the texts and starts writing if nothing is being written; each completed send
 * starts the next. A send that completes on the calling thread does not recurse: the loop in {@link #drain(byte[])} picks
 * up the next text. The queue is bounded in bytes: past {@code maxPendingBytes} (the text being written included)
 * the peer is too slow, and the queue refuses more so that the carrier can drop the connection instead of growing
 * memory without limit.</p>
 *
 * <p>Below that hard bound, the engine is asked to keep its messages in the session's queue while this one holds a
 * frame's worth or more ({@link #deferUntilWritable(Runnable)}): there the max-queue policy can still drop the oldest
 * of them, here nothing can be taken back. The texts queued here may be shared with other sockets (a broadcast sent
 * alone is one array for all), so they are never changed.</p>
 *
 * <p>The first failed send, or {@link #abandon()}, ends the queue: pending texts are dropped, later writes are
 * ignored.</p>
 */
final class TextWriteQueue {
    private final SocketPeer peer;
    private final long maxPendingBytes;
    private final long deferAtBytes;
    private final Consumer<Throwable> onWriteFailure;
    private final Executor resumer;
    /** The completion of every send: one object for the queue's life rather than one per send. */
    private final Consumer<Throwable> sentCallback = this::sent;
    // Guarded by this.
    /** Small at first (an idle socket's is empty; ArrayDeque's default takes 88 bytes); grows with a backlog. */
    private final ArrayDeque<byte[]> pending = new ArrayDeque<>(2);
    /** Pushes of the engine waiting for the backlog to shrink; one per session at most. */
    private List<Runnable> waiting;
    private boolean abandoned;
    /** A send has been started and has not completed, or the drain loop is running. */
    private boolean writing;
    /** The drain loop is inside {@link SocketPeer#sendText}. */
    private boolean inSend;
    /** The send started by the drain loop completed before {@link SocketPeer#sendText} returned. */
    private boolean completedInline;
    /** The length of the text being sent. */
    private int inFlightBytes;
    /** When the backlog last moved: the start of writing from idle, or the last completed send. */
    private long progressNanos;
    /** The pending texts' bytes and the one being sent; written under the lock, read without it. */
    private volatile long pendingBytes;

    /**
     * @param peer the socket to write on
     * @param maxPendingBytes the most bytes waiting to be written, the text being sent included; one text alone is
     *        always accepted
     * @param deferAtBytes the backlog from which the engine's pushes wait ({@link #deferUntilWritable(Runnable)})
     * @param onWriteFailure told once when a send fails, on any thread, possibly the one calling {@link #write(List)}
     * @param resumer runs the pushes that waited, away from the thread that completed a send (which may hold a
     *        session's lock when the send completed inline)
     */
    TextWriteQueue(SocketPeer peer, long maxPendingBytes, long deferAtBytes, Consumer<Throwable> onWriteFailure,
            Executor resumer) {
        this.peer = peer;
        this.maxPendingBytes = maxPendingBytes;
        this.deferAtBytes = deferAtBytes;
        this.onWriteFailure = onWriteFailure;
        this.resumer = resumer;
    }

    /**
     * Queues texts and makes sure they are being written.
     *
     * @param texts the texts, UTF-8 encoded, in order; never changed, so they may be shared
     * @return false if they would take the backlog past {@code maxPendingBytes} (the texts were not queued); true
     *         otherwise, also when the queue has ended and the texts were dropped
     */
    boolean write(List<byte[]> texts) {
        long adding = 0;
        for (byte[] text : texts) {
            adding += text.length;
        }
        byte[] first;
        synchronized (this) {
            if (abandoned) {
                return true;
            }
            if (pendingBytes > 0 && pendingBytes + adding > maxPendingBytes) {
                return false;
            }
            pendingBytes += adding;
            if (writing) {
                pending.addAll(texts);
                return true;
            }
            writing = true;
            progressNanos = System.nanoTime();
            if (texts.size() == 1) {
                // The usual case of a fan-out: one frame to a socket with nothing waiting. It goes straight out,
                // without a stop in the deque (whose array is long-lived: every reference stored there is work for
                // the garbage collector's bookkeeping of old-to-young pointers).
                first = texts.get(0);
            } else {
                pending.addAll(texts);
                first = null;
            }
        }
        drain(first);
        return true;
    }

    /**
     * Asks the engine's push to wait while a frame's worth or more is waiting to be written.
     *
     * @param resume run once, on the resumer, when the backlog falls below that
     * @return true if the push should wait for {@code resume}; false to push now
     */
    synchronized boolean deferUntilWritable(Runnable resume) {
        if (abandoned || pendingBytes < deferAtBytes) {
            return false;
        }
        if (waiting == null) {
            waiting = new ArrayList<>(1);
        }
        waiting.add(resume);
        return true;
    }

    /** Drops the pending texts and ignores later writes; waiting pushes are forgotten, the carrier being dead. */
    synchronized void abandon() {
        abandoned = true;
        pending.clear();
        pendingBytes = 0;
        waiting = null;
    }

    /** @return the bytes waiting to be written, the text being sent included */
    long pendingBytes() {
        return pendingBytes;
    }

    /** @return when the backlog last moved, or -1 when nothing waits to be written */
    synchronized long busySinceNanos() {
        return abandoned || pendingBytes == 0 ? -1 : progressNanos;
    }

    /**
     * Sends texts until one completes later (its completion resumes the loop), the queue empties, or it ends.
     *
     * @param first a text to send before the queued ones, not in the deque, or null
     */
    private void drain(byte[] first) {
        byte[] next = first;
        while (true) {
            synchronized (this) {
                if (abandoned) {
                    next = null;
                } else if (next == null) {
                    next = pending.poll();
                }
                if (next == null) {
                    writing = false;
                    return;
                }
                inFlightBytes = next.length;
                inSend = true;
                completedInline = false;
            }
            peer.sendText(next, sentCallback);
            next = null;
            synchronized (this) {
                inSend = false;
                if (!completedInline) {
                    return;
                }
            }
        }
    }

    private void sent(Throwable failure) {
        if (failure != null) {
            synchronized (this) {
                abandoned = true;
                pending.clear();
                pendingBytes = 0;
                waiting = null;
                writing = false;
            }
            onWriteFailure.accept(failure);
            return;
        }
        List<Runnable> resuming = null;
        boolean inline;
        synchronized (this) {
            if (!abandoned) {
                pendingBytes -= inFlightBytes;
            }
            inFlightBytes = 0;
            progressNanos = System.nanoTime();
            if (waiting != null && pendingBytes < deferAtBytes) {
                resuming = waiting;
                waiting = null;
            }
            inline = inSend;
            if (inline) {
                completedInline = true;
            }
        }
        if (resuming != null) {
            for (Runnable resume : resuming) {
                resumer.execute(resume);
            }
        }
        if (!inline) {
            drain(null);
        }
    }
}
