package org.bayeux.api.server;

/**
 * Told once when a session ends.
 */
@FunctionalInterface
public interface SessionRemovedListener {
    /**
     * @param session the session
     * @param message the disconnect request, or null
     * @param expired true if the session ended because it stopped connecting
     */
    void removed(ServerSession session, ServerMessage message, boolean expired);
}
