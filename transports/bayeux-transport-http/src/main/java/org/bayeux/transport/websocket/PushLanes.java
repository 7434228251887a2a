package org.bayeux.transport.websocket;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

import org.bayeux.server.internal.RateLimitedLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the engine's pushes to WebSockets: at once on the calling thread while the carrier's lane is idle, otherwise on
 * the lane, one of a few serial lanes of the transport's executor.
 *
 * <p>Why both: while the server keeps up, a push is cheapest where it was asked for, as a bare fan-out writes: no task,
 * no queue node, no thread to wake per recipient (profiles of a fan-out to 10,000 sockets at a light rate spent
 * more on handing pushes to lanes, and on the garbage collector's bookkeeping of those hand-overs, than on the
 * pushes). Once a lane has a backlog, though, a push joins it: it then runs a little later, and every message queued
 * for the session meanwhile leaves in the same frame, so the busier the server, the larger the frames and the
 * lower the cost per message. A thread also stops pushing at once when pushes took half of its last 10 ms
 * ({@link InlineBudget}): a publisher's thread then goes back to reading, and a fan-out too large or too frequent for
 * one thread is shared by the lanes, and batched by them.</p>
 *
 * <p>A carrier always uses the same lane, so its queued pushes run in order and never at the same time; a push run
 * at once may overlap another carrier's, or (for the same carrier) one run at once by another thread, which the
 * engine's per-session lock and the carrier's write queue make safe. A lane takes a thread of the executor only while
 * it has work, and gives it back after a bounded number of tasks so that other work on the executor is not
 * starved.</p>
 */
final class PushLanes {
    private static final Logger LOG = LoggerFactory.getLogger(PushLanes.class);
    private static final RateLimitedLog QUIET = new RateLimitedLog(LOG);
    /** Tasks a lane runs before it yields its thread and queues itself again behind the executor's other work. */
    private static final int TASKS_PER_TURN = 256;

    private static final ThreadLocal<InlineBudget> INLINE_BUDGET = ThreadLocal.withInitial(InlineBudget::new);

    private final Lane[] lanes;

    /**
     * @param executor runs the lanes
     * @param count the number of lanes, at least 1
     */
    PushLanes(Executor executor, int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1: " + count);
        }
        lanes = new Lane[count];
        for (int i = 0; i < count; i++) {
            lanes[i] = new Lane(executor);
        }
    }

    /**
     * Runs a task at once if the lane of its key is idle, otherwise queues it on that lane.
     *
     * @param key the key, the same for tasks that must not overtake one another (a carrier)
     * @param task the task; an exception it throws is logged
     */
    void execute(Object key, Runnable task) {
        Lane lane = laneOf(key);
        InlineBudget budget;
        long start;
        if (lane.isIdle() && (budget = INLINE_BUDGET.get()).allows(start = System.nanoTime())) {
            runSafely(task);
            budget.spent(System.nanoTime() - start);
        } else {
            lane.execute(task);
        }
    }

    /**
     * Queues a task on the lane of a key, even if the lane is idle.
     *
     * @param key the key, the same for tasks that must run in order (a carrier)
     * @param task the task; an exception it throws is logged
     */
    void enqueue(Object key, Runnable task) {
        laneOf(key).execute(task);
    }

    private Lane laneOf(Object key) {
        int hash = System.identityHashCode(key);
        hash ^= hash >>> 16;
        return lanes[Math.floorMod(hash, lanes.length)];
    }

    private static void runSafely(Runnable task) {
        try {
            task.run();
        } catch (RuntimeException failure) {
            QUIET.warn("push:" + failure.getClass().getName(), "A push failed", failure);
        }
    }

    private static final class Lane implements Runnable {
        private final Executor executor;
        private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
        /** The lane is queued on, or running in, the executor. */
        private final AtomicBoolean scheduled = new AtomicBoolean();

        Lane(Executor executor) {
            this.executor = executor;
        }

        /** @return true if the lane has nothing queued and is not running */
        boolean isIdle() {
            return !scheduled.get() && tasks.isEmpty();
        }

        void execute(Runnable task) {
            tasks.offer(task);
            schedule();
        }

        private void schedule() {
            if (!scheduled.compareAndSet(false, true)) {
                return;
            }
            try {
                executor.execute(this);
            } catch (RejectedExecutionException stopping) {
                // The server is stopping: its sockets are closing, and what they would have carried with them.
                LOG.debug("Executor refused a push lane, probably stopping", stopping);
                tasks.clear();
                scheduled.set(false);
            }
        }

        @Override
        public void run() {
            try {
                for (int run = 0; run < TASKS_PER_TURN; run++) {
                    Runnable task = tasks.poll();
                    if (task == null) {
                        break;
                    }
                    runSafely(task);
                }
            } finally {
                scheduled.set(false);
                // A task offered after the last poll but before the flag was cleared found the lane scheduled.
                if (!tasks.isEmpty()) {
                    schedule();
                }
            }
        }
    }

    /**
     * How much of a thread's recent time went to pushes run at once: at most half of each 10 ms window, so that
     * pushing at once never starves what the thread was doing (reading a publisher's socket) and a heavy fan-out
     * falls back to the lanes, which batch it.
     */
    static final class InlineBudget {
        private static final long WINDOW_NANOS = 10_000_000;
        private static final long MAX_BUSY_NANOS = WINDOW_NANOS / 2;

        private long windowStart = System.nanoTime();
        private long busyNanos;

        /**
         * @param now the time, from {@link System#nanoTime()}
         * @return whether the thread may run another push at once
         */
        boolean allows(long now) {
            if (now - windowStart >= WINDOW_NANOS) {
                windowStart = now;
                busyNanos = 0;
            }
            return busyNanos < MAX_BUSY_NANOS;
        }

        /** @param nanos the time a push run at once took */
        void spent(long nanos) {
            busyNanos += nanos;
        }
    }
}
