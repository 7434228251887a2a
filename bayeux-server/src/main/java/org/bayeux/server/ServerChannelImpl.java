package org.bayeux.server;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import org.bayeux.api.ChannelId;
import org.bayeux.api.Promise;
import org.bayeux.api.Session;
import org.bayeux.api.server.Authorizer;
import org.bayeux.api.server.ChannelMessageListener;
import org.bayeux.api.server.LocalSession;
import org.bayeux.api.server.ServerChannel;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.api.server.SubscriptionListener;
import org.bayeux.api.support.Attributes;
import org.bayeux.api.support.AttributesMixin;
import org.bayeux.server.internal.Callbacks;

/**
 * A channel of the engine: its subscribers, settings, authorizers and listeners.
 */
final class ServerChannelImpl implements ServerChannel, AttributesMixin {
    private final ChannelRegistry registry;
    private final ChannelId id;
    private final Set<ServerSessionImpl> subscribers = ConcurrentHashMap.newKeySet();
    private final List<Authorizer> authorizers = new CopyOnWriteArrayList<>();
    private final List<ChannelMessageListener> messageListeners = new CopyOnWriteArrayList<>();
    private final List<SubscriptionListener> subscriptionListeners = new CopyOnWriteArrayList<>();
    private final Attributes attributes = new Attributes();
    private volatile boolean persistent;
    private volatile boolean lazy;
    private volatile Duration lazyTimeout;
    private volatile Boolean broadcastToPublisher;
    private volatile boolean removed;
    /** Set by a sweep that found the channel unused; a second such sweep removes it. */
    private volatile boolean sweepCandidate;

    ServerChannelImpl(ChannelRegistry registry, ChannelId id) {
        this.registry = registry;
        this.id = id;
    }

    @Override
    public ChannelId getChannelId() {
        return id;
    }

    @Override
    public Set<ServerSession> getSubscribers() {
        return Set.copyOf(subscribers);
    }

    Set<ServerSessionImpl> subscribers() {
        return subscribers;
    }

    @Override
    public boolean subscribe(ServerSession session) {
        return subscribe((ServerSessionImpl) session, null);
    }

    boolean subscribe(ServerSessionImpl session, ServerMessage message) {
        if (removed || session.getState().isEnded()) {
            return false;
        }
        sweepCandidate = false;
        if (!subscribers.add(session)) {
            return false;
        }
        if (session.getState().isEnded()) {
            // The session ended while subscribing: its removal may already have unsubscribed everything.
            subscribers.remove(session);
            return false;
        }
        session.subscribed(this);
        registry.events().subscribed(session, this, message);
        for (SubscriptionListener listener : subscriptionListeners) {
            Callbacks.run(listener, () -> listener.subscribed(session, this, message));
        }
        return true;
    }

    @Override
    public boolean unsubscribe(ServerSession session) {
        return unsubscribe((ServerSessionImpl) session, null);
    }

    boolean unsubscribe(ServerSessionImpl session, ServerMessage message) {
        if (!subscribers.remove(session)) {
            return false;
        }
        session.unsubscribed(this);
        registry.events().unsubscribed(session, this, message);
        for (SubscriptionListener listener : subscriptionListeners) {
            Callbacks.run(listener, () -> listener.unsubscribed(session, this, message));
        }
        return true;
    }

    @Override
    public boolean isPersistent() {
        return persistent;
    }

    @Override
    public void setPersistent(boolean persistent) {
        this.persistent = persistent;
    }

    @Override
    public boolean isLazy() {
        return lazy;
    }

    @Override
    public void setLazy(boolean lazy) {
        this.lazy = lazy;
    }

    @Override
    public Duration getLazyTimeout() {
        Duration max = registry.config().maxLazyTimeout();
        Duration own = lazyTimeout;
        return own == null || own.compareTo(max) > 0 ? max : own;
    }

    @Override
    public void setLazyTimeout(Duration lazyTimeout) {
        if (lazyTimeout != null && lazyTimeout.isNegative()) {
            throw new IllegalArgumentException("lazyTimeout must not be negative: " + lazyTimeout);
        }
        this.lazyTimeout = lazyTimeout;
        this.lazy = true;
    }

    @Override
    public boolean isBroadcastToPublisher() {
        Boolean own = broadcastToPublisher;
        return own == null ? registry.config().broadcastToPublisher() : own;
    }

    @Override
    public void setBroadcastToPublisher(boolean broadcastToPublisher) {
        this.broadcastToPublisher = broadcastToPublisher;
    }

    @Override
    public void addAuthorizer(Authorizer authorizer) {
        authorizers.add(authorizer);
        sweepCandidate = false;
    }

    @Override
    public void removeAuthorizer(Authorizer authorizer) {
        authorizers.remove(authorizer);
    }

    @Override
    public List<Authorizer> getAuthorizers() {
        return List.copyOf(authorizers);
    }

    List<Authorizer> authorizers() {
        return authorizers;
    }

    @Override
    public void addMessageListener(ChannelMessageListener listener) {
        messageListeners.add(listener);
        sweepCandidate = false;
    }

    @Override
    public void removeMessageListener(ChannelMessageListener listener) {
        messageListeners.remove(listener);
    }

    @Override
    public List<ChannelMessageListener> getMessageListeners() {
        return List.copyOf(messageListeners);
    }

    List<ChannelMessageListener> messageListeners() {
        return messageListeners;
    }

    @Override
    public void addSubscriptionListener(SubscriptionListener listener) {
        subscriptionListeners.add(listener);
        sweepCandidate = false;
    }

    @Override
    public void removeSubscriptionListener(SubscriptionListener listener) {
        subscriptionListeners.remove(listener);
    }

    @Override
    public void publish(Session sender, Object data, Promise<Boolean> promise) {
        ServerMessageImpl message = new ServerMessageImpl();
        message.setData(data);
        publish(sender, message, promise);
    }

    @Override
    public void publish(Session sender, ServerMessage.Mutable message, Promise<Boolean> promise) {
        message.setChannel(id.name());
        ServerSessionImpl from = sessionOf(sender);
        registry.publishing().publish(from, this, (ServerMessageImpl) message)
                .whenComplete((published, failure) -> {
                    if (failure != null) {
                        promise.fail(failure);
                    } else {
                        promise.succeed(published);
                    }
                });
    }

    static ServerSessionImpl sessionOf(Session sender) {
        if (sender instanceof ServerSessionImpl) {
            return (ServerSessionImpl) sender;
        }
        if (sender instanceof LocalSession) {
            return (ServerSessionImpl) ((LocalSession) sender).getServerSession();
        }
        return null;
    }

    @Override
    public void remove() {
        registry.remove(this);
    }

    /** Unsubscribes everyone and drops listeners; called by the registry once the channel is out of the map. */
    void removed() {
        removed = true;
        for (ServerSessionImpl session : subscribers) {
            unsubscribe(session, null);
        }
        authorizers.clear();
        messageListeners.clear();
        subscriptionListeners.clear();
    }

    boolean isRemoved() {
        return removed;
    }

    /**
     * @return true if the channel has been found unused by two sweeps in a row
     */
    boolean sweepable() {
        boolean unused = !persistent && subscribers.isEmpty() && authorizers.isEmpty() && messageListeners.isEmpty()
                && subscriptionListeners.isEmpty();
        if (!unused) {
            sweepCandidate = false;
            return false;
        }
        if (sweepCandidate) {
            return true;
        }
        sweepCandidate = true;
        return false;
    }

    @Override
    public Attributes attributes() {
        return attributes;
    }

    @Override
    public String toString() {
        return id.name();
    }
}
