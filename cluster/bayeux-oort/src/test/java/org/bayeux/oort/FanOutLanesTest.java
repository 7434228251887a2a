package org.bayeux.oort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;

/** Peers' messages fanned out on lanes: each publisher's in order, bounded, and nothing left running. */
class FanOutLanesTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    @Test
    void eachChannelsDeliveriesRunInOrderOnOneLaneThread() {
        FanOutLanes lanes = new FanOutLanes(3, "test-lane");
        try {
            Map<Integer, List<Integer>> seen = new ConcurrentHashMap<>();
            Map<Integer, String> threadOf = new ConcurrentHashMap<>();
            List<String> wrongThread = new CopyOnWriteArrayList<>();
            for (int n = 0; n < 1_000; n++) {
                for (int key = 1; key <= 7; key++) {
                    int k = key;
                    int i = n;
                    lanes.deliver("/room/" + k, () -> {
                        seen.computeIfAbsent(k, x -> new CopyOnWriteArrayList<>()).add(i);
                        String thread = Thread.currentThread().getName();
                        if (!thread.equals(threadOf.computeIfAbsent(k, x -> thread))) {
                            wrongThread.add(k + " on " + thread);
                        }
                    });
                }
            }
            await().atMost(WAIT).until(() -> seen.values().stream().mapToInt(List::size).sum() == 7_000);
            List<Integer> expected = new ArrayList<>();
            for (int n = 0; n < 1_000; n++) {
                expected.add(n);
            }
            for (int key = 1; key <= 7; key++) {
                assertThat(seen.get(key)).as("channel %d in order", key).isEqualTo(expected);
            }
            assertThat(wrongThread).isEmpty();
            assertThat(threadOf.values()).allMatch(name -> name.startsWith("test-lane-"));
        } finally {
            lanes.stop();
        }
    }

    @Test
    void aFullLaneMakesTheReaderWaitAndStopReleasesIt() throws Exception {
        FanOutLanes lanes = new FanOutLanes(2, "test-lane");
        CountDownLatch release = new CountDownLatch(1);
        try {
            fullBehindABlockedDelivery(lanes, release);
            AtomicBoolean returned = new AtomicBoolean();
            Thread reader = start(() -> {
                lanes.deliver("/room", () -> { });
                returned.set(true);
            });
            // The lane is full behind a delivery that does not end: the reader waits instead of queuing more.
            await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> !returned.get());
            release.countDown();
            await().atMost(WAIT).untilTrue(returned);
            reader.join(WAIT.toMillis());

            // Full again, then stopped: the waiting reader goes on (the node is stopping; nothing more is delivered).
            fullBehindABlockedDelivery(lanes, new CountDownLatch(1));
            AtomicBoolean released = new AtomicBoolean();
            Thread waiting = start(() -> {
                lanes.deliver("/room", () -> { });
                released.set(true);
            });
            await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> !released.get());
            lanes.stop();
            await().atMost(WAIT).untilTrue(released);
            waiting.join(WAIT.toMillis());
        } finally {
            release.countDown();
            lanes.stop();
        }
    }

    /** Runs on /room's lane a delivery that waits for {@code release}, then fills that lane's queue. */
    private static void fullBehindABlockedDelivery(FanOutLanes lanes, CountDownLatch release) throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        lanes.deliver("/room", () -> {
            started.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException stopped) {
                Thread.currentThread().interrupt();
            }
        });
        assertThat(started.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        for (int i = 0; i < FanOutLanes.LANE_CAPACITY; i++) {
            lanes.deliver("/room", () -> { });
        }
    }

    private static Thread start(Runnable body) {
        Thread thread = new Thread(body, "test-reader");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    @Test
    void oneLaneDeliversOnTheCallersThread() {
        FanOutLanes lanes = new FanOutLanes(1, "unused");
        List<String> threads = new ArrayList<>();
        lanes.deliver("/room", () -> threads.add(Thread.currentThread().getName()));
        assertThat(threads).containsExactly(Thread.currentThread().getName());
        lanes.stop();
    }
}
