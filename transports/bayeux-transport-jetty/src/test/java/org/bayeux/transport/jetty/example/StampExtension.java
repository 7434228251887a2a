package org.bayeux.transport.jetty.example;

// BEGIN extension
import java.util.Map;

import org.bayeux.api.server.ServerExtension;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;

/**
 * Refuses chat messages without text, and adds the sender's user name to every chat message it lets through,
 * so that no client can claim to be someone else.
 */
public final class StampExtension implements ServerExtension {
    @Override
    public boolean rcv(ServerSession session, ServerMessage.Mutable message) {
        if (!message.getChannel().startsWith("/chat/")) {
            return true;
        }
        Map<String, Object> data = message.getDataAsMap();
        if (data == null || !(data.get("text") instanceof String)) {
            return false;                    // the publisher gets 404::message_deleted
        }
        Object user = session.getAttribute(TokenPolicy.USER);
        message.setData(Map.of("text", data.get("text"), "from", user == null ? "server" : user));
        return true;
    }
}
// END extension
