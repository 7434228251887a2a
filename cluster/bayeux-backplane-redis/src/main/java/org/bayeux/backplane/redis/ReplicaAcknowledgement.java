package org.bayeux.backplane.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.RedisFuture;

/**
 * Group commit of {@code WAIT numreplicas timeout} on one connection: a write Redis has answered on that connection
 * is confirmed once a {@code WAIT} sent after that answer counts at least {@link RedisBackplaneConfig#MIN_REPLICAS}
 * replicas. One {@code WAIT} is in flight at a time; the writes answered meanwhile share the next one, so that a burst
 * of pipelined publishes costs one {@code WAIT}, not one each. Redis runs a connection's commands in order, and
 * {@code WAIT} waits for every write its connection made before it: a {@code WAIT} sent after a write's answer covers
 * it.
 *
 * <p>{@code WAIT} blocks its connection in Redis until it answers (at most its timeout): the commands pipelined behind
 * it wait too, and are covered by the next one.</p>
 */
final class ReplicaAcknowledgement {
    private final int replicas;
    private final long timeoutMillis;
    /** The confirmations that wait for a {@code WAIT} not sent yet. Guarded by this. */
    private List<CompletableFuture<Void>> next = new ArrayList<>();
    /** Whether a {@code WAIT} is in flight. Guarded by this. */
    private boolean waiting;
    private final AtomicLong waits = new AtomicLong();
    private final AtomicLong shortfalls = new AtomicLong();

    /**
     * @param replicas how many replicas must hold a write, at least 1
     * @param timeoutMillis how long one {@code WAIT} waits for them in Redis
     */
    ReplicaAcknowledgement(int replicas, long timeoutMillis) {
        if (replicas < 1) {
            throw new IllegalArgumentException("replicas: " + replicas);
        }
        this.replicas = replicas;
        this.timeoutMillis = Math.max(1, timeoutMillis);
    }

    /**
     * @param connection the connection the write was made on and answered on, just now
     * @return completes once enough replicas hold the write; fails with a {@link NotReplicatedException} if fewer did
     *         within the timeout, or with the command's failure (Redis away)
     */
    CompletableFuture<Void> confirm(RedisLink.Connection connection) {
        CompletableFuture<Void> confirmed = new CompletableFuture<>();
        boolean send;
        synchronized (this) {
            next.add(confirmed);
            send = !waiting;
            waiting = true;
        }
        if (send) {
            sendWait(connection);
        }
        return confirmed;
    }

    private void sendWait(RedisLink.Connection connection) {
        // Bounded: each round takes every confirmation queued so far, and a new round is only started for those
        // queued while this one was in flight.
        for (int round = 0; round < 1_000_000; round++) {
            List<CompletableFuture<Void>> batch;
            synchronized (this) {
                batch = next;
                next = new ArrayList<>();
            }
            RedisFuture<Long> wait;
            try {
                wait = connection.async().waitForReplication(replicas, timeoutMillis);
            } catch (RuntimeException rejected) {
                batch.forEach(each -> each.completeExceptionally(rejected));
                if (!again()) {
                    return;
                }
                continue;
            }
            waits.incrementAndGet();
            wait.whenComplete((count, failure) -> {
                if (failure != null) {
                    batch.forEach(each -> each.completeExceptionally(failure));
                } else if (count == null || count < replicas) {
                    shortfalls.incrementAndGet();
                    NotReplicatedException shortfall = new NotReplicatedException(count == null ? 0 : count,
                            replicas, timeoutMillis);
                    batch.forEach(each -> each.completeExceptionally(shortfall));
                } else {
                    batch.forEach(each -> each.complete(null));
                }
                if (again()) {
                    sendWait(connection);
                }
            });
            return;
        }
    }

    /** @return whether confirmations queued while the last {@code WAIT} was in flight need another one */
    private synchronized boolean again() {
        if (next.isEmpty()) {
            waiting = false;
            return false;
        }
        return true;
    }

    /** @return the {@code WAIT}s sent since start, for tests and the dump */
    long waits() {
        return waits.get();
    }

    /** @return the {@code WAIT}s that counted fewer replicas than needed */
    long shortfalls() {
        return shortfalls.get();
    }

    /** Fewer replicas than {@link RedisBackplaneConfig#MIN_REPLICAS} acknowledged a write in time. */
    static final class NotReplicatedException extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        NotReplicatedException(long count, int replicas, long timeoutMillis) {
            super("WAIT counted " + count + " of " + replicas + " replicas within " + timeoutMillis + " ms");
        }
    }
}
