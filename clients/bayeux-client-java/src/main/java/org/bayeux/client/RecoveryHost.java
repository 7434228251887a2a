package org.bayeux.client;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.Message;
import org.bayeux.client.ext.RecoveryExtension;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * What the recovery extension needs of its client to recover a gap: subscribing again (through the outbox, like a
 * resubscribe after a re-handshake: no listener added, no callback), letting held messages through (the inbox routes
 * them after the message being handled), and timers that run in the inbox's order.
 */
final class RecoveryHost implements RecoveryExtension.Host {
    private final Inbox inbox;
    private final ClientResources resources;
    private volatile Outbox outbox;

    RecoveryHost(Inbox inbox, ClientResources resources) {
        this.inbox = inbox;
        this.resources = resources;
    }

    void bind(Outbox outbox) {
        this.outbox = outbox;
    }

    @Override
    public void subscribe(String channel) {
        outbox.resubscribe(List.of(channel));
    }

    @Override
    public void release(List<Message.Mutable> messages) {
        inbox.release(messages);
    }

    @Override
    public Runnable schedule(Runnable task, Duration delay) {
        Scheduler.Task timer = resources.scheduler().schedule(
                () -> resources.executor().execute(() -> inbox.inOrder(task)), delay.toMillis(), TimeUnit.MILLISECONDS);
        return timer::cancel;
    }
}
