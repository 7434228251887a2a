package org.bayeux.api.server;

/**
 * Told when sessions are added to and removed from the server.
 */
public interface SessionListener {
    /**
     * @param session the new session, after a successful handshake
     * @param handshake the handshake request
     */
    default void sessionAdded(ServerSession session, ServerMessage handshake) {
    }

    /**
     * @param session the removed session
     * @param message the disconnect request, or null
     * @param expired true if it was removed because it stopped connecting
     */
    default void sessionRemoved(ServerSession session, ServerMessage message, boolean expired) {
    }
}
