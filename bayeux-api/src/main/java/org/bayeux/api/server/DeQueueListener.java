package org.bayeux.api.server;

import java.util.Queue;

/**
 * Told when a session's queue is taken for delivery, and may rewrite it: remove, reorder, merge or add messages.
 * Runs under the session's lock.
 */
@FunctionalInterface
public interface DeQueueListener {
    /**
     * @param session the session
     * @param queue the messages about to be delivered, in order; changes are delivered
     */
    void deQueue(ServerSession session, Queue<ServerMessage> queue);
}
