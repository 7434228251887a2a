package org.bayeux.backplane.redis;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The recoveries one Redis connection runs at once ({@link RedisBackplaneConfig#RECOVERY_CONCURRENCY}): a recovery
 * reads its pages only while it holds a permit, the others wait in arrival order. Why: each page is a script, and a
 * thousand recoveries at once (every subscriber of a room coming back after a cut) would queue a thousand scripts
 * ahead of the node's publishes and stream reads on the same connection.
 *
 * <p>The waiting line is bounded: each session runs one recovery at a time ({@code RecoveryExtension}), so at most
 * one waits per session, and past {@link #MAX_WAITING} a recovery fails at once (answered {@code recovered: false}).</p>
 */
final class RecoveryPermits {
    /** The most recoveries waiting for a permit. */
    static final int MAX_WAITING = 100_000;

    private final int permits;
    private final ArrayDeque<Runnable> waiting = new ArrayDeque<>();
    /** Guarded by this. */
    private int running;
    private int mostRunning;
    private long started;

    RecoveryPermits(int permits) {
        this.permits = permits;
    }

    /**
     * @param recovery starts a recovery and returns its completion; run once a permit is free
     * @return the recovery's outcome; the permit is given back when it completes
     */
    <T> CompletableFuture<T> run(Supplier<CompletableFuture<T>> recovery) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Runnable start = () -> {
            CompletableFuture<T> running;
            try {
                running = recovery.get();
            } catch (RuntimeException failed) {
                running = CompletableFuture.failedFuture(failed);
            }
            running.whenComplete((value, failure) -> {
                release();
                if (failure != null) {
                    result.completeExceptionally(failure);
                } else {
                    result.complete(value);
                }
            });
        };
        synchronized (this) {
            if (running >= permits) {
                if (waiting.size() >= MAX_WAITING) {
                    return CompletableFuture.failedFuture(new IllegalStateException(
                            MAX_WAITING + " recoveries already wait for Redis"));
                }
                waiting.add(start);
                return result;
            }
            running++;
            mostRunning = Math.max(mostRunning, running);
            started++;
        }
        start.run();
        return result;
    }

    private void release() {
        Runnable next;
        synchronized (this) {
            next = waiting.poll();
            if (next == null) {
                running--;
                return;
            }
            started++;
        }
        // Not on this thread: a recovery that fails at once (Redis just lost) would release its permit from within
        // this call, and a long waiting line would then run to a stack overflow.
        CompletableFuture.runAsync(next);
    }

    /** @return the recoveries running now, for tests */
    synchronized int running() {
        return running;
    }

    /** @return the recoveries waiting for a permit now */
    synchronized int waiting() {
        return waiting.size();
    }

    /** @return how many recoveries may run at once */
    int permits() {
        return permits;
    }

    /** @return the most recoveries that ran at once, for tests */
    synchronized int mostRunning() {
        return mostRunning;
    }

    /** @return the recoveries started since the node started, for tests */
    synchronized long started() {
        return started;
    }
}
