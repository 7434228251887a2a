package org.bayeux.transport.websocket;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

import org.bayeux.server.internal.RateLimitedLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the engine's pushes to WebSockets on a few serial lanes of the transport's executor, rather than on the thread
 * that published.
 *
 * <p>Why: a publish to a room of a hundred sessions would otherwise make a hundred WebSocket writes on the
 * publisher's thread, one per message. Handed to a lane, a session's push runs a little later, and every message
 * queued for it meanwhile leaves in the same frame. The busier the server, the longer the lanes' backlog and the
 * larger the frames, so the cost per message falls as the load rises; an idle server pushes at once.</p>
 *
 * <p>A carrier always uses the same lane, so its pushes run in order and never at the same time. A lane takes a
 * thread of the executor only while it has work, and gives it back after a bounded number of tasks so that other
 * work on the executor is not starved.</p>
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
     * Runs a task on the lane of a key.
     *
     * @param key the key, the same for tasks that must run in order (a carrier)
     * @param task the task; an exception it throws is logged
     */
    void execute(Object key, Runnable task) {
        int hash = System.identityHashCode(key);
        hash ^= hash >>> 16;
        lanes[Math.floorMod(hash, lanes.length)].execute(task);
    }

    private static final class Lane implements Runnable {
        private final Executor executor;
        private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
        /** The lane is queued on, or running in, the executor. */
        private final AtomicBoolean scheduled = new AtomicBoolean();

        Lane(Executor executor) {
            this.executor = executor;
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
                    try {
                        task.run();
                    } catch (RuntimeException failure) {
                        QUIET.warn("push:" + failure.getClass().getName(), "A push failed", failure);
                    }
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
