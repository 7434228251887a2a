package org.bayeux.server;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * When a session's lazy messages are due: at most one task scheduled, at the earliest deadline of the lazy messages
 * queued. Used under the session's lock; the task itself runs the flush on the scheduler's thread.
 */
final class LazyFlushTimer {
    private final ScheduledExecutorService scheduler;
    private final Runnable flush;
    private ScheduledFuture<?> task;
    private long deadlineNanos;

    /**
     * @param scheduler where the flush runs
     * @param flush what runs when the earliest deadline passes; it must call {@link #fired()} under the same lock
     */
    LazyFlushTimer(ScheduledExecutorService scheduler, Runnable flush) {
        this.scheduler = scheduler;
        this.flush = flush;
    }

    /**
     * @param delayNanos how long the lazy message just queued may wait; when the armed deadline is earlier, that one
     *        stands and the flush then takes this message too
     */
    void schedule(long delayNanos) {
        long deadline = System.nanoTime() + delayNanos;
        if (task != null && deadlineNanos - deadline <= 0) {
            return;
        }
        cancel();
        deadlineNanos = deadline;
        task = scheduler.schedule(flush, delayNanos, TimeUnit.NANOSECONDS);
    }

    /** The scheduled flush is running: the next lazy message schedules anew. */
    void fired() {
        task = null;
    }

    /** Nothing lazy waits any more (delivered, or the session ended). */
    void cancel() {
        if (task != null) {
            task.cancel(false);
            task = null;
        }
    }
}
