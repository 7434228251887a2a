package org.bayeux.server;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;

import org.bayeux.api.json.JsonCodec;
import org.bayeux.api.server.DeQueueListener;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.server.cluster.AcknowledgedBatch;
import org.bayeux.server.cluster.ChannelPosition;
import org.bayeux.server.internal.Callbacks;
import org.bayeux.server.internal.PositionLog;

/**
 * A session's way out, and its bookkeeping: the queue, whether what it holds is due, the lazy flush timer, the state
 * of a push handed to the carrier, how many messages were taken from the queue for carriers and, with a cluster, the
 * position of the last one of each channel ({@link org.bayeux.server.cluster.SessionState#positions()}).
 *
 * <p>Kept apart from {@link ServerSessionImpl}, which decides <em>when</em> messages leave (a held connect, a push, a
 * piggy-back); this class is <em>what</em> leaves and what is counted when it does. Guarded by the session's lock,
 * which is this object's monitor (taken by the session only): every method but {@link #delivered()} is called under
 * it.</p>
 */
final class SessionOutbox {
    private final SessionQueue queue;
    /** Made when the first lazy message is queued: most sessions never receive one. */
    private LazyFlushTimer lazyFlushTimer;
    /** The queue holds a message that must not wait: a non-lazy one, or lazy ones whose timeout has passed. */
    boolean due;
    /** A push was handed to the carrier ({@code FlowControl.executePush}) and has not run yet. */
    boolean pushScheduled;
    /** A push waits for the carrier's backlog to shrink ({@code FlowControl.deferPush}). */
    boolean pushDeferred;
    /** How many messages were taken from the queue for carriers; written under the lock. */
    private volatile long delivered;
    /** Per channel, the last position taken for a carrier; made at the first message with one. */
    private PositionLog handed;
    /** The acknowledged batch the store was last told of, for a session with the {@code ack} extension. */
    private long toldAckBatch = -1;
    /**
     * With a store that adopts sessions, how connect replies are journaled before they leave and the hand-over of a
     * draining engine; else null. Kept here rather than in the session, where the field would cost every session
     * 8 bytes: this object's layout had 4 to spare.
     */
    final SessionFailover failover;

    SessionOutbox(JsonCodec codec, SessionFailover failover) {
        this.queue = new SessionQueue(codec);
        this.failover = failover;
    }

    SessionQueue queue() {
        return queue;
    }

    /** @return how many messages were taken for carriers since the session was created (read without the lock) */
    long delivered() {
        return delivered;
    }

    /**
     * Queues a message that was admitted.
     *
     * @param message the message
     * @param size its size as the queue counts it
     * @param lazyDelayNanos how long it may wait, 0 if it is due now
     * @param scheduler where the lazy flush runs
     * @param lazyFlush the session's lazy flush, made into a timer the first time
     */
    void add(ServerMessage message, int size, long lazyDelayNanos, ScheduledExecutorService scheduler,
            Runnable lazyFlush) {
        queue.add(message, size);
        if (lazyDelayNanos == 0) {
            due = true;
        } else {
            if (lazyFlushTimer == null) {
                lazyFlushTimer = new LazyFlushTimer(scheduler, lazyFlush);
            }
            lazyFlushTimer.schedule(lazyDelayNanos);
        }
    }

    /** The lazy timer fired: whatever is queued is due now. */
    void lazyFired() {
        lazyFlushTimer.fired();
        due = !queue.isEmpty();
    }

    /**
     * Takes what fits in {@code maxBytes} for delivery ({@link SessionQueue#take}); {@link DeQueueListener}s may
     * rewrite it first; the rest stays queued, still due.
     *
     * @param session the session, for the listeners
     * @param connectReply the connect reply the messages go out with (listeners then run even for an empty
     *                     queue), or null when they are pushed or piggy-backed
     * @param maxBytes the most JSON bytes the carrier takes at once
     */
    List<ServerMessage> drain(ServerSessionImpl session, ServerMessageImpl connectReply, int maxBytes) {
        List<DeQueueListener> listeners = session.callbacks().deQueueListeners();
        // Listeners see a connect reply's empty queue too; with none, an empty queue needs no work (nor a deque).
        boolean always = connectReply != null && !listeners.isEmpty();
        List<ServerMessage> result = queue.take(maxBytes, always, leaving -> {
            for (DeQueueListener listener : listeners) {
                Callbacks.run(listener, () -> listener.deQueue(session, leaving, connectReply));
            }
        });
        due = !queue.isEmpty();
        delivered += result.size();
        if (!due && lazyFlushTimer != null) {
            lazyFlushTimer.cancel();
        }
        if (session.tracksPositions()) {
            track(session, result);
        }
        return result;
    }

    /**
     * Keeps the positions of what leaves, and tells the store once for the whole batch if they moved. With the
     * {@code ack} extension the positions that count are the acknowledged ones, which the extension keeps (its
     * dequeue listener, run just now, forgot the batches the client acknowledged): the store is told when the
     * acknowledged batch moved.
     */
    private void track(ServerSessionImpl session, List<ServerMessage> taken) {
        boolean moved = false;
        AcknowledgedBatch acknowledging = session.acknowledging();
        if (acknowledging != null) {
            long batch = acknowledging.acknowledgedBatch();
            moved = batch != toldAckBatch;
            toldAckBatch = batch;
        } else {
            for (ServerMessage message : taken) {
                if (handed == null && ChannelPosition.of(message) == null) {
                    continue;
                }
                if (handed == null) {
                    handed = new PositionLog();
                }
                moved |= handed.record(message);
            }
        }
        if (moved) {
            session.store().changed(session);
        }
    }

    /**
     * Continues an adopted session without the {@code ack} extension: its client has these positions already. Under
     * the session's lock.
     *
     * @param positions per channel, where the session resumed
     */
    void seedHandedPositions(Map<String, ChannelPosition> positions) {
        if (positions.isEmpty()) {
            return;
        }
        if (handed == null) {
            handed = new PositionLog();
        }
        handed.seed(positions);
    }

    /**
     * @return per channel, the last position taken for a carrier (a view, to copy under the lock), without the
     *         {@code ack} extension
     */
    Map<String, ChannelPosition> handedPositions() {
        return handed == null ? Map.of() : handed.view();
    }

    /** The session ended: nothing more leaves. */
    void clear() {
        queue.clear();
        if (lazyFlushTimer != null) {
            lazyFlushTimer.cancel();
        }
    }
}
