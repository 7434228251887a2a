package org.bayeux.standalone;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import org.bayeux.server.BayeuxEngine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The standalone server's way out, run once: readiness fails first (so that balancers stop sending clients), the
 * engine drains ({@link BayeuxEngine#drain}) until no remote session is left or the deadline passes, then the server
 * stops. Logs the {@code Draining} and {@code Stopped} lifecycle lines under {@link StandaloneServer}'s logger.
 */
final class GracefulStop {
    private static final Logger LOG = LoggerFactory.getLogger(StandaloneServer.class);
    /** How long a drained server waits for its last replies to be written before closing the connections. */
    private static final long LAST_WRITES_MILLIS = 200;

    private final BayeuxEngine engine;
    private final Readiness readiness;
    private final Duration retryInterval;
    /** Stops what the server runs: its connections, the engine, the cluster. */
    private final Runnable stopServer;
    private final AtomicBoolean started = new AtomicBoolean();
    private final CompletableFuture<Void> stopped = new CompletableFuture<>();

    /**
     * @param engine the engine to drain
     * @param readiness the readiness check, failed first
     * @param retryInterval advised to handshakes refused while draining
     * @param stopServer stops the server once drained
     */
    GracefulStop(BayeuxEngine engine, Readiness readiness, Duration retryInterval, Runnable stopServer) {
        this.engine = engine;
        this.readiness = readiness;
        this.retryInterval = retryInterval;
        this.stopServer = stopServer;
    }

    /** @return true once {@link #run} has begun */
    boolean hasStarted() {
        return started.get();
    }

    /**
     * Drains and stops; a later call waits for the first one to finish.
     *
     * @param deadline the longest the drain may take
     */
    void run(Duration deadline) {
        if (!started.compareAndSet(false, true)) {
            stopped.join();
            return;
        }
        try {
            drainAndStop(deadline);
            stopped.complete(null);
        } catch (RuntimeException failure) {
            stopped.completeExceptionally(failure);
            throw failure;
        }
    }

    private void drainAndStop(Duration deadline) {
        long start = System.nanoTime();
        readiness.draining();
        LOG.info("Draining: {} sessions, deadline {}; GET /ready answers 503, handshakes refused with retry after {}",
                engine.remoteSessionCount(), text(deadline), text(retryInterval));
        int left = 0;
        try {
            engine.drain(retryInterval).toCompletableFuture().get(deadline.toNanos(), TimeUnit.NANOSECONDS);
            // The last replies were handed to their connections, not necessarily written: a moment for them.
            long remainingMillis = TimeUnit.NANOSECONDS.toMillis(deadline.toNanos() - (System.nanoTime() - start));
            Thread.sleep(Math.max(0, Math.min(remainingMillis, LAST_WRITES_MILLIS)));
        } catch (TimeoutException late) {
            left = engine.remoteSessionCount();
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            left = engine.remoteSessionCount();
        } catch (ExecutionException impossible) {
            LOG.warn("Draining failed; stopping now", impossible.getCause());
            left = engine.remoteSessionCount();
        }
        stopServer.run();
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        if (left == 0) {
            LOG.info("Stopped after {} ms: every session handed off", millis);
        } else {
            LOG.info("Stopped after {} ms: {} sessions left at the deadline, ended", millis, left);
        }
    }

    /**
     * @param duration a duration
     * @return it as the configuration writes it: {@code 20s}, {@code 1500ms}
     */
    static String text(Duration duration) {
        long millis = duration.toMillis();
        return millis % 1000 == 0 ? millis / 1000 + "s" : millis + "ms";
    }
}
