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
import org.bayeux.server.internal.CallbackList;
import org.bayeux.server.internal.Callbacks;

/**
 * A session's extensions and listeners, one part of a {@link ServerSessionImpl}: each kind in its own unchangeable
 * list (the shared empty one until something is added, copied on each change), and the running of those that decide
 * about a message on its way into the queue. The session's {@code addExtension}, {@code addQueueListener} and the
 * others are these.
 */
final class SessionCallbacks {
    // Each an unchangeable list, replaced under this part's monitor (CallbackList.with/without): a session's six
    // lists cost six fields, pointing to the shared empty list until something is added.
    private volatile List<SessionExtension> extensions = List.of();
    private volatile List<QueueListener> queueListeners = List.of();
    private volatile List<DeQueueListener> deQueueListeners = List.of();
    private volatile List<MaxQueueListener> maxQueueListeners = List.of();
    private volatile List<SessionMessageListener> messageListeners = List.of();
    private volatile List<SessionRemovedListener> removedListeners = List.of();

    List<SessionExtension> extensions() {
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

    void addExtension(SessionExtension extension) {
        synchronized (this) {
            extensions = CallbackList.with(extensions, extension);
        }
    }

    void removeExtension(SessionExtension extension) {
        synchronized (this) {
            extensions = CallbackList.without(extensions, extension);
        }
    }

    void addQueueListener(QueueListener listener) {
        synchronized (this) {
            queueListeners = CallbackList.with(queueListeners, listener);
        }
    }

    void removeQueueListener(QueueListener listener) {
        synchronized (this) {
            queueListeners = CallbackList.without(queueListeners, listener);
        }
    }

    void addDeQueueListener(DeQueueListener listener) {
        synchronized (this) {
            deQueueListeners = CallbackList.with(deQueueListeners, listener);
        }
    }

    void removeDeQueueListener(DeQueueListener listener) {
        synchronized (this) {
            deQueueListeners = CallbackList.without(deQueueListeners, listener);
        }
    }

    void addMaxQueueListener(MaxQueueListener listener) {
        synchronized (this) {
            maxQueueListeners = CallbackList.with(maxQueueListeners, listener);
        }
    }

    void removeMaxQueueListener(MaxQueueListener listener) {
        synchronized (this) {
            maxQueueListeners = CallbackList.without(maxQueueListeners, listener);
        }
    }

    void addMessageListener(SessionMessageListener listener) {
        synchronized (this) {
            messageListeners = CallbackList.with(messageListeners, listener);
        }
    }

    void removeMessageListener(SessionMessageListener listener) {
        synchronized (this) {
            messageListeners = CallbackList.without(messageListeners, listener);
        }
    }

    void addRemovedListener(SessionRemovedListener listener) {
        synchronized (this) {
            removedListeners = CallbackList.with(removedListeners, listener);
        }
    }

    void removeRemovedListener(SessionRemovedListener listener) {
        synchronized (this) {
            removedListeners = CallbackList.without(removedListeners, listener);
        }
    }

    // ---- running the callbacks that decide about a message -------------------------------------------------

    /**
     * Runs the session's outgoing extensions on a message; each may replace or drop it.
     *
     * @param session the session the message is for
     * @return the message to queue (frozen), or null if an extension dropped it
     */
    ServerMessage applyOutgoingExtensions(ServerSession session, ServerMessage message) {
        ServerMessage current = message;
        for (SessionExtension extension : extensions) {
            ServerMessage input = current;
            ServerMessage[] output = {input};
            Callbacks.run(extension, () -> output[0] = extension.send(session, input));
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

    /**
     * @param session the session the message is offered to
     * @return false if a {@link QueueListener} refused the message
     */
    boolean offerToQueueListeners(ServerSession session, ServerSession sender, ServerMessage message) {
        for (QueueListener listener : queueListeners) {
            if (!Callbacks.test(listener, () -> listener.queueOffer(session, sender, message), true)) {
                return false;
            }
        }
        return true;
    }
}
