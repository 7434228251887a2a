package org.bayeux.server;

import java.util.List;

import org.bayeux.api.server.ServerMessage;

/** The outcome of a {@code /meta/connect}: either held, or answered now with the messages to send first. */
final class ConnectOutcome {
    static final ConnectOutcome HELD = new ConnectOutcome(null);

    final List<ServerMessage> messages;

    ConnectOutcome(List<ServerMessage> messages) {
        this.messages = messages;
    }

    boolean isHeld() {
        return this == HELD;
    }
}
