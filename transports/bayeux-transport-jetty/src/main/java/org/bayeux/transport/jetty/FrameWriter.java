package org.bayeux.transport.jetty;

import java.util.ArrayDeque;
import java.util.List;
import java.util.function.Consumer;

import org.eclipse.jetty.util.IteratingCallback;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;

/**
 * Writes text frames on one WebSocket, in order, one at a time, without blocking the caller.
 *
 * <p>{@link #write(List)} queues the frames and starts writing if the socket is idle; each completed write starts
 * the next. A write that completes at once continues the loop without recursion ({@link IteratingCallback} takes
 * care of that). The queue is bounded: past {@code maxPending} frames the peer is too slow, and the writer refuses
 * more so that the carrier can drop the connection instead of growing memory without limit.</p>
 *
 * <p>The first failed write, or {@link #abandon()}, ends the writer: pending frames are dropped, later writes are
 * ignored.</p>
 */
final class FrameWriter extends IteratingCallback {
    private final Session socket;
    private final int maxPending;
    private final Consumer<Throwable> onWriteFailure;
    // Guarded by this.
    private final ArrayDeque<String> pending = new ArrayDeque<>();
    private boolean abandoned;

    /**
     * @param socket the socket to write on
     * @param maxPending the most frames waiting for an earlier write to finish
     * @param onWriteFailure told once when a write fails, on any thread, possibly the one calling
     *        {@link #write(List)}
     */
    FrameWriter(Session socket, int maxPending, Consumer<Throwable> onWriteFailure) {
        this.socket = socket;
        this.maxPending = maxPending;
        this.onWriteFailure = onWriteFailure;
    }

    /**
     * Queues frames and makes sure they are being written.
     *
     * @param frames the frames, in order
     * @return false if the queue is full (the frames were not queued); true otherwise, also when the writer has
     *         ended and the frames were dropped
     */
    boolean write(List<String> frames) {
        synchronized (this) {
            if (abandoned) {
                return true;
            }
            if (pending.size() + frames.size() > maxPending) {
                return false;
            }
            pending.addAll(frames);
        }
        iterate();
        return true;
    }

    /** Drops the pending frames and ignores later writes. */
    void abandon() {
        synchronized (this) {
            abandoned = true;
            pending.clear();
        }
    }

    /** @return the number of frames waiting to be written */
    synchronized int pendingFrames() {
        return pending.size();
    }

    @Override
    protected Action process() {
        String next;
        synchronized (this) {
            next = abandoned ? null : pending.poll();
        }
        if (next == null) {
            return Action.IDLE;
        }
        socket.sendText(next, Callback.from(this::succeeded, this::failed));
        return Action.SCHEDULED;
    }

    @Override
    protected void onCompleteFailure(Throwable failure) {
        abandon();
        onWriteFailure.accept(failure);
    }
}
