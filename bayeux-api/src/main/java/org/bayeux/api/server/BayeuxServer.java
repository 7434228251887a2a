package org.bayeux.api.server;

import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * A Bayeux server: its channels, sessions, extensions, listeners and security policy.
 */
public interface BayeuxServer {
    /**
     * @param name the channel name
     * @return the channel, or null if it does not exist
     * @throws IllegalArgumentException if the name is not a valid channel name
     */
    ServerChannel getChannel(String name);

    /**
     * Returns the channel, creating it if needed. The initializers run, once, before the channel is visible to any
     * other thread; a caller that finds the channel already there does not run its initializers.
     *
     * @param name the channel name
     * @param initializers configure a new channel
     * @return the channel
     * @throws IllegalArgumentException if the name is not a valid channel name
     */
    ServerChannel createChannelIfAbsent(String name, ServerChannel.Initializer... initializers);

    /** @return the channels that exist now */
    Collection<ServerChannel> getChannels();

    /**
     * @param id the session id
     * @return the session, or null if unknown or ended
     */
    ServerSession getSession(String id);

    /** @return the sessions that exist now */
    Collection<ServerSession> getSessions();

    /**
     * @param idHint a word included in the session id, for logs, or null
     * @return a new local session, not yet handshaken
     */
    LocalSession newLocalSession(String idHint);

    /** @return a new empty message */
    ServerMessage.Mutable newMessage();

    /** @return the names of the transports the server accepts, in the order it advertises them */
    Set<String> getTransportNames();

    /**
     * @param extension a server-wide extension; extensions run in the order added
     */
    void addExtension(ServerExtension extension);

    /**
     * @param extension the extension to remove
     */
    void removeExtension(ServerExtension extension);

    /** @return the server-wide extensions in the order they run */
    List<ServerExtension> getExtensions();

    /**
     * @param listener told when sessions are added and removed
     */
    void addSessionListener(SessionListener listener);

    /**
     * @param listener the listener to remove
     */
    void removeSessionListener(SessionListener listener);

    /**
     * Adds a listener told when this node adopts a session another node created (failover, or a drain that hands
     * sessions over); see {@link SessionAdoptionListener}. Only servers with a session store that adopts support it.
     *
     * @param listener the listener
     */
    default void addSessionAdoptionListener(SessionAdoptionListener listener) {
        throw new UnsupportedOperationException("this server adopts no sessions");
    }

    /**
     * @param listener the listener to remove
     */
    default void removeSessionAdoptionListener(SessionAdoptionListener listener) {
        throw new UnsupportedOperationException("this server adopts no sessions");
    }

    /**
     * Marks a session attribute portable: its value, a string, is stored with the session and set again on the node
     * that adopts it. Values of other types are not stored. Call before the server starts.
     *
     * @param name the attribute's name
     */
    default void addPortableAttribute(String name) {
        throw new UnsupportedOperationException("this server adopts no sessions");
    }

    /**
     * @param listener told when channels are added and removed
     */
    void addChannelListener(ChannelListener listener);

    /**
     * @param listener the listener to remove
     */
    void removeChannelListener(ChannelListener listener);

    /**
     * @param listener told of every subscription and unsubscription
     */
    void addSubscriptionListener(SubscriptionListener listener);

    /**
     * @param listener the listener to remove
     */
    void removeSubscriptionListener(SubscriptionListener listener);

    /** @return the security policy */
    SecurityPolicy getSecurityPolicy();

    /**
     * @param policy the security policy; null restores the default, which allows what the protocol allows
     */
    void setSecurityPolicy(SecurityPolicy policy);
}
