package org.bayeux.transport.websocket;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PushLanesTest {
    private final ExecutorService executor = Executors.newFixedThreadPool(4);

    @AfterEach
    void stop() throws InterruptedException {
        executor.shutdownNow();
        assertThat(executor.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void tasksOfOneKeyRunInOrderAndNeverAtOnce() throws Exception {
        PushLanes lanes = new PushLanes(executor, 3);
        Object[] keys = {new Object(), new Object(), new Object(), new Object(), new Object()};
        List<List<Integer>> seen = new ArrayList<>();
        AtomicInteger[] running = new AtomicInteger[keys.length];
        AtomicInteger overlaps = new AtomicInteger();
        for (int k = 0; k < keys.length; k++) {
            seen.add(Collections.synchronizedList(new ArrayList<>()));
            running[k] = new AtomicInteger();
        }
        for (int i = 0; i < 2_000; i++) {
            for (int k = 0; k < keys.length; k++) {
                int key = k;
                int index = i;
                // Queued, so that the lanes are busy: tasks run at once on an idle lane would prove nothing here.
                lanes.enqueue(keys[k], () -> {
                    if (running[key].incrementAndGet() > 1) {
                        overlaps.incrementAndGet();
                    }
                    seen.get(key).add(index);
                    running[key].decrementAndGet();
                });
            }
        }
        CountDownLatch done = new CountDownLatch(keys.length);
        for (Object key : keys) {
            lanes.execute(key, done::countDown);
        }
        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        for (List<Integer> list : seen) {
            assertThat(list).hasSize(2_000);
            for (int i = 0; i < list.size(); i++) {
                assertThat(list.get(i)).isEqualTo(i);
            }
        }
        assertThat(overlaps).hasValue(0);
    }

    @Test
    void aFailingTaskDoesNotStopItsLane() throws Exception {
        PushLanes lanes = new PushLanes(executor, 1);
        CountDownLatch ran = new CountDownLatch(1);
        lanes.enqueue(this, () -> {
            throw new IllegalStateException("expected by the test");
        });
        lanes.enqueue(this, ran::countDown);
        assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aRefusingExecutorDropsTheTasksWithoutThrowing() {
        executor.shutdown();
        PushLanes lanes = new PushLanes(executor, 1);
        AtomicInteger ran = new AtomicInteger();
        lanes.enqueue(this, ran::incrementAndGet);
        assertThat(ran).hasValue(0);
    }

    @Test
    void anIdleLaneRunsTheTaskAtOnceOnTheCallersThread() {
        PushLanes lanes = new PushLanes(executor, 1);
        Thread caller = Thread.currentThread();
        List<Thread> ranOn = new ArrayList<>();
        lanes.execute(this, () -> ranOn.add(Thread.currentThread()));
        lanes.execute(this, () -> {
            throw new IllegalStateException("expected by the test: a failure run at once is logged, not thrown");
        });
        assertThat(ranOn).containsExactly(caller);
    }

    @Test
    void aBusyLaneQueuesTheTaskBehindItsBacklogInOrder() throws Exception {
        PushLanes lanes = new PushLanes(executor, 1);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch blocking = new CountDownLatch(1);
        List<String> order = Collections.synchronizedList(new ArrayList<>());
        lanes.enqueue(this, () -> {
            blocking.countDown();
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
            order.add("first");
        });
        assertThat(blocking.await(10, TimeUnit.SECONDS)).isTrue();
        Thread caller = Thread.currentThread();
        List<Thread> ranOn = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch done = new CountDownLatch(1);
        lanes.execute(this, () -> {
            ranOn.add(Thread.currentThread());
            order.add("second");
            done.countDown();
        });
        assertThat(order).isEmpty();
        release.countDown();
        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(order).containsExactly("first", "second");
        assertThat(ranOn).doesNotContain(caller);
    }

    @Test
    void aThreadStopsPushingAtOnceWhenPushesTookHalfOfItsWindow() {
        long now = System.nanoTime();
        PushLanes.InlineBudget budget = new PushLanes.InlineBudget();
        assertThat(budget.allows(now)).isTrue();
        budget.spent(4_000_000);
        assertThat(budget.allows(now + 1_000_000)).isTrue();
        budget.spent(2_000_000);
        assertThat(budget.allows(now + 2_000_000)).isFalse();
        // A new window starts 10 ms after the last one did.
        assertThat(budget.allows(now + 20_000_000)).isTrue();
    }
}
