package org.bayeux.server;

import java.util.List;

import org.bayeux.api.server.DeQueueListener;
import org.bayeux.api.server.MaxQueueListener;
import org.bayeux.api.server.QueueListener;
import org.bayeux.api.server.SessionExtension;
import org.bayeux.api.server.SessionMessageListener;
import org.bayeux.api.server.SessionRemovedListener;
import org.bayeux.server.config.BayeuxServerConfig;
import org.bayeux.server.internal.CallbackList;

/**
 * The registration of a session's extensions and listeners, each kind in its own list, each list allocated on
 * first use. Kept apart so that {@link ServerSessionImpl} holds only the session's life, queue and connects.
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
}
