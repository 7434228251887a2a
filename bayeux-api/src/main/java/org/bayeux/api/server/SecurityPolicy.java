package org.bayeux.api.server;

import org.bayeux.api.ChannelId;
import org.bayeux.api.Promise;

/**
 * Decides who may handshake, create channels, subscribe and publish. The server consults it before the
 * {@link Authorizer}s of the channel concerned.
 *
 * <p>Override the synchronous methods for simple rules, or the {@link Promise} methods to decide later (for
 * example after a database look-up). The defaults allow everything that the protocol itself allows.</p>
 */
public interface SecurityPolicy {
    /**
     * @param server the server
     * @param session the new session, not yet added
     * @param message the handshake request
     * @param promise completed with true to accept the handshake
     */
    default void canHandshake(BayeuxServer server, ServerSession session, ServerMessage message, Promise<Boolean> promise) {
        Promise.complete(promise, () -> canHandshake(server, session, message));
    }

    /**
     * @param server the server
     * @param session the new session, not yet added
     * @param message the handshake request
     * @return true to accept the handshake
     */
    default boolean canHandshake(BayeuxServer server, ServerSession session, ServerMessage message) {
        return true;
    }

    /**
     * @param server the server
     * @param session the session that causes the creation
     * @param channel the channel that would be created
     * @param message the message that causes it
     * @param promise completed with true to allow the creation
     */
    default void canCreate(BayeuxServer server, ServerSession session, ChannelId channel, ServerMessage message,
            Promise<Boolean> promise) {
        Promise.complete(promise, () -> canCreate(server, session, channel, message));
    }

    /**
     * @param server the server
     * @param session the session that causes the creation
     * @param channel the channel that would be created
     * @param message the message that causes it
     * @return true to allow the creation
     */
    default boolean canCreate(BayeuxServer server, ServerSession session, ChannelId channel, ServerMessage message) {
        return true;
    }

    /**
     * @param server the server
     * @param session the session that subscribes
     * @param channel the channel, possibly a wildcard
     * @param message the subscribe request
     * @param promise completed with true to allow the subscription
     */
    default void canSubscribe(BayeuxServer server, ServerSession session, ServerChannel channel, ServerMessage message,
            Promise<Boolean> promise) {
        Promise.complete(promise, () -> canSubscribe(server, session, channel, message));
    }

    /**
     * @param server the server
     * @param session the session that subscribes
     * @param channel the channel, possibly a wildcard
     * @param message the subscribe request
     * @return true to allow the subscription
     */
    default boolean canSubscribe(BayeuxServer server, ServerSession session, ServerChannel channel, ServerMessage message) {
        return true;
    }

    /**
     * @param server the server
     * @param session the publishing session
     * @param channel the channel
     * @param message the publish request
     * @param promise completed with true to allow the publish
     */
    default void canPublish(BayeuxServer server, ServerSession session, ServerChannel channel, ServerMessage message,
            Promise<Boolean> promise) {
        Promise.complete(promise, () -> canPublish(server, session, channel, message));
    }

    /**
     * @param server the server
     * @param session the publishing session
     * @param channel the channel
     * @param message the publish request
     * @return true to allow the publish
     */
    default boolean canPublish(BayeuxServer server, ServerSession session, ServerChannel channel, ServerMessage message) {
        return true;
    }
}
