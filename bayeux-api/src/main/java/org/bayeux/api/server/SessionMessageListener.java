package org.bayeux.api.server;

/**
 * Told of each message delivered to one session, before it is queued.
 */
@FunctionalInterface
public interface SessionMessageListener {
    /**
     * @param session the receiving session
     * @param sender the sending session, or null
     * @param message the message, frozen
     * @return false to drop the message for this session
     */
    boolean onMessage(ServerSession session, ServerSession sender, ServerMessage message);
}
