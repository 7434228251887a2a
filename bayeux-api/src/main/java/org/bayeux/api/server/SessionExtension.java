package org.bayeux.api.server;

import org.bayeux.api.Promise;

/**
 * An extension of one session: sees the messages that session sends and receives. See {@link ServerExtension}
 * for the order extensions run in.
 *
 * <p>Outgoing methods are synchronous: they run when a message is queued for the session, in the order of
 * queuing, which they must not change.</p>
 */
public interface SessionExtension {
    /**
     * @param session the sending session
     * @param message the incoming message
     * @param promise completed with false to drop it
     */
    default void incoming(ServerSession session, ServerMessage.Mutable message, Promise<Boolean> promise) {
        Promise.complete(promise, () -> message.isMeta() ? rcvMeta(session, message) : rcv(session, message));
    }

    /**
     * @param session the sending session
     * @param message an incoming publish
     * @return false to drop it
     */
    default boolean rcv(ServerSession session, ServerMessage.Mutable message) {
        return true;
    }

    /**
     * @param session the sending session
     * @param message an incoming meta message
     * @return false to drop it
     */
    default boolean rcvMeta(ServerSession session, ServerMessage.Mutable message) {
        return true;
    }

    /**
     * Sees a message about to be queued for the session. The message is frozen and may be shared with other
     * sessions: to change it, return a changed {@link ServerMessage#copy()}.
     *
     * @param session the receiving session
     * @param message the message
     * @return the message to queue (the same one, or a replacement), or null to drop it
     */
    default ServerMessage send(ServerSession session, ServerMessage message) {
        return message;
    }

    /**
     * @param session the receiving session
     * @param message a meta reply to the session, changeable
     * @return false to drop it
     */
    default boolean sendMeta(ServerSession session, ServerMessage.Mutable message) {
        return true;
    }
}
