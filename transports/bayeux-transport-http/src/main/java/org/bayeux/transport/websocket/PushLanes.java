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
 * lower the cost per message.</p>
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
        if (lane.isIdle()) {
            runSafely(task);
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
}
