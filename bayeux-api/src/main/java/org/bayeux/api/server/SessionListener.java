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
     * Told instead of {@link #sessionAdded} when this node adopts a session another node created (failover, or a
     * drain that handed it over): the session is not new to its client, which carries on with the same
     * {@code clientId} and subscriptions, so presence must not report it as a join (nor its former node's copy as a
     * leave). Told once the adoption succeeded, before the message that named the session is processed.
     *
     * @param session the adopted session
     */
    default void sessionAdopted(ServerSession session) {
    }

    /**
     * A session that moved to another node (its state there is {@link ServerSession.State#MOVED}) is removed here
     * with {@code expired} false and no message: its client was told nothing and carries on there.
     *
     * @param session the removed session
     * @param message the disconnect request, or null
     * @param expired true if it was removed because it stopped connecting
     */
    default void sessionRemoved(ServerSession session, ServerMessage message, boolean expired) {
    }
}
