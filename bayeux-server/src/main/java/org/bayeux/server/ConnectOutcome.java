package org.bayeux.server;

import java.util.List;

import org.bayeux.api.server.ServerMessage;

/** The outcome of a {@code /meta/connect}: either held, or answered now with the messages to send first. */
final class ConnectOutcome {
    static final ConnectOutcome HELD = new ConnectOutcome(null);

    final List<ServerMessage> messages;
    /**
     * The engine drains and this reply is the session's last: the session is removed once it is answered (as
     * {@code MOVED} if it was handed over to another node, {@link ServerSessionImpl#isHandedOver()}).
     */
    final boolean last;
    /** With a store that adopts sessions, the reply's journal entry and place in order; else null. */
    final SessionFailover.JournalEntry journal;

    ConnectOutcome(List<ServerMessage> messages) {
        this(messages, false, null);
    }

    ConnectOutcome(List<ServerMessage> messages, boolean last) {
        this(messages, last, null);
    }

    ConnectOutcome(List<ServerMessage> messages, boolean last, SessionFailover.JournalEntry journal) {
        this.messages = messages;
        this.last = last;
        this.journal = journal;
    }

    boolean isHeld() {
        return this == HELD;
    }
}
