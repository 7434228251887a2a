package org.bayeux.client;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import org.bayeux.api.ChannelId;
import org.bayeux.api.MapMessage;
import org.bayeux.api.Message;
import org.bayeux.api.client.ClientSession;

/**
 * A client's handle on one channel: its listeners, its subscribers, and the messages it sends.
 */
final class ClientChannel implements BayeuxClientChannel {
    private final BayeuxClient client;
    private final ChannelId id;
    private final List<MessageListener> listeners = new CopyOnWriteArrayList<>();
    private final List<MessageListener> subscribers = new CopyOnWriteArrayList<>();
    /** Kept by {@link ChannelTable} for dispatch; null until the first delivery. */
    volatile WildcardHandles wildcardHandles;

    ClientChannel(BayeuxClient client, ChannelId id) {
        this.client = client;
        this.id = id;
    }

    @Override
    public ChannelId getChannelId() {
        return id;
    }

    @Override
    public ClientSession getSession() {
        return client;
    }

    @Override
    public void addListener(MessageListener listener) {
        listeners.add(listener);
    }

    @Override
    public void removeListener(MessageListener listener) {
        listeners.remove(listener);
    }

    @Override
    public List<MessageListener> getListeners() {
        return List.copyOf(listeners);
    }

    @Override
    public void subscribe(MessageListener listener, MessageListener callback) {
        if (id.isMeta()) {
            throw new IllegalArgumentException("Cannot subscribe to meta channel " + id
                    + "; add a listener to it instead");
        }
        boolean first;
        synchronized (this) {
            first = subscribers.isEmpty();
            subscribers.add(listener);
        }
        if (first) {
            client.outbox().submitSubscription(Message.META_SUBSCRIBE, this, listener, callback);
        } else if (callback != null) {
            Callbacks.run(callback, () -> callback.onMessage(this, LocalReplies.subscription(Message.META_SUBSCRIBE,
                    id.name())));
        }
    }

    @Override
    public void unsubscribe(MessageListener listener, MessageListener callback) {
        boolean last;
        synchronized (this) {
            last = subscribers.remove(listener) && subscribers.isEmpty();
        }
        if (last) {
            client.outbox().submitSubscription(Message.META_UNSUBSCRIBE, this, null, callback);
        } else if (callback != null) {
            Callbacks.run(callback, () -> callback.onMessage(this, LocalReplies.subscription(Message.META_UNSUBSCRIBE,
                    id.name())));
        }
    }

    @Override
    public void unsubscribe() {
        boolean any;
        synchronized (this) {
            any = !subscribers.isEmpty();
            subscribers.clear();
        }
        if (any) {
            client.outbox().submitSubscription(Message.META_UNSUBSCRIBE, this, null, null);
        }
    }

    @Override
    public List<MessageListener> getSubscribers() {
        return List.copyOf(subscribers);
    }

    @Override
    public void publish(Object data, MessageListener callback) {
        MapMessage message = new MapMessage();
        message.setData(data);
        publish(message, callback);
    }

    @Override
    public void publish(Message.Mutable message, MessageListener callback) {
        if (id.isMeta() || id.isWildcard()) {
            throw new IllegalArgumentException("Cannot publish to " + id + ": not a meta channel nor a wildcard");
        }
        message.setChannel(id.name());
        client.outbox().submit(message, callback);
    }

    @Override
    public CompletableFuture<Message> subscribeAsync(MessageListener listener) {
        CompletableFuture<Message> reply = new CompletableFuture<>();
        subscribe(listener, (channel, message) -> reply.complete(message));
        return reply;
    }

    @Override
    public CompletableFuture<Message> unsubscribeAsync(MessageListener listener) {
        CompletableFuture<Message> reply = new CompletableFuture<>();
        unsubscribe(listener, (channel, message) -> reply.complete(message));
        return reply;
    }

    @Override
    public CompletableFuture<Message> publishAsync(Object data) {
        CompletableFuture<Message> reply = new CompletableFuture<>();
        publish(data, (channel, message) -> reply.complete(message));
        return reply;
    }

    /** @return true if the application has subscribed listeners here */
    boolean hasSubscribers() {
        return !subscribers.isEmpty();
    }

    /** Drops a listener whose subscription the server refused. */
    void removeSubscriber(MessageListener subscriber) {
        subscribers.remove(subscriber);
    }

    /** Drops every subscriber: the session they were subscribed in is gone and will not be restored. */
    void clearSubscribers() {
        subscribers.clear();
    }

    void notifySubscribers(Message message) {
        for (MessageListener subscriber : subscribers) {
            Callbacks.run(subscriber, () -> subscriber.onMessage(this, message));
        }
    }

    void notifyListeners(Message message) {
        for (MessageListener listener : listeners) {
            Callbacks.run(listener, () -> listener.onMessage(this, message));
        }
    }

    @Override
    public String toString() {
        return "ClientChannel[" + id + "]";
    }

    /** The handles of the wildcards matching a channel, as of a generation of the channel table. */
    record WildcardHandles(int generation, ClientChannel[] handles) {
    }
}
