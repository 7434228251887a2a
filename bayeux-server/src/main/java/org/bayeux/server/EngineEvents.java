package org.bayeux.server;

import java.util.Map;

import org.bayeux.api.server.ChannelListener;
import org.bayeux.api.server.SessionAdoptionListener;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.SessionListener;
import org.bayeux.api.server.SubscriptionListener;
import org.bayeux.server.internal.CallbackList;
import org.bayeux.server.internal.Callbacks;

/**
 * The server-wide listeners of sessions, channels and subscriptions, and the one place that tells them, each call
 * isolated ({@link Callbacks}). The registries and channels report here rather than to the facade.
 */
final class EngineEvents {
    private final CallbackList<SessionListener> sessionListeners = new CallbackList<>();
    private final CallbackList<ChannelListener> channelListeners = new CallbackList<>();
    private final CallbackList<SubscriptionListener> subscriptionListeners = new CallbackList<>();
    private final CallbackList<SessionAdoptionListener> adoptionListeners = new CallbackList<>();

    CallbackList<SessionAdoptionListener> adoptionListeners() {
        return adoptionListeners;
    }

    /**
     * Asks the adoption listeners, in order, until one refuses. A listener that throws refuses (logged at WARN): an
     * application that cannot restore its state must not get a session that silently lacks it.
     *
     * @return true if every listener agrees
     */
    boolean adopting(ServerSessionImpl session, Map<String, String> portable) {
        for (SessionAdoptionListener listener : adoptionListeners.list()) {
            if (!Callbacks.test(listener, () -> listener.adopting(session, portable), false)) {
                return false;
            }
        }
        return true;
    }

    void sessionAdopted(ServerSessionImpl session) {
        for (SessionListener listener : sessionListeners.list()) {
            Callbacks.run(listener, () -> listener.sessionAdopted(session));
        }
    }

    CallbackList<SessionListener> sessionListeners() {
        return sessionListeners;
    }

    CallbackList<ChannelListener> channelListeners() {
        return channelListeners;
    }

    CallbackList<SubscriptionListener> subscriptionListeners() {
        return subscriptionListeners;
    }

    void sessionAdded(ServerSessionImpl session, ServerMessage handshake) {
        for (SessionListener listener : sessionListeners.list()) {
            Callbacks.run(listener, () -> listener.sessionAdded(session, handshake));
        }
    }

    void sessionRemoved(ServerSessionImpl session, ServerMessage message, boolean expired) {
        for (SessionListener listener : sessionListeners.list()) {
            Callbacks.run(listener, () -> listener.sessionRemoved(session, message, expired));
        }
    }

    void channelAdded(ServerChannelImpl channel) {
        for (ChannelListener listener : channelListeners.list()) {
            Callbacks.run(listener, () -> listener.channelAdded(channel));
        }
    }

    void channelRemoved(String name) {
        for (ChannelListener listener : channelListeners.list()) {
            Callbacks.run(listener, () -> listener.channelRemoved(name));
        }
    }

    void subscribed(ServerSessionImpl session, ServerChannelImpl channel, ServerMessage message) {
        for (SubscriptionListener listener : subscriptionListeners.list()) {
            Callbacks.run(listener, () -> listener.subscribed(session, channel, message));
        }
    }

    void unsubscribed(ServerSessionImpl session, ServerChannelImpl channel, ServerMessage message) {
        for (SubscriptionListener listener : subscriptionListeners.list()) {
            Callbacks.run(listener, () -> listener.unsubscribed(session, channel, message));
        }
    }
}
