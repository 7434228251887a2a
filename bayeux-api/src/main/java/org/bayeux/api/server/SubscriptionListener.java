package org.bayeux.api.server;

/**
 * Told when sessions subscribe and unsubscribe: on the server for every channel, or on one channel.
 */
public interface SubscriptionListener {
    /**
     * @param session the session
     * @param channel the channel subscribed to
     * @param message the subscribe request, or null for a server-side subscription
     */
    default void subscribed(ServerSession session, ServerChannel channel, ServerMessage message) {
    }

    /**
     * @param session the session
     * @param channel the channel unsubscribed from
     * @param message the unsubscribe request, or null when server-side or because the session ended
     */
    default void unsubscribed(ServerSession session, ServerChannel channel, ServerMessage message) {
    }
}
