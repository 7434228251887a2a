package org.bayeux.server;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import org.bayeux.api.json.JsonCodec;
import org.bayeux.api.server.MaxQueueListener;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.server.internal.Callbacks;
import org.bayeux.server.transport.Carrier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A session's queue of messages waiting for delivery, with the JSON bytes they take, and its overflow policy: what
 * happens to a message that finds it full ({@link #admit}). Not thread-safe: the session uses it under its lock.
 *
 * <p>A message's size is its JSON length plus one (the comma that joins it to the next one in an array). Frozen
 * messages cache their JSON, so sizing a broadcast encodes it once however many sessions queue it.</p>
 *
 * <p>Listeners ({@code MaxQueueListener}, {@code DeQueueListener}) receive the deque itself and may change it; the
 * session calls {@link #recount()} after them.</p>
 */
final class SessionQueue {
    private static final Logger LOG = LoggerFactory.getLogger(SessionQueue.class);

    private final JsonCodec codec;
    /** Allocated on first use: idle sessions stay small. */
    private ArrayDeque<ServerMessage> messages;
    private long bytes;

    SessionQueue(JsonCodec codec) {
        this.codec = codec;
    }

    /**
     * @param message a message about to be queued
     * @param codec the engine's codec
     * @return the bytes it takes in a queue: its JSON length plus one; encodes it if it was not yet
     */
    static int sizeOf(ServerMessage message, JsonCodec codec) {
        return message instanceof ServerMessageImpl ? ((ServerMessageImpl) message).jsonLength(codec) + 1 : 0;
    }

    /**
     * {@link #sizeOf}, for a message about to be queued: the first place it is encoded.
     *
     * @return its size, or -1 if it cannot be encoded (data that is not JSON, from server-side code), logged
     */
    static int sizeToQueue(ServerMessage message, JsonCodec codec) {
        try {
            return sizeOf(message, codec);
        } catch (RuntimeException unencodable) {
            LOG.warn("A message on {} cannot be encoded as JSON and is not delivered: {}", message.getChannel(),
                    unencodable.toString());
            return -1;
        }
    }

    /** @return the deque itself, for listeners and delivery */
    ArrayDeque<ServerMessage> deque() {
        if (messages == null) {
            messages = new ArrayDeque<>(8);
        }
        return messages;
    }

    int size() {
        return messages == null ? 0 : messages.size();
    }

    boolean isEmpty() {
        return messages == null || messages.isEmpty();
    }

    /** @return the bytes of the queued messages */
    long bytes() {
        return bytes;
    }

    /**
     * @param maxCount the most messages
     * @param maxBytes the most bytes waiting, queue and backlog together
     * @param backlogBytes the bytes the session's socket has yet to write
     * @param size the size of a message about to be queued
     * @return true if queuing the message would break a limit; a message always fits when nothing waits, so that a
     *         message larger than the byte limit can still leave
     */
    boolean isFull(int maxCount, int maxBytes, long backlogBytes, int size) {
        if (size() >= maxCount) {
            return true;
        }
        boolean nothingWaits = isEmpty() && backlogBytes <= 0;
        return !nothingWaits && bytes + backlogBytes + size > maxBytes;
    }

    /**
     * @param message the message
     * @param size its {@link #sizeOf} size
     */
    void add(ServerMessage message, int size) {
        deque().add(message);
        bytes += size;
    }

    /** Drops the oldest message, if any. */
    void dropOldest() {
        ServerMessage oldest = messages == null ? null : messages.poll();
        if (oldest != null) {
            bytes -= sizeOf(oldest, codec);
        }
    }

    /** Counts the bytes again, after listeners may have changed the deque. */
    void recount() {
        long total = 0;
        if (messages != null) {
            for (ServerMessage message : messages) {
                total += sizeOf(message, codec);
            }
        }
        bytes = total;
    }

    /**
     * Takes the messages for one delivery. Only as many as fit in {@code maxBytes} are taken (at least one); the
     * rest stay queued. The cut is made before {@code beforeTaking} runs, so that the listeners it runs see exactly
     * the messages that leave (the {@code ack} extension numbers them), and may rewrite them.
     *
     * @param maxBytes the most JSON bytes the carrier takes at once
     * @param always whether to run {@code beforeTaking} even when nothing is queued (for a connect reply)
     * @param beforeTaking runs on the messages about to leave, which it may change
     * @return the messages leaving, possibly none
     */
    List<ServerMessage> take(int maxBytes, boolean always, Consumer<ArrayDeque<ServerMessage>> beforeTaking) {
        if (!always && isEmpty()) {
            // Most connect replies of an idle session: no deque is made for them.
            return List.of();
        }
        ArrayDeque<ServerMessage> leaving = deque();
        ArrayDeque<ServerMessage> left = cutBeyond(maxBytes);
        if (always || !leaving.isEmpty()) {
            beforeTaking.accept(leaving);
        }
        List<ServerMessage> result = switch (leaving.size()) {
            case 0 -> List.of();
            // A fan-out at a light rate leaves one message at a time: no copy of the deque's array for it.
            case 1 -> List.of(leaving.peekFirst());
            default -> new ArrayList<>(leaving);
        };
        leaving.clear();
        if (left != null) {
            leaving.addAll(left);
            recount();
        } else {
            bytes = 0;
        }
        return result;
    }

    /** Moves the messages beyond {@code maxBytes} of JSON out of the queue, and returns them (null if none). */
    private ArrayDeque<ServerMessage> cutBeyond(int maxBytes) {
        ArrayDeque<ServerMessage> pending = deque();
        if (maxBytes == Integer.MAX_VALUE || pending.size() < 2) {
            return null;
        }
        long total = 0;
        int fitting = 0;
        for (ServerMessage message : pending) {
            long size = sizeOf(message, codec);
            if (fitting > 0 && total + size > maxBytes) {
                break;
            }
            total += size;
            fitting++;
        }
        if (fitting == pending.size()) {
            return null;
        }
        ArrayDeque<ServerMessage> left = new ArrayDeque<>(pending.size() - fitting);
        while (pending.size() > fitting) {
            left.addFirst(pending.pollLast());
        }
        return left;
    }

    void clear() {
        if (messages != null) {
            messages.clear();
        }
        bytes = 0;
    }

    // ---- the overflow policy ---------------------------------------------------------------------------------

    /** What to do with a message that finds the queue full. */
    enum Overflow { ENQUEUE, DROP, DISCONNECT }

    /**
     * Applies {@code maxQueue} and {@code maxQueueBytes} to a message about to be queued: the queue's bytes, the
     * carrier's unwritten backlog and the message must fit. Called under the session's lock.
     *
     * @param session the session whose queue this is, for the {@link MaxQueueListener}s
     * @param limits the session's settings: its limits, and the server's {@code maxQueuePolicy}
     * @param listeners the session's {@link MaxQueueListener}s
     * @param carrier the session's carrier, or null
     * @param size the new message's size in the queue
     * @param counters counts the limit hit and its outcome
     * @return ENQUEUE if it fits or room was made, else what {@link #resolveOverflow} decided
     */
    Overflow admit(ServerSession session, SessionSettings limits, List<MaxQueueListener> listeners, Carrier carrier,
            int size, ServerSession sender, ServerMessage message, QueueLimitCounters counters) {
        long backlog = carrier == null ? 0 : carrier.flowControl().pendingBytes();
        if (!isFull(limits.getMaxQueue(), limits.getMaxQueueBytes(), backlog, size)) {
            return Overflow.ENQUEUE;
        }
        return resolveOverflow(session, limits, listeners, backlog, size, sender, message, counters);
    }

    /**
     * Decides about a message that finds the queue full ({@code maxQueue} messages, or {@code maxQueueBytes} with the
     * carrier's backlog): the {@link MaxQueueListener}s if any, else {@code maxQueuePolicy}, which may drop the
     * oldest queued messages until the new one fits. Called under the session's lock.
     *
     * @param backlog the bytes the session's carrier has yet to write
     */
    private Overflow resolveOverflow(ServerSession session, SessionSettings limits, List<MaxQueueListener> listeners,
            long backlog, int size, ServerSession sender, ServerMessage message, QueueLimitCounters counters) {
        int maxQueue = limits.getMaxQueue();
        counters.limitHit(size() >= maxQueue);
        if (!listeners.isEmpty()) {
            int before = size();
            boolean queueIt = true;
            for (MaxQueueListener listener : listeners) {
                if (!Callbacks.test(listener, () -> listener.queueMaxed(session, deque(), sender, message), false)) {
                    queueIt = false;
                    break;
                }
            }
            recount();
            counters.dropped(Math.max(0, before - size()) + (queueIt ? 0 : 1));
            return queueIt ? Overflow.ENQUEUE : Overflow.DROP;
        }
        switch (limits.config().maxQueuePolicy()) {
            case DROP_OLDEST:
                // Bounded by the queue's length; when the socket's backlog alone is too large, nothing queued can
                // make room and the new message is dropped instead.
                int maxQueueBytes = limits.getMaxQueueBytes();
                int dropped = 0;
                while (!isEmpty() && isFull(maxQueue, maxQueueBytes, backlog, size)) {
                    dropOldest();
                    dropped++;
                }
                boolean fits = !isFull(maxQueue, maxQueueBytes, backlog, size);
                counters.dropped(dropped + (fits ? 0 : 1));
                return fits ? Overflow.ENQUEUE : Overflow.DROP;
            case DROP_NEWEST:
                counters.dropped(1);
                return Overflow.DROP;
            default:
                counters.disconnected();
                return Overflow.DISCONNECT;
        }
    }
}
