package org.bayeux.api.server;

/**
 * Told before a message is added to a session's queue. Runs under the session's lock.
 */
@FunctionalInterface
public interface QueueListener {
    /**
     * @param session the receiving session
     * @param sender the sending session, or null
     * @param message the message, frozen
     * @return false to drop the message for this session
     */
    boolean queueOffer(ServerSession session, ServerSession sender, ServerMessage message);
}
