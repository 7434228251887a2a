package org.bayeux.api.server;

import org.bayeux.api.Promise;

/**
 * Sees messages published to a channel before they are delivered, and may change or veto them. A listener on a
 * wildcard channel sees the messages of every channel it covers.
 */
@FunctionalInterface
public interface ChannelMessageListener {
    /**
     * @param sender the publishing session, or null for a server-side publish with no sender
     * @param channel the channel published to
     * @param message the message, still changeable
     * @param promise completed with false to veto the message
     */
    default void onMessage(ServerSession sender, ServerChannel channel, ServerMessage.Mutable message,
            Promise<Boolean> promise) {
        Promise.complete(promise, () -> onMessage(sender, channel, message));
    }

    /**
     * @param sender the publishing session, or null for a server-side publish with no sender
     * @param channel the channel published to
     * @param message the message, still changeable
     * @return false to veto the message
     */
    boolean onMessage(ServerSession sender, ServerChannel channel, ServerMessage.Mutable message);
}
