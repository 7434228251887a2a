package org.bayeux.api.server;

import java.util.Queue;

/**
 * Told when a message arrives for a session whose queue is full. Runs under the session's lock. With no such
 * listener, the server's max-queue policy applies.
 */
@FunctionalInterface
public interface MaxQueueListener {
    /**
     * @param session the receiving session
     * @param queue the full queue; the listener may remove messages from it
     * @param sender the sending session, or null
     * @param message the new message, frozen
     * @return true to queue the new message anyway, false to drop it
     */
    boolean queueMaxed(ServerSession session, Queue<ServerMessage> queue, ServerSession sender, ServerMessage message);
}
