package org.bayeux.backplane.redis;

/**
 * How many history reads one session may start: a bucket of {@link RedisBackplaneConfig#RECOVERY_BURST} tokens,
 * refilled at {@link RedisBackplaneConfig#RECOVERY_RATE} per second. Why a burst: a client that re-handshakes
 * resubscribes to all its channels at once, each a recovery; why a rate: a client that sends subscribes in a loop
 * would otherwise have this node read Redis for each.
 */
final class RecoveryRate {
    private static final long SECOND = 1_000_000_000L;

    private final int perSecond;
    private final int burst;
    /** Guarded by this. */
    private double tokens;
    private long refilledAt = System.nanoTime();

    RecoveryRate(int perSecond, int burst) {
        this.perSecond = perSecond;
        this.burst = burst;
        this.tokens = burst;
    }

    /** @return true if the session may start a read now (a token taken), false if it is past its rate */
    synchronized boolean tryTake() {
        long now = System.nanoTime();
        tokens = Math.min(burst, tokens + (double) (now - refilledAt) * perSecond / SECOND);
        refilledAt = now;
        if (tokens >= 1) {
            tokens -= 1;
            return true;
        }
        return false;
    }
}
