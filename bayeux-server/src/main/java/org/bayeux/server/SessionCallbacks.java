package org.bayeux.server;

import java.util.List;

import org.bayeux.api.server.DeQueueListener;
import org.bayeux.api.server.MaxQueueListener;
import org.bayeux.api.server.QueueListener;
import org.bayeux.api.server.SessionExtension;
import org.bayeux.api.server.SessionMessageListener;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.api.server.SessionRemovedListener;
import org.bayeux.server.config.BayeuxServerConfig;
import org.bayeux.server.internal.CallbackList;
import org.bayeux.server.internal.Callbacks;
import org.bayeux.server.transport.Carrier;

/**
 * The registration of a session's extensions and listeners, each kind in its own list, each list allocated on
 * first use, and the running of those that decide about a message on its way into the queue. Kept apart so that {@link ServerSessionImpl} holds only the session's life, queue and connects.
 */
abstract class SessionCallbacks extends SessionSettings {
    private final CallbackList<SessionExtension> extensions = new CallbackList<>();
    private final CallbackList<QueueListener> queueListeners = new CallbackList<>();
    private final CallbackList<DeQueueListener> deQueueListeners = new CallbackList<>();
    private final CallbackList<MaxQueueListener> maxQueueListeners = new CallbackList<>();
    private final CallbackList<SessionMessageListener> messageListeners = new CallbackList<>();
    private final CallbackList<SessionRemovedListener> removedListeners = new CallbackList<>();

    SessionCallbacks(BayeuxServerConfig config) {
        super(config);
    }

    List<SessionExtension> extensionList() {
        return extensions.list();
    }

    CallbackList<SessionExtension> extensions() {
        return extensions;
    }

    CallbackList<QueueListener> queueListeners() {
        return queueListeners;
    }

    CallbackList<DeQueueListener> deQueueListeners() {
        return deQueueListeners;
    }

    CallbackList<MaxQueueListener> maxQueueListeners() {
        return maxQueueListeners;
    }

    CallbackList<SessionMessageListener> messageListeners() {
        return messageListeners;
    }

    CallbackList<SessionRemovedListener> removedListeners() {
        return removedListeners;
    }

    @Override
    public void addExtension(SessionExtension extension) {
        extensions.add(extension);
    }

    @Override
    public void removeExtension(SessionExtension extension) {
        extensions.remove(extension);
    }

    @Override
    public List<SessionExtension> getExtensions() {
        return extensions.snapshot();
    }

    @Override
    public void addQueueListener(QueueListener listener) {
        queueListeners.add(listener);
    }

    @Override
    public void removeQueueListener(QueueListener listener) {
        queueListeners.remove(listener);
    }

    @Override
    public void addDeQueueListener(DeQueueListener listener) {
        deQueueListeners.add(listener);
    }

    @Override
    public void removeDeQueueListener(DeQueueListener listener) {
        deQueueListeners.remove(listener);
    }

    @Override
    public void addMaxQueueListener(MaxQueueListener listener) {
        maxQueueListeners.add(listener);
    }

    @Override
    public void removeMaxQueueListener(MaxQueueListener listener) {
        maxQueueListeners.remove(listener);
    }

    @Override
    public void addMessageListener(SessionMessageListener listener) {
        messageListeners.add(listener);
    }

    @Override
    public void removeMessageListener(SessionMessageListener listener) {
        messageListeners.remove(listener);
    }

    @Override
    public void addRemovedListener(SessionRemovedListener listener) {
        removedListeners.add(listener);
    }

    @Override
    public void removeRemovedListener(SessionRemovedListener listener) {
        removedListeners.remove(listener);
    }

    // ---- running the callbacks that decide about a message -------------------------------------------------

    /**
     * Runs the session's outgoing extensions on a message; each may replace or drop it.
     *
     * @return the message to queue (frozen), or null if an extension dropped it
     */
    ServerMessage applyOutgoingExtensions(ServerMessage message) {
        ServerMessage current = message;
        for (SessionExtension extension : extensions().list()) {
            ServerMessage input = current;
            ServerMessage[] output = {input};
            Callbacks.run(extension, () -> output[0] = extension.send(this, input));
            current = output[0];
            if (current == null) {
                return null;
            }
            if (current != input && !current.isFrozen()) {
                ((ServerMessageImpl) current).freeze();
            }
        }
        return current;
    }

    /** @return false if a {@link QueueListener} refused the message */
    boolean offerToQueueListeners(ServerSession sender, ServerMessage message) {
        for (QueueListener listener : queueListeners().list()) {
            if (!Callbacks.test(listener, () -> listener.queueOffer(this, sender, message), true)) {
                return false;
            }
        }
        return true;
    }

    /** What to do with a message that finds the queue full. */
    enum Overflow { ENQUEUE, DROP, DISCONNECT }

    /**
     * Applies {@code maxQueue} and {@code maxQueueBytes} to a message about to be queued: the queue's bytes, the
     * carrier's unwritten backlog and the message must fit. Called under the session's lock.
     *
     * @param carrier the session's carrier, or null
     * @return ENQUEUE if it fits or room was made, else what {@link #resolveOverflow} decided
     */
    Overflow admit(SessionQueue pending, Carrier carrier, int size, ServerSession sender, ServerMessage message,
            QueueLimitCounters counters) {
        long backlog = carrier == null ? 0 : carrier.pendingBytes();
        if (!pending.isFull(getMaxQueue(), getMaxQueueBytes(), backlog, size)) {
            return Overflow.ENQUEUE;
        }
        return resolveOverflow(pending, backlog, size, sender, message, counters);
    }

    /**
     * Decides about a message that finds the queue full ({@code maxQueue} messages, or {@code maxQueueBytes} with the
     * carrier's backlog): the {@link MaxQueueListener}s if any, else {@code maxQueuePolicy}, which may drop the
     * oldest queued messages until the new one fits. Called under the session's lock.
     *
     * @param pending the queue
     * @param backlog the bytes the session's carrier has yet to write
     * @param size the new message's size in the queue
     * @param counters counts the limit hit and its outcome
     */
    Overflow resolveOverflow(SessionQueue pending, long backlog, int size, ServerSession sender, ServerMessage message,
            QueueLimitCounters counters) {
        counters.limitHit(pending.size() >= getMaxQueue());
        if (!maxQueueListeners().isEmpty()) {
            int before = pending.size();
            boolean queueIt = true;
            for (MaxQueueListener listener : maxQueueListeners().list()) {
                if (!Callbacks.test(listener, () -> listener.queueMaxed(this, pending.deque(), sender, message),
                        false)) {
                    queueIt = false;
                    break;
                }
            }
            pending.recount();
            counters.dropped(Math.max(0, before - pending.size()) + (queueIt ? 0 : 1));
            return queueIt ? Overflow.ENQUEUE : Overflow.DROP;
        }
        switch (config().maxQueuePolicy()) {
            case DROP_OLDEST:
                // Bounded by the queue's length; when the socket's backlog alone is too large, nothing queued can
                // make room and the new message is dropped instead.
                int dropped = 0;
                while (!pending.isEmpty() && pending.isFull(getMaxQueue(), getMaxQueueBytes(), backlog, size)) {
                    pending.dropOldest();
                    dropped++;
                }
                boolean fits = !pending.isFull(getMaxQueue(), getMaxQueueBytes(), backlog, size);
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
