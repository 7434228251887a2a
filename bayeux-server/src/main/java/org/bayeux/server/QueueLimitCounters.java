package org.bayeux.server;

import java.util.concurrent.atomic.LongAdder;

/**
 * Counts how often sessions' queues reached their limits ({@code maxQueue}, {@code maxQueueBytes}) and what came of
 * it, for monitoring. Read with {@link BayeuxEngine#queueLimitCounters()}.
 */
public final class QueueLimitCounters {
    private final LongAdder countLimitHits = new LongAdder();
    private final LongAdder byteLimitHits = new LongAdder();
    private final LongAdder droppedMessages = new LongAdder();
    private final LongAdder disconnectedSessions = new LongAdder();

    QueueLimitCounters() {
    }

    /** @return how many messages found a session's queue holding {@code maxQueue} messages */
    public long countLimitHits() {
        return countLimitHits.sum();
    }

    /** @return how many messages would have taken a session past {@code maxQueueBytes} */
    public long byteLimitHits() {
        return byteLimitHits.sum();
    }

    /** @return how many messages a limit dropped: new ones refused, oldest ones dropped to make room */
    public long droppedMessages() {
        return droppedMessages.sum();
    }

    /** @return how many sessions were ended by the {@code DISCONNECT} policy */
    public long disconnectedSessions() {
        return disconnectedSessions.sum();
    }

    void limitHit(boolean byCount) {
        (byCount ? countLimitHits : byteLimitHits).increment();
    }

    void dropped(int messages) {
        droppedMessages.add(messages);
    }

    void disconnected() {
        disconnectedSessions.increment();
    }
}
