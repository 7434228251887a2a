package org.bayeux.transport.websocket;

import java.util.ArrayDeque;
import java.util.List;
import java.util.function.Consumer;

/**
 * Writes text messages on one WebSocket in order, one at a time, without blocking the caller.
 *
 * <p>{@link #write(List)} queues the texts and starts writing if nothing is being written; each completed send
 * starts the next. A send that completes on the calling thread does not recurse: the loop in {@link #drain()} picks
 * up the next text. The queue is bounded: past {@code maxPending} texts the peer is too slow, and the queue refuses
 * more so that the carrier can drop the connection instead of growing memory without limit.</p>
 *
 * <p>The first failed send, or {@link #abandon()}, ends the queue: pending texts are dropped, later writes are
 * ignored.</p>
 */
final class TextWriteQueue {
    private final SocketPeer peer;
    private final int maxPending;
    private final Consumer<Throwable> onWriteFailure;
    // Guarded by this.
    private final ArrayDeque<byte[]> pending = new ArrayDeque<>();
    private boolean abandoned;
    /** A send has been started and has not completed, or the drain loop is running. */
    private boolean writing;
    /** The drain loop is inside {@link SocketPeer#sendText}. */
    private boolean inSend;
    /** The send started by the drain loop completed before {@link SocketPeer#sendText} returned. */
    private boolean completedInline;

    /**
     * @param peer the socket to write on
     * @param maxPending the most texts waiting for an earlier send to finish
     * @param onWriteFailure told once when a send fails, on any thread, possibly the one calling {@link #write(List)}
     */
    TextWriteQueue(SocketPeer peer, int maxPending, Consumer<Throwable> onWriteFailure) {
        this.peer = peer;
        this.maxPending = maxPending;
        this.onWriteFailure = onWriteFailure;
    }

    /**
     * Queues texts and makes sure they are being written.
     *
     * @param texts the texts, UTF-8 encoded, in order
     * @return false if the queue is full (the texts were not queued); true otherwise, also when the queue has ended
     *         and the texts were dropped
     */
    boolean write(List<byte[]> texts) {
        synchronized (this) {
            if (abandoned) {
                return true;
            }
            if (pending.size() + texts.size() > maxPending) {
                return false;
            }
            pending.addAll(texts);
            if (writing) {
                return true;
            }
            writing = true;
        }
        drain();
        return true;
    }

    /** Drops the pending texts and ignores later writes. */
    synchronized void abandon() {
        abandoned = true;
        pending.clear();
    }

    /** @return the number of texts waiting to be written */
    synchronized int pendingTexts() {
        return pending.size();
    }

    /** Sends texts until one completes later (its completion resumes the loop), the queue empties, or it ends. */
    private void drain() {
        while (true) {
            byte[] next;
            synchronized (this) {
                next = abandoned ? null : pending.poll();
                if (next == null) {
                    writing = false;
                    return;
                }
                inSend = true;
                completedInline = false;
            }
            peer.sendText(next, this::sent);
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
                writing = false;
            }
            onWriteFailure.accept(failure);
            return;
        }
        synchronized (this) {
            if (inSend) {
                completedInline = true;
                return;
            }
        }
        drain();
    }
}
