package org.bayeux.server;

import java.util.List;

import org.bayeux.api.server.ServerMessage;

/** The outcome of a {@code /meta/connect}: either held, or answered now with the messages to send first. */
final class ConnectOutcome {
    static final ConnectOutcome HELD = new ConnectOutcome(null);

    final List<ServerMessage> messages;
    /** The engine drains and this reply is the session's last: the session is removed once it is answered. */
    final boolean last;

    ConnectOutcome(List<ServerMessage> messages) {
        this(messages, false);
    }

    ConnectOutcome(List<ServerMessage> messages, boolean last) {
        this.messages = messages;
        this.last = last;
    }

    boolean isHeld() {
        return this == HELD;
    }
}
