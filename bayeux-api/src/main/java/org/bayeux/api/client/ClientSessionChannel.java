package org.bayeux.api.client;

import java.util.List;

import org.bayeux.api.Channel;
import org.bayeux.api.Message;

/**
 * A client session's handle on one channel: subscribe, publish and listen.
 */
public interface ClientSessionChannel extends Channel {
    /** @return the session this handle belongs to */
    ClientSession getSession();

    /**
     * Adds a listener for messages on this channel that needs no subscription: replies on meta channels, or
     * messages that arrive because of another subscription.
     *
     * @param listener the listener
     */
    void addListener(MessageListener listener);

    /**
     * @param listener the listener to remove
     */
    void removeListener(MessageListener listener);

    /** @return the listeners added with {@link #addListener(MessageListener)} */
    List<MessageListener> getListeners();

    /**
     * Subscribes a listener. The first listener sends {@code /meta/subscribe}; later ones are local.
     *
     * @param listener called for each message delivered on this channel
     * @param callback called with the subscribe reply, or null; called at once for a local subscription
     */
    void subscribe(MessageListener listener, MessageListener callback);

    /**
     * Unsubscribes a listener. Removing the last one sends {@code /meta/unsubscribe}.
     *
     * @param listener the listener to remove
     * @param callback called with the unsubscribe reply, or null
     */
    void unsubscribe(MessageListener listener, MessageListener callback);

    /** Removes every subscribed listener, unsubscribing from the server. */
    void unsubscribe();

    /** @return the subscribed listeners */
    List<MessageListener> getSubscribers();

    /**
     * Publishes data on this channel.
     *
     * @param data the payload
     * @param callback called with the publish reply, or null
     */
    void publish(Object data, MessageListener callback);

    /**
     * Publishes a message on this channel; its {@code channel} field is set to this channel.
     *
     * @param message the message
     * @param callback called with the publish reply, or null
     */
    void publish(Message.Mutable message, MessageListener callback);

    /**
     * Receives messages on a channel.
     */
    @FunctionalInterface
    interface MessageListener {
        /**
         * @param channel the channel the message arrived on; for a wildcard subscription, the wildcard channel
         * @param message the message, read-only
         */
        void onMessage(ClientSessionChannel channel, Message message);
    }
}
