package org.bayeux.backplane.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.lettuce.core.SetArgs;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's liveness lease in Redis, {@code <keyPrefix>:node:{<nodeId>}}, set with an expiry of
 * {@link RedisBackplaneConfig#NODE_LEASE} and renewed every third of it. Other nodes read it to tell a live owner of a
 * session from a dead one. This node trusts its own lease only while the last renewal Redis confirmed was sent less
 * than two thirds of the lease ago: past that another node may see it gone (its clock and Redis's may differ by the
 * margin), so the node must stop serving until it has checked its sessions again ({@link Listener}).
 */
final class NodeLease {
    private static final Logger LOG = LoggerFactory.getLogger(NodeLease.class);

    /** Told when the lease may have lapsed, and when it is held again. */
    interface Listener {
        /** The lease could not be renewed in time: another node may now adopt this node's sessions. */
        void lapsed();

        /** Redis confirmed a renewal after the lease {@link #lapsed}. */
        void regained();
    }

    private final String key;
    private final byte[] nodeId;
    private final Duration lease;
    private final long trustNanos;
    private final Supplier<RedisLink.Connection> connection;
    private final Listener listener;
    private final Object lock = new Object();
    /** When the newest renewal Redis confirmed was sent (System.nanoTime); guarded by lock. */
    private long confirmedSentAt;
    private boolean everConfirmed;
    private boolean lapsed = true;
    private ScheduledFuture<?> renewing;

    /**
     * @param key the lease's key
     * @param nodeId this node's id, the key's value
     * @param lease how long the key lives unless renewed
     * @param connection the store's connection, or null while there is none
     * @param listener told when the lease lapses and is held again
     */
    NodeLease(String key, String nodeId, Duration lease, Supplier<RedisLink.Connection> connection,
            Listener listener) {
        this.key = Objects.requireNonNull(key, "key");
        this.nodeId = nodeId.getBytes(StandardCharsets.UTF_8);
        this.lease = lease;
        // The margin: a third of the lease, for the renewal's own round trip and the clocks' differences.
        this.trustNanos = lease.toNanos() - lease.toNanos() / 3;
        this.connection = connection;
        this.listener = listener;
    }

    /** @param timer runs the renewals, every third of the lease */
    void start(ScheduledExecutorService timer) {
        long period = Math.max(1, lease.toMillis() / 3);
        renewing = timer.scheduleAtFixedRate(this::renew, 0, period, TimeUnit.MILLISECONDS);
    }

    /** Stops renewing and deletes the key (best effort), so that other nodes adopt this node's sessions at once. */
    void stop() {
        if (renewing != null) {
            renewing.cancel(false);
        }
        RedisLink.Connection current = connection.get();
        if (current != null) {
            try {
                current.async().del(key).toCompletableFuture().get(lease.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            } catch (Exception failed) {
                LOG.debug("The node's lease could not be deleted; it expires", failed);
            }
        }
    }

    /** @return the key of a node's lease */
    static String key(String keyPrefix, String nodeId) {
        return keyPrefix + ":node:{" + nodeId + "}";
    }

    /** @return whether Redis confirmed a renewal sent recently enough that no other node can see the lease gone */
    boolean held() {
        synchronized (lock) {
            return everConfirmed && !lapsed && System.nanoTime() - confirmedSentAt < trustNanos;
        }
    }

    private void renew() {
        boolean lapsedNow = false;
        synchronized (lock) {
            if (!lapsed && System.nanoTime() - confirmedSentAt >= trustNanos) {
                lapsed = true;
                lapsedNow = true;
            }
        }
        if (lapsedNow) {
            LOG.warn("This node's lease in Redis ({}) could not be renewed for {} ms: its sessions are not served "
                    + "until they are checked again", key, trustNanos / 1_000_000);
            listener.lapsed();
        }
        RedisLink.Connection current = connection.get();
        if (current == null) {
            return;
        }
        long sentAt = System.nanoTime();
        try {
            current.async().set(key, nodeId, SetArgs.Builder.px(lease.toMillis())).whenComplete((ok, failed) -> {
                if (failed == null && "OK".equals(ok)) {
                    confirmed(sentAt);
                }
            });
        } catch (RuntimeException refused) {
            LOG.debug("The node's lease could not be renewed now", refused);
        }
    }

    private void confirmed(long sentAt) {
        boolean regainedNow = false;
        synchronized (lock) {
            if (!everConfirmed || sentAt - confirmedSentAt > 0) {
                confirmedSentAt = sentAt;
            }
            everConfirmed = true;
            if (lapsed && System.nanoTime() - confirmedSentAt < trustNanos) {
                lapsed = false;
                regainedNow = true;
            }
        }
        if (regainedNow) {
            listener.regained();
        }
    }
}
