package org.bayeux.api.support;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.bayeux.api.ChannelId;
import org.bayeux.api.MapMessage;
import org.bayeux.api.Message;
import org.bayeux.api.client.ClientSessionChannel;

/**
 * The bookkeeping every client-side channel handle shares, whether its session talks to a remote server (the Java
 * client) or lives inside the server (a local session): the listeners, the subscribers, and the rule that only the
 * first subscriber and the last unsubscriber cost a message to the server.
 *
 * <p>A subclass says how a subscription message is sent and how user code is called; the rest is here. Listeners and
 * subscribers may be added and removed from any thread, including from inside a listener.</p>
 */
public abstract class AbstractClientSessionChannel implements ClientSessionChannel {
    private final ChannelId id;
    private final List<MessageListener> listeners = new CopyOnWriteArrayList<>();
    private final List<MessageListener> subscribers = new CopyOnWriteArrayList<>();

    /**
     * @param id the channel this handle is for
     */
    protected AbstractClientSessionChannel(ChannelId id) {
        this.id = id;
    }

    /**
     * Sends a subscription change to the server.
     *
     * @param metaChannel {@link Message#META_SUBSCRIBE} or {@link Message#META_UNSUBSCRIBE}
     * @param subscriber the listener that made the subscription, or null for an unsubscription
     * @param callback called with the server's reply, or null
     */
    protected abstract void sendSubscription(String metaChannel, MessageListener subscriber, MessageListener callback);

    /**
     * Calls user code: a listener, a subscriber or a callback, with a message on this channel. An implementation
     * keeps a failure of the user code from reaching its own callers.
     *
     * @param listener the user code
     * @param message the message
     */
    protected abstract void invoke(MessageListener listener, Message message);

    /**
     * Answers a subscription change that needed no message to the server. By default through
     * {@link #invoke(MessageListener, Message)}.
     *
     * @param callback the callback given to {@code subscribe} or {@code unsubscribe}, not null
     * @param reply a successful reply made up locally
     */
    protected void replyLocally(MessageListener callback, Message reply) {
        invoke(callback, reply);
    }

    @Override
    public ChannelId getChannelId() {
        return id;
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
    public List<MessageListener> getSubscribers() {
        return List.copyOf(subscribers);
    }

    @Override
    public void subscribe(MessageListener listener, MessageListener callback) {
        boolean first;
        synchronized (this) {
            first = subscribers.isEmpty();
            subscribers.add(listener);
        }
        if (first) {
            sendSubscription(Message.META_SUBSCRIBE, listener, callback);
        } else if (callback != null) {
            replyLocally(callback, localSubscriptionReply(Message.META_SUBSCRIBE));
        }
    }

    @Override
    public void unsubscribe(MessageListener listener, MessageListener callback) {
        boolean last;
        synchronized (this) {
            last = subscribers.remove(listener) && subscribers.isEmpty();
        }
        if (last) {
            sendSubscription(Message.META_UNSUBSCRIBE, null, callback);
        } else if (callback != null) {
            replyLocally(callback, localSubscriptionReply(Message.META_UNSUBSCRIBE));
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
            sendSubscription(Message.META_UNSUBSCRIBE, null, null);
        }
    }

    /**
     * For the session owning this handle.
     *
     * @return true if listeners are subscribed here
     */
    public final boolean hasSubscribers() {
        return !subscribers.isEmpty();
    }

    /**
     * Drops a subscriber without telling the server, for the session owning this handle: the server refused its
     * subscription.
     *
     * @param subscriber the listener to drop
     */
    public final void removeSubscriber(MessageListener subscriber) {
        subscribers.remove(subscriber);
    }

    /**
     * Drops every subscriber without telling the server, for the session owning this handle: the session they were
     * subscribed in is gone.
     */
    public final void clearSubscribers() {
        subscribers.clear();
    }

    /**
     * Delivers a message to the subscribers, for the session owning this handle.
     *
     * @param message the message
     */
    public final void notifySubscribers(Message message) {
        for (MessageListener subscriber : subscribers) {
            invoke(subscriber, message);
        }
    }

    /**
     * Delivers a message to the listeners, for the session owning this handle.
     *
     * @param message the message
     */
    public final void notifyListeners(Message message) {
        for (MessageListener listener : listeners) {
            invoke(listener, message);
        }
    }

    private Message localSubscriptionReply(String metaChannel) {
        MapMessage reply = MapMessage.on(metaChannel);
        reply.put(Message.SUBSCRIPTION_FIELD, id.name());
        reply.setSuccessful(true);
        return MapMessage.readOnly(reply);
    }
}
