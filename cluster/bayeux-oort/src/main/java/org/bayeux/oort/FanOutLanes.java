package org.bayeux.oort;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers the messages that came from peers to this node's subscribers on a few threads, each message on the lane of
 * its channel: one channel's messages in the order they came (the origin's), different channels' in parallel.
 *
 * <p>Why: every forward from a peer comes in on one connection and is delivered by the thread that read it, so a node
 * fans out all of a peer's messages one after the other, however many cores it has, while its own publishers'
 * messages are fanned out by as many threads as they have connections. Sequence checks and duplicate drops stay on the
 * reading thread, in the origin's order; only the fan-out moves to a lane. The price: messages of one origin on
 * different channels may reach this node's subscribers in another order than they were published (a subscriber of
 * both channels sees it), which is why there is one lane, the reading thread, unless {@code oort.fanOutLanes} says
 * otherwise.</p>
 *
 * <p>Bounded: a lane holds at most {@value #LANE_CAPACITY} deliveries; when it is full, the reading thread waits for
 * room, so that a peer that sends faster than this node delivers is slowed by the connection (its link's queue, itself
 * bounded, fills) instead of filling this node's memory. With one lane, messages are delivered on the reading thread,
 * as before lanes existed.</p>
 */
final class FanOutLanes {
    private static final Logger LOG = LoggerFactory.getLogger(FanOutLanes.class);
    /** Deliveries a lane holds at most: two batches' worth. */
    static final int LANE_CAPACITY = 2 * ForwardQueue.MAX_BATCH;

    private final List<BlockingQueue<Runnable>> lanes = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean running = true;

    /**
     * @param count how many lanes (threads); 1 delivers on the caller's thread
     * @param name the threads' name prefix
     */
    FanOutLanes(int count, String name) {
        if (count < 1) {
            throw new IllegalArgumentException("at least one lane, not " + count);
        }
        if (count == 1) {
            return;
        }
        for (int i = 0; i < count; i++) {
            BlockingQueue<Runnable> lane = new ArrayBlockingQueue<>(LANE_CAPACITY);
            Thread thread = new Thread(() -> drain(lane), name + "-" + i);
            thread.setDaemon(true);
            lanes.add(lane);
            threads.add(thread);
            thread.start();
        }
    }

    /**
     * Runs a delivery on its channel's lane, after the ones queued there before it; waits while that lane is full.
     *
     * @param channel the message's channel
     * @param delivery the fan-out of one message
     */
    void deliver(String channel, Runnable delivery) {
        if (lanes.isEmpty()) {
            run(delivery);
            return;
        }
        BlockingQueue<Runnable> lane = lanes.get(Math.floorMod(mix(channel.hashCode()), lanes.size()));
        try {
            while (running) {
                if (lane.offer(delivery, 100, java.util.concurrent.TimeUnit.MILLISECONDS)) {
                    return;
                }
            }
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
        LOG.debug("A message from a peer was not delivered: this node's Oort is stopping");
    }

    /** Stops the lanes; what they still hold is not delivered (the node is stopping). */
    void stop() {
        running = false;
        threads.forEach(Thread::interrupt);
    }

    private void drain(BlockingQueue<Runnable> lane) {
        while (running) {
            Runnable delivery;
            try {
                delivery = lane.take();
            } catch (InterruptedException stopped) {
                return;
            }
            run(delivery);
        }
    }

    private static void run(Runnable delivery) {
        try {
            delivery.run();
        } catch (RuntimeException failure) {
            LOG.warn("Delivering a message from a peer failed", failure);
        }
    }

    /** Spreads hash codes that differ only in their high bits over the lanes. */
    private static int mix(int key) {
        int h = key * 0x9E3779B9;
        return h ^ (h >>> 16);
    }
}
