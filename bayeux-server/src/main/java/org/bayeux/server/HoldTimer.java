package org.bayeux.server;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;

/**
 * The time-out of one session's held connects. A long-polling session holds a new connect after every delivery,
 * up to thousands of times a second per server; scheduling and cancelling a task each time cost a few percent of
 * the server's CPU in profiles. This timer keeps at most one task scheduled: arming it again with a later deadline
 * only moves the deadline, and the task, when it wakes up early, goes back to sleep until the deadline.
 */
final class HoldTimer {
    private final ScheduledExecutorService scheduler;
    private final LongConsumer timedOut;
    /** The cycle of the armed hold, or -1 when disarmed. */
    private long armedCycle = -1;
    private long deadlineNanos;
    private ScheduledFuture<?> task;
    private long wakeUpNanos;
    /** Tells a task that woke up whether it is still the scheduled one. */
    private long generation;

    /**
     * @param scheduler where the task runs
     * @param timedOut told the cycle of a hold whose deadline passed while it was armed; outside this timer's lock
     */
    HoldTimer(ScheduledExecutorService scheduler, LongConsumer timedOut) {
        this.scheduler = scheduler;
        this.timedOut = timedOut;
    }

    /**
     * @param cycle the cycle of the hold that starts, never negative
     * @param delayNanos how long it may be held
     */
    synchronized void arm(long cycle, long delayNanos) {
        long now = System.nanoTime();
        armedCycle = cycle;
        deadlineNanos = now + delayNanos;
        if (task == null || wakeUpNanos - deadlineNanos > 0) {
            if (task != null) {
                task.cancel(false);
            }
            schedule(now);
        }
    }

    /** The hold ended otherwise; a task already scheduled stays, to be reused by the next hold or to do nothing. */
    synchronized void disarm() {
        armedCycle = -1;
    }

    /** The session ended: nothing more will be armed, and nothing scheduled keeps the session reachable. */
    synchronized void stop() {
        armedCycle = -1;
        if (task != null) {
            task.cancel(false);
            task = null;
        }
        generation++;
    }

    private void schedule(long now) {
        long scheduled = ++generation;
        wakeUpNanos = deadlineNanos;
        // A Callable, not a Runnable: the executor would wrap a Runnable in one more object, kept while the task waits.
        task = scheduler.schedule(() -> {
            wakeUp(scheduled);
            return null;
        }, deadlineNanos - now, TimeUnit.NANOSECONDS);
    }

    private void wakeUp(long scheduled) {
        long cycle;
        synchronized (this) {
            if (scheduled != generation) {
                return;
            }
            task = null;
            if (armedCycle < 0) {
                return;
            }
            long now = System.nanoTime();
            if (deadlineNanos - now > 0) {
                schedule(now);
                return;
            }
            cycle = armedCycle;
            armedCycle = -1;
        }
        timedOut.accept(cycle);
    }
}
