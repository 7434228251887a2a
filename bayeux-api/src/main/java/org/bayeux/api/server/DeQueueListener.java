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

    /**
     * Like {@link #deQueue(ServerSession, Queue)}, and also tells which {@code /meta/connect} reply, if any, the
     * messages travel with. The server calls this method; by default it calls {@link #deQueue(ServerSession, Queue)}.
     *
     * <p>A listener that must mark a connect reply according to exactly the messages it carries (as the
     * {@code ack} extension numbers its batches) overrides this method: a session may have more than one connect
     * reply in flight, so marking the reply later, in an outgoing extension, could pair it with another reply's
     * messages.</p>
     *
     * @param session the session
     * @param queue the messages about to be delivered, in order; changes are delivered
     * @param connectReply the connect reply that is sent right after these messages, not yet frozen and still
     *                     changeable (its outgoing extensions run later); null when the messages are pushed or
     *                     ride along with replies to other messages
     */
    default void deQueue(ServerSession session, Queue<ServerMessage> queue, ServerMessage.Mutable connectReply) {
        deQueue(session, queue);
    }
}
