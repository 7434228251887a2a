package org.bayeux.server;

import java.util.concurrent.ScheduledFuture;

import org.bayeux.server.transport.Carrier;

/**
 * A {@code /meta/connect} that waits on its carrier for messages or for its timeout. Each hold has its own cycle
 * number, so a late timer can never complete a newer hold.
 */
final class HeldConnect {
    final long cycle;
    final ServerMessageImpl reply;
    final Carrier carrier;
    ScheduledFuture<?> timeoutTask;

    HeldConnect(long cycle, ServerMessageImpl reply, Carrier carrier) {
        this.cycle = cycle;
        this.reply = reply;
        this.carrier = carrier;
    }

    void cancelTimeout() {
        ScheduledFuture<?> task = timeoutTask;
        if (task != null) {
            task.cancel(false);
        }
    }
}
