package org.bayeux.server;

import java.util.List;

import org.bayeux.api.Message;
import org.bayeux.server.transport.IncomingBatch;

/** A batch as the engine parsed it: the transports see only {@link IncomingBatch}. */
record ParsedBatch(List<ServerMessageImpl> messages) implements IncomingBatch {
    @Override
    public boolean isHandshake() {
        return Message.META_HANDSHAKE.equals(messages.get(0).getChannel());
    }

    @Override
    public int size() {
        return messages.size();
    }
}
