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
                lanes.execute(keys[k], () -> {
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
        lanes.execute(this, () -> {
            throw new IllegalStateException("expected by the test");
        });
        lanes.execute(this, ran::countDown);
        assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aRefusingExecutorDropsTheTasksWithoutThrowing() {
        executor.shutdown();
        PushLanes lanes = new PushLanes(executor, 1);
        AtomicInteger ran = new AtomicInteger();
        lanes.execute(this, ran::incrementAndGet);
        assertThat(ran).hasValue(0);
    }
}
