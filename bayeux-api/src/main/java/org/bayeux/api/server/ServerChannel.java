package org.bayeux.api.server;

import java.time.Duration;
import java.util.List;
import java.util.Set;

import org.bayeux.api.Attributed;
import org.bayeux.api.Channel;
import org.bayeux.api.Promise;
import org.bayeux.api.Session;

/**
 * A channel on the server: its subscribers, its settings, its authorizers and listeners, and the application's
 * attributes ({@link Attributed}).
 */
public interface ServerChannel extends Channel, Attributed {
    /** @return the sessions subscribed to exactly this channel (not through a wildcard) */
    Set<ServerSession> getSubscribers();

    /**
     * Subscribes a session from server-side code: no security check, subscription listeners are told.
     *
     * @param session the session
     * @return true if it was not subscribed before
     */
    boolean subscribe(ServerSession session);

    /**
     * @param session the session
     * @return true if it was subscribed
     */
    boolean unsubscribe(ServerSession session);

    /** @return true if the channel stays when it has no subscribers, listeners or authorizers */
    boolean isPersistent();

    /**
     * @param persistent whether the channel stays when unused; non-persistent channels are swept
     */
    void setPersistent(boolean persistent);

    /** @return true if messages published here may wait for the lazy timeout before delivery */
    boolean isLazy();

    /**
     * @param lazy whether messages published here are lazy
     */
    void setLazy(boolean lazy);

    /** @return how long a lazy message of this channel may wait; never above the server's {@code maxLazyTimeout} */
    Duration getLazyTimeout();

    /**
     * @param lazyTimeout how long a lazy message may wait, or null for the server's {@code maxLazyTimeout};
     *                    setting it also makes the channel lazy
     */
    void setLazyTimeout(Duration lazyTimeout);

    /** @return true if a subscribed publisher receives its own messages on this channel */
    boolean isBroadcastToPublisher();

    /**
     * @param broadcastToPublisher whether a subscribed publisher receives its own messages here
     */
    void setBroadcastToPublisher(boolean broadcastToPublisher);

    /**
     * @param authorizer an authorizer for this channel and the channels its wildcard covers
     */
    void addAuthorizer(Authorizer authorizer);

    /**
     * @param authorizer the authorizer to remove
     */
    void removeAuthorizer(Authorizer authorizer);

    /** @return the authorizers of this channel */
    List<Authorizer> getAuthorizers();

    /**
     * @param listener a listener for messages published to this channel (and, for a wildcard, the channels it
     *                 covers), called before delivery
     */
    void addMessageListener(ChannelMessageListener listener);

    /**
     * @param listener the listener to remove
     */
    void removeMessageListener(ChannelMessageListener listener);

    /** @return the message listeners of this channel */
    List<ChannelMessageListener> getMessageListeners();

    /**
     * @param listener told when a session subscribes to or unsubscribes from exactly this channel
     */
    void addSubscriptionListener(SubscriptionListener listener);

    /**
     * @param listener the listener to remove
     */
    void removeSubscriptionListener(SubscriptionListener listener);

    /**
     * Publishes from server-side code. Authorizers and the security policy are not consulted; message listeners
     * and extensions are.
     *
     * @param sender the session the message is from, or null
     * @param data the payload
     * @param promise completed with true if the message was published, false if a listener or extension dropped it
     */
    void publish(Session sender, Object data, Promise<Boolean> promise);

    /**
     * Publishes a message from server-side code; its {@code channel} field is set to this channel.
     *
     * @param sender the session the message is from, or null
     * @param message the message
     * @param promise completed with true if the message was published
     */
    void publish(Session sender, ServerMessage.Mutable message, Promise<Boolean> promise);

    /**
     * Removes the channel: its subscribers are unsubscribed, its listeners and authorizers dropped.
     */
    void remove();

    /**
     * Configures a channel before anyone else can see it.
     */
    @FunctionalInterface
    interface Initializer {
        /**
         * @param channel the new channel, not yet visible to other threads
         */
        void configureChannel(ServerChannel channel);
    }
}
