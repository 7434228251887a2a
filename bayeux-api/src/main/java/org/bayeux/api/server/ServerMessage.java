package org.bayeux.api.server;

import org.bayeux.api.ChannelId;
import org.bayeux.api.Message;

/**
 * A message inside the server. Once published it is frozen: shared by every recipient, encoded to JSON once, and
 * no longer changeable; {@link #copy()} gives a changeable copy.
 */
public interface ServerMessage extends Message {
    /** @return the request this message replies to, or null */
    ServerMessage getAssociated();

    /** @return true if this message may wait for its channel's lazy timeout before delivery */
    boolean isLazy();

    /** @return true if this message can no longer be changed */
    boolean isFrozen();

    /** @return the parsed channel, or null if the channel field is missing or invalid */
    ChannelId getChannelId();

    /** @return a changeable shallow copy of this message, not frozen, with no associated request */
    ServerMessage.Mutable copy();

    /**
     * A server message that may still change.
     */
    interface Mutable extends ServerMessage, Message.Mutable {
        /**
         * @param associated the request this message replies to
         */
        void setAssociated(ServerMessage associated);

        /**
         * @param lazy whether delivery may wait for the channel's lazy timeout
         */
        void setLazy(boolean lazy);
    }
}
