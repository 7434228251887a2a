package org.bayeux.transport.jetty.example;

import org.bayeux.api.ChannelId;
import org.bayeux.api.server.Authorizer;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;

/** The authorizer of operations.md's {@link ChatApp}: rooms are open to handshaken sessions. */
public final class RoomAuthorizer implements Authorizer {
    @Override
    public Result authorize(Operation operation, ChannelId channel, ServerSession session, ServerMessage message) {
        return Result.grant();
    }
}
