package org.bayeux.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The timer is driven by hand: scheduled tasks are recorded, and run when the test says. */
class HoldTimerTest {
    private static final long LONG_NANOS = TimeUnit.HOURS.toNanos(1);

    private final RecordingScheduler scheduler = new RecordingScheduler();
    private final List<Long> timedOut = new ArrayList<>();
    private final HoldTimer timer = new HoldTimer(scheduler, timedOut::add);

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    @Test
    void aHoldWhoseDeadlinePassedTimesOutWithItsCycle() {
        timer.arm(7, 0);
        scheduler.runLast();
        assertThat(timedOut).containsExactly(7L);
    }

    @Test
    void armingAgainWithALaterDeadlineSchedulesNothingAndAnEarlyWakeUpSleepsAgain() {
        timer.arm(1, LONG_NANOS);
        timer.arm(2, 2 * LONG_NANOS);
        assertThat(scheduler.tasks).hasSize(1);

        scheduler.runLast();

        assertThat(timedOut).isEmpty();
        assertThat(scheduler.tasks).hasSize(2);
        assertThat(scheduler.delaysNanos.get(1)).isGreaterThan(LONG_NANOS);
    }

    @Test
    void anEarlierDeadlineReplacesTheScheduledTask() {
        timer.arm(1, LONG_NANOS);
        ScheduledFuture<?> first = scheduler.futures.get(0);
        timer.arm(2, 0);

        assertThat(first.isCancelled()).isTrue();
        scheduler.tasks.get(0).run();
        assertThat(timedOut).isEmpty();
        scheduler.runLast();
        assertThat(timedOut).containsExactly(2L);
    }

    @Test
    void aDisarmedTimerWakesUpToNothing() {
        timer.arm(1, 0);
        timer.disarm();
        scheduler.runLast();
        assertThat(timedOut).isEmpty();
        assertThat(scheduler.tasks).hasSize(1);
    }

    @Test
    void stopCancelsTheTaskAndNothingFiresAfter() {
        timer.arm(1, 0);
        timer.stop();
        assertThat(scheduler.futures.get(0).isCancelled()).isTrue();
        scheduler.runLast();
        assertThat(timedOut).isEmpty();
    }

    @Test
    void theTimerServesTheNextHoldAfterATimeOut() {
        timer.arm(1, 0);
        scheduler.runLast();
        timer.arm(2, 0);
        assertThat(scheduler.tasks).hasSize(2);
        scheduler.runLast();
        assertThat(timedOut).containsExactly(1L, 2L);
    }

    /** Records what is scheduled instead of running it; the futures returned can be cancelled. */
    private static final class RecordingScheduler extends ScheduledThreadPoolExecutor {
        final List<Runnable> tasks = new ArrayList<>();
        final List<Long> delaysNanos = new ArrayList<>();
        final List<ScheduledFuture<?>> futures = new ArrayList<>();

        RecordingScheduler() {
            super(1);
        }

        @Override
        public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
            tasks.add(command);
            delaysNanos.add(unit.toNanos(delay));
            ScheduledFuture<?> future = super.schedule(() -> { }, 1, TimeUnit.DAYS);
            futures.add(future);
            return future;
        }

        @Override
        public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
            tasks.add(() -> {
                try {
                    callable.call();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            delaysNanos.add(unit.toNanos(delay));
            ScheduledFuture<V> future = super.schedule(() -> null, 1, TimeUnit.DAYS);
            futures.add(future);
            return future;
        }

        void runLast() {
            tasks.get(tasks.size() - 1).run();
        }
    }
}
