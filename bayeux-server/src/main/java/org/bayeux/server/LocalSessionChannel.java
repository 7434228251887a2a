package org.bayeux.server;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.bayeux.api.ChannelId;
import org.bayeux.api.MapMessage;
import org.bayeux.api.Message;
import org.bayeux.api.client.ClientSession;
import org.bayeux.api.client.ClientSessionChannel;
import org.bayeux.server.internal.Callbacks;

/**
 * A local session's handle on a channel.
 */
final class LocalSessionChannel implements ClientSessionChannel {
    private final LocalSessionImpl session;
    private final ChannelId id;
    private final List<MessageListener> listeners = new CopyOnWriteArrayList<>();
    private final List<MessageListener> subscribers = new CopyOnWriteArrayList<>();

    LocalSessionChannel(LocalSessionImpl session, ChannelId id) {
        this.session = session;
        this.id = id;
    }

    @Override
    public ChannelId getChannelId() {
        return id;
    }

    @Override
    public ClientSession getSession() {
        return session;
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
        boolean first;
        synchronized (this) {
            first = subscribers.isEmpty();
            subscribers.add(listener);
        }
        if (first) {
            sendSubscription(Message.META_SUBSCRIBE, callback);
        } else if (callback != null) {
            callback.onMessage(this, localReply(Message.META_SUBSCRIBE));
        }
    }

    @Override
    public void unsubscribe(MessageListener listener, MessageListener callback) {
        boolean last;
        synchronized (this) {
            last = subscribers.remove(listener) && subscribers.isEmpty();
        }
        if (last) {
            sendSubscription(Message.META_UNSUBSCRIBE, callback);
        } else if (callback != null) {
            callback.onMessage(this, localReply(Message.META_UNSUBSCRIBE));
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
            sendSubscription(Message.META_UNSUBSCRIBE, null);
        }
    }

    private void sendSubscription(String metaChannel, MessageListener callback) {
        ServerMessageImpl message = new ServerMessageImpl();
        message.setChannel(metaChannel);
        message.put(Message.SUBSCRIPTION_FIELD, id.name());
        session.send(message, callback);
    }

    private Message localReply(String metaChannel) {
        MapMessage reply = MapMessage.on(metaChannel);
        reply.put(Message.SUBSCRIPTION_FIELD, id.name());
        reply.setSuccessful(true);
        return MapMessage.readOnly(reply);
    }

    @Override
    public List<MessageListener> getSubscribers() {
        return List.copyOf(subscribers);
    }

    @Override
    public void publish(Object data, MessageListener callback) {
        ServerMessageImpl message = new ServerMessageImpl();
        message.setData(data);
        publish(message, callback);
    }

    @Override
    public void publish(Message.Mutable message, MessageListener callback) {
        ServerMessageImpl outgoing = message instanceof ServerMessageImpl ? (ServerMessageImpl) message
                : new ServerMessageImpl(message);
        outgoing.setChannel(id.name());
        session.send(outgoing, callback);
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
        return "LocalSessionChannel[" + id + "]";
    }
}
