package org.bayeux.server;

import org.bayeux.server.transport.Carrier;

/**
 * A {@code /meta/connect} that waits on its carrier for messages or for its timeout. Each hold has its own cycle
 * number, so a late timer can never complete a newer hold. Its time-out is the session's {@link HoldTimer}.
 */
final class HeldConnect {
    final long cycle;
    final ServerMessageImpl reply;
    final Carrier carrier;

    HeldConnect(long cycle, ServerMessageImpl reply, Carrier carrier) {
        this.cycle = cycle;
        this.reply = reply;
        this.carrier = carrier;
    }
}
