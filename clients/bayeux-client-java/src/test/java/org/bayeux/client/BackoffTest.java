package org.bayeux.client;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The back-off grows exponentially to its cap, with its jitter inside the configured fraction. */
class BackoffTest {
    private static Backoff backoff(double jitter) {
        return new Backoff(BayeuxClientConfig.builder("http://localhost/")
                .backoff(Duration.ofMillis(100), Duration.ofMillis(1000)).backoffMultiplier(2).backoffJitter(jitter)
                .build());
    }

    @Test
    void withoutJitterItDoublesUpToTheCapAndStartsOverAfterASuccess() {
        Backoff backoff = backoff(0);

        assertThat(new long[] {backoff.nextMillis(), backoff.nextMillis(), backoff.nextMillis(), backoff.nextMillis(),
                backoff.nextMillis(), backoff.nextMillis()}).containsExactly(100, 200, 400, 800, 1000, 1000);
        backoff.reset();
        assertThat(backoff.nextMillis()).isEqualTo(100);
    }

    @Test
    void jitterTakesAtMostItsFractionOffEachStep() {
        Backoff backoff = backoff(0.5);
        for (int round = 0; round < 200; round++) {
            backoff.reset();
            assertThat(backoff.nextMillis()).isBetween(50L, 100L);
            assertThat(backoff.nextMillis()).isBetween(100L, 200L);
            for (int i = 0; i < 5; i++) {
                backoff.nextMillis();
            }
            assertThat(backoff.nextMillis()).isBetween(500L, 1000L);
        }
    }

    @Test
    void aThousandFailuresInARowStayAtTheCap() {
        Backoff backoff = backoff(0);
        for (int i = 0; i < 1000; i++) {
            backoff.nextMillis();
        }
        assertThat(backoff.nextMillis()).isEqualTo(1000);
    }
}
