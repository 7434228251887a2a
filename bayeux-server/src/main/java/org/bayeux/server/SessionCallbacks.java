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
 * The registration of a session's extensions and listeners, each kind in its own unchangeable list (the shared
 * empty one until something is added, copied on each change), and the running of those that decide about a message on its way into the queue. Kept apart so that {@link ServerSessionImpl} holds only the session's life, queue and connects.
 */
abstract class SessionCallbacks extends SessionSettings {
    // Each an unchangeable list, replaced under this object's monitor (CallbackList.with/without): a session's six
    // lists cost six fields, pointing to the shared empty list until something is added.
    private volatile List<SessionExtension> extensions = List.of();
    private volatile List<QueueListener> queueListeners = List.of();
    private volatile List<DeQueueListener> deQueueListeners = List.of();
    private volatile List<MaxQueueListener> maxQueueListeners = List.of();
    private volatile List<SessionMessageListener> messageListeners = List.of();
    private volatile List<SessionRemovedListener> removedListeners = List.of();

    SessionCallbacks(BayeuxServerConfig config) {
        super(config);
    }

    List<SessionExtension> extensionList() {
        return extensions;
    }

    List<QueueListener> queueListeners() {
        return queueListeners;
    }

    List<DeQueueListener> deQueueListeners() {
        return deQueueListeners;
    }

    List<MaxQueueListener> maxQueueListeners() {
        return maxQueueListeners;
    }

    List<SessionMessageListener> messageListeners() {
        return messageListeners;
    }

    List<SessionRemovedListener> removedListeners() {
        return removedListeners;
    }

    @Override
    public void addExtension(SessionExtension extension) {
        synchronized (this) {
            extensions = CallbackList.with(extensions, extension);
        }
    }

    @Override
    public void removeExtension(SessionExtension extension) {
        synchronized (this) {
            extensions = CallbackList.without(extensions, extension);
        }
    }

    @Override
    public List<SessionExtension> getExtensions() {
        return extensions;
    }

    @Override
    public void addQueueListener(QueueListener listener) {
        synchronized (this) {
            queueListeners = CallbackList.with(queueListeners, listener);
        }
    }

    @Override
    public void removeQueueListener(QueueListener listener) {
        synchronized (this) {
            queueListeners = CallbackList.without(queueListeners, listener);
        }
    }

    @Override
    public void addDeQueueListener(DeQueueListener listener) {
        synchronized (this) {
            deQueueListeners = CallbackList.with(deQueueListeners, listener);
        }
    }

    @Override
    public void removeDeQueueListener(DeQueueListener listener) {
        synchronized (this) {
            deQueueListeners = CallbackList.without(deQueueListeners, listener);
        }
    }

    @Override
    public void addMaxQueueListener(MaxQueueListener listener) {
        synchronized (this) {
            maxQueueListeners = CallbackList.with(maxQueueListeners, listener);
        }
    }

    @Override
    public void removeMaxQueueListener(MaxQueueListener listener) {
        synchronized (this) {
            maxQueueListeners = CallbackList.without(maxQueueListeners, listener);
        }
    }

    @Override
    public void addMessageListener(SessionMessageListener listener) {
        synchronized (this) {
            messageListeners = CallbackList.with(messageListeners, listener);
        }
    }

    @Override
    public void removeMessageListener(SessionMessageListener listener) {
        synchronized (this) {
            messageListeners = CallbackList.without(messageListeners, listener);
        }
    }

    @Override
    public void addRemovedListener(SessionRemovedListener listener) {
        synchronized (this) {
            removedListeners = CallbackList.with(removedListeners, listener);
        }
    }

    @Override
    public void removeRemovedListener(SessionRemovedListener listener) {
        synchronized (this) {
            removedListeners = CallbackList.without(removedListeners, listener);
        }
    }

    // ---- running the callbacks that decide about a message -------------------------------------------------

    /**
     * Runs the session's outgoing extensions on a message; each may replace or drop it.
     *
     * @return the message to queue (frozen), or null if an extension dropped it
     */
    ServerMessage applyOutgoingExtensions(ServerMessage message) {
        ServerMessage current = message;
        for (SessionExtension extension : extensions) {
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
        for (QueueListener listener : queueListeners) {
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
        long backlog = carrier == null ? 0 : carrier.flowControl().pendingBytes();
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
        if (!maxQueueListeners.isEmpty()) {
            int before = pending.size();
            boolean queueIt = true;
            for (MaxQueueListener listener : maxQueueListeners) {
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
