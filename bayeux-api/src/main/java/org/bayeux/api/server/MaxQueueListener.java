package org.bayeux.api.server;

import java.util.Queue;

/**
 * Told when a message arrives for a session whose queue is full: it holds {@code maxQueue} messages, or the new
 * message would take the bytes waiting for the session (its queue and its socket's unwritten backlog) past
 * {@code maxQueueBytes}. Runs under the session's lock. With no such listener, the server's max-queue policy
 * applies.
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
