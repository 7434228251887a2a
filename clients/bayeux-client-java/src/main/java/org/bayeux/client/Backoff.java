package org.bayeux.client;

import java.util.concurrent.ThreadLocalRandom;

/**
 * An exponential back-off with jitter and a cap: after n failures in a row the wait is
 * {@code min(max, initial × multiplier^(n-1))}, of which the jitter fraction is drawn at random, so that many
 * clients that lost the same server do not come back in step. Not thread-safe: its owner guards it.
 */
final class Backoff {
    private final long initialMillis;
    private final long maxMillis;
    private final double multiplier;
    private final double jitter;
    private int failures;

    Backoff(BayeuxClientConfig config) {
        this.initialMillis = config.backoffInitial().toMillis();
        this.maxMillis = config.backoffMax().toMillis();
        this.multiplier = config.backoffMultiplier();
        this.jitter = config.backoffJitter();
    }

    /** @return the wait before the next attempt, counting one more failure */
    long nextMillis() {
        failures++;
        double step = initialMillis * Math.pow(multiplier, Math.min(failures - 1, 62));
        long capped = (long) Math.min(step, maxMillis);
        long random = (long) (capped * jitter * ThreadLocalRandom.current().nextDouble());
        return capped - random;
    }

    /** Forgets the failures: called after a success. */
    void reset() {
        failures = 0;
    }

    /** @return the failures in a row so far */
    int failures() {
        return failures;
    }
}
