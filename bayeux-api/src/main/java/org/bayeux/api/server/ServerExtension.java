package org.bayeux.api.server;

import org.bayeux.api.Promise;

/**
 * A server-wide extension: sees, may change and may drop every message the server receives and sends.
 *
 * <p>Order: incoming messages pass the server-wide extensions, then the sending session's
 * {@link SessionExtension}s, each in the order added. Outgoing messages pass the server-wide extensions, then
 * the receiving session's, each in the order added. A broadcast passes the server-wide outgoing extensions once,
 * before it is frozen and shared by every recipient (so {@code receiver} is null), and each receiving session's
 * extensions at delivery.</p>
 *
 * <p>An incoming message dropped by an extension is answered with {@code 404::message_deleted}.</p>
 */
public interface ServerExtension {
    /**
     * @param session the sending session, or null before a handshake has been accepted
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
     * @param session the sending session, or null for a handshake
     * @param message an incoming meta message
     * @return false to drop it
     */
    default boolean rcvMeta(ServerSession session, ServerMessage.Mutable message) {
        return true;
    }

    /**
     * @param sender the session the message is from, or null
     * @param receiver the receiving session, or null for a broadcast shared by all recipients
     * @param message the outgoing message
     * @param promise completed with false to drop it
     */
    default void outgoing(ServerSession sender, ServerSession receiver, ServerMessage.Mutable message,
            Promise<Boolean> promise) {
        Promise.complete(promise, () -> message.isMeta() ? sendMeta(receiver, message) : send(sender, receiver, message));
    }

    /**
     * @param sender the session the message is from, or null
     * @param receiver the receiving session, or null for a broadcast
     * @param message an outgoing publish, delivery or publish reply
     * @return false to drop it
     */
    default boolean send(ServerSession sender, ServerSession receiver, ServerMessage.Mutable message) {
        return true;
    }

    /**
     * @param receiver the receiving session, or null for a failed handshake
     * @param message an outgoing meta reply
     * @return false to drop it
     */
    default boolean sendMeta(ServerSession receiver, ServerMessage.Mutable message) {
        return true;
    }
}
