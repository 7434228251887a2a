package org.bayeux.load;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.bayeux.api.Message;
import org.bayeux.api.client.ClientSession;
import org.bayeux.api.client.ClientSessionChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One load run: connects the clients over the ramp-up, joins their rooms, publishes open loop at the fixed rate
 * through the warm-up and the measured duration, waits for the deliveries under way, fetches the server's statistics
 * and disconnects. Every phase has a time limit.
 */
final class LoadRun {
    /** The service a load server answers with its statistics. */
    static final String STATS_SERVICE = "/service/load/stats";
    private static final Logger LOG = LoggerFactory.getLogger(LoadRun.class);
    private static final Duration CONNECT_GRACE = Duration.ofSeconds(30);
    private static final Duration STATS_TIMEOUT = Duration.ofSeconds(30);
    private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final LoadOptions options;
    private final ClientFactory factory;
    private final PrintStream progress;
    private final RoomPlan plan;
    private final DeliveryTracker tracker;
    private final LatencyRecorder latency = new LatencyRecorder();
    private final Payload payload;
    private final ClientSession[] clients;
    private final AtomicInteger connected = new AtomicInteger();
    private final AtomicLong errors = new AtomicLong();
    private final AtomicReference<String> firstError = new AtomicReference<>();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "load-timer");
        thread.setDaemon(true);
        return thread;
    });
    private volatile long startNanos;
    private volatile long measureFromNanos;

    LoadRun(LoadOptions options, ClientFactory factory, PrintStream progress) {
        this.options = options;
        this.factory = factory;
        this.progress = progress;
        this.plan = new RoomPlan(options.rooms, options.roomsPerClient);
        this.tracker = new DeliveryTracker(plan, options.clients);
        this.payload = new Payload(options.sizeBytes);
        this.clients = new ClientSession[options.clients];
    }

    /**
     * Runs the whole load.
     *
     * @return what was measured
     * @throws InterruptedException if interrupted
     */
    LoadResult run() throws InterruptedException {
        startNanos = System.nanoTime();
        ResourceUsage usageAtStart = ResourceUsage.now();
        ScheduledFuture<?> ticker = timer.scheduleAtFixedRate(this::tick, 1, 1, TimeUnit.SECONDS);
        try {
            Map<String, Object> serverBefore = Map.of();
            if (options.idle) {
                // The baseline is the server with one client, the one that asks for the statistics: the heap per
                // client is then what each of the others adds.
                connectAll(0, 1);
                serverBefore = serverStats(true);
                connectAll(1, options.clients);
            } else {
                connectAll(0, options.clients);
            }
            if (!options.idle) {
                publishOpenLoop();
                drain();
            }
            Map<String, Object> serverAfter = serverStats(options.idle);
            ticker.cancel(false);
            latency.tick(seconds(System.nanoTime()));
            ResourceUsage usage = ResourceUsage.now().since(usageAtStart);
            return new LoadResult(options, latency.total(), latency.timeline(), tracker.published(),
                    tracker.refused(), tracker.expected(), tracker.delivered(), tracker.duplicated(), errors.get(),
                    firstError.get(), usage, serverBefore, serverAfter);
        } finally {
            ticker.cancel(false);
            disconnectAll();
            timer.shutdownNow();
        }
    }

    /**
     * Connects clients {@code from} (inclusive) to {@code to} (exclusive), spread over the ramp-up, and waits until
     * each has succeeded or failed.
     *
     * @throws LoadFailure if any of them did not connect and join its rooms in time
     */
    private void connectAll(int from, int to) throws InterruptedException {
        int count = to - from;
        if (count <= 0) {
            return;
        }
        CountDownLatch settled = new CountDownLatch(count);
        long rampNanos = count == 1 ? 0 : options.rampUp.toNanos();
        for (int c = from; c < to; c++) {
            int client = c;
            long delay = rampNanos * (c - from) / count;
            timer.schedule(() -> connect(client, settled), delay, TimeUnit.NANOSECONDS);
        }
        settled.await(rampNanos + CONNECT_GRACE.toNanos(), TimeUnit.NANOSECONDS);
        if (connected.get() != to) {
            throw new LoadFailure("only " + connected.get() + " of " + options.clients
                    + " clients connected and joined their rooms within the ramp-up + " + CONNECT_GRACE.toSeconds()
                    + "s" + (firstError.get() == null ? "" : "; first error: " + firstError.get()));
        }
    }

    /** Connects one client and joins its rooms; counts {@code settled} down once, on success or first failure. */
    private void connect(int client, CountDownLatch settled) {
        AtomicBoolean done = new AtomicBoolean();
        Runnable settle = () -> {
            if (done.compareAndSet(false, true)) {
                settled.countDown();
            }
        };
        ClientSession session;
        try {
            session = factory.newClient(client, options.transport.transportOf(client));
        } catch (RuntimeException failure) {
            error("client " + client + " could not be created: " + failure);
            settle.run();
            return;
        }
        clients[client] = session;
        int[] rooms = plan.roomsOf(client);
        ClientSessionChannel.MessageListener onDelivery = (channel, message) -> delivered(client, message);
        session.handshake(null, (channel, reply) -> {
            if (!reply.isSuccessful()) {
                error("handshake of client " + client + " failed: " + why(reply));
                settle.run();
                return;
            }
            AtomicInteger joined = new AtomicInteger();
            for (int room : rooms) {
                session.getChannel(RoomPlan.channel(room)).subscribe(onDelivery, (subscribe, subscribed) -> {
                    if (!subscribed.isSuccessful()) {
                        error("client " + client + " could not join room " + room + ": " + why(subscribed));
                        settle.run();
                    } else if (joined.incrementAndGet() == rooms.length) {
                        connected.incrementAndGet();
                        settle.run();
                    }
                });
            }
        });
    }

    private void delivered(int client, Message message) {
        long now = System.nanoTime();
        Object data = message.getData();
        long seq = Payload.seq(data);
        long scheduled = Payload.scheduledNanos(data);
        if (seq < 0 || scheduled < 0) {
            error("client " + client + " received a message that is not the load's: " + message);
            return;
        }
        if (tracker.delivered(client, seq)) {
            latency.received(now - scheduled, scheduled >= measureFromNanos);
        }
    }

    /**
     * Publishes {@code rate} messages a second, open loop: each tick sends every message whose scheduled time has
     * come, stamped with that time, whether or not earlier publishes were answered.
     */
    private void publishOpenLoop() throws InterruptedException {
        long begin = System.nanoTime();
        measureFromNanos = begin + options.warmUp.toNanos();
        long end = measureFromNanos + options.duration.toNanos();
        double nanosPerMessage = 1e9 / options.rate;
        long total = (long) Math.floor((end - begin) / nanosPerMessage);
        AtomicLong next = new AtomicLong();
        CountDownLatch finished = new CountDownLatch(1);
        ScheduledFuture<?> publisher = timer.scheduleAtFixedRate(() -> {
            long now = System.nanoTime();
            long due = Math.min(total, (long) Math.floor((now - begin) / nanosPerMessage) + 1);
            // Whole batches only, but the last one may be short.
            long seq = next.get();
            while (seq < due && (due - seq >= options.batch || due == total)) {
                long first = seq;
                long last = Math.min(due, first + options.batch);
                publishBatch(first, last, begin, nanosPerMessage);
                seq = last;
            }
            next.set(seq);
            if (seq >= total) {
                finished.countDown();
            }
        }, 0, TICK_NANOS, TimeUnit.NANOSECONDS);
        try {
            long limit = end - System.nanoTime() + CONNECT_GRACE.toNanos();
            if (!finished.await(Math.max(0, limit), TimeUnit.NANOSECONDS)) {
                error("the publisher fell behind: " + next.get() + " of " + total + " messages sent");
            }
        } finally {
            publisher.cancel(false);
        }
    }

    private void publishBatch(long first, long last, long begin, double nanosPerMessage) {
        int publisherIndex = (int) ((first / options.batch) % options.publishers);
        ClientSession publisher = clients[publisherIndex];
        publisher.batch(() -> {
            for (long seq = first; seq < last; seq++) {
                long scheduled = begin + (long) (seq * nanosPerMessage);
                long message = seq;
                tracker.published(message);
                publisher.getChannel(RoomPlan.channel(plan.roomOf(message)))
                        .publish(payload.data(message, scheduled), (channel, reply) -> {
                            if (!reply.isSuccessful()) {
                                tracker.refused(message);
                                error("publish " + message + " failed: " + why(reply));
                            }
                        });
            }
        });
        latency.sent((int) (last - first));
    }

    /** Waits, up to {@code --drain}, for the deliveries still expected. */
    private void drain() throws InterruptedException {
        long deadline = System.nanoTime() + options.drain.toNanos();
        while (tracker.delivered() < tracker.expected() && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(50);
        }
    }

    /**
     * Asks the server for its statistics, through the load server's service; another server (CometD's reference
     * server has the same service) or none gives an empty map.
     */
    private Map<String, Object> serverStats(boolean fullGc) throws InterruptedException {
        ClientSession asker = clients[0];
        if (asker == null) {
            return Map.of();
        }
        CountDownLatch answered = new CountDownLatch(1);
        AtomicReference<Map<String, Object>> stats = new AtomicReference<>(Map.of());
        asker.remoteCall(STATS_SERVICE, Map.of("gc", fullGc), (channel, reply) -> {
            if (reply.isSuccessful() && reply.getData() instanceof Map<?, ?> data) {
                @SuppressWarnings("unchecked")
                Map<String, Object> map = (Map<String, Object>) data;
                stats.set(map);
            } else {
                LOG.info("No server statistics from {}: {}", STATS_SERVICE, reply.get(Message.ERROR_FIELD));
            }
            answered.countDown();
        });
        if (!answered.await(STATS_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            LOG.info("No answer from {} within {}", STATS_SERVICE, STATS_TIMEOUT);
        }
        return stats.get();
    }

    private void disconnectAll() throws InterruptedException {
        CountDownLatch disconnected = new CountDownLatch(options.clients);
        for (ClientSession client : clients) {
            if (client == null) {
                disconnected.countDown();
                continue;
            }
            try {
                client.disconnect((channel, reply) -> disconnected.countDown());
            } catch (RuntimeException failure) {
                LOG.debug("Disconnect failed", failure);
                disconnected.countDown();
            }
        }
        if (!disconnected.await(10, TimeUnit.SECONDS)) {
            LOG.info("{} clients did not confirm their disconnect within 10s", disconnected.getCount());
        }
    }

    private void tick() {
        LatencyRecorder.Interval interval = latency.tick(seconds(System.nanoTime()));
        if (!options.quiet) {
            String phase = measureFromNanos == 0 ? "connecting" : System.nanoTime() < measureFromNanos ? "warm-up"
                    : "measuring";
            progress.printf("%6.0fs %-10s clients %d/%d  sent %,d/s  received %,d/s  p50 %.2f ms  p99 %.2f ms  "
                            + "errors %d%n", interval.atSeconds(), phase, connected.get(), options.clients,
                    interval.sent(), interval.received(), interval.p50Millis(), interval.p99Millis(), errors.get());
        }
    }

    /** @return a failed reply's error, and the cause a client adds to the replies it makes up itself */
    private static String why(Message reply) {
        Object cause = reply.get("failure");
        return reply.get(Message.ERROR_FIELD) + (cause == null ? "" : " (" + cause + ")");
    }

    private double seconds(long nanos) {
        return (nanos - startNanos) / 1e9;
    }

    private void error(String what) {
        errors.incrementAndGet();
        if (firstError.compareAndSet(null, what)) {
            LOG.warn("First error: {}", what);
        } else {
            LOG.debug(what);
        }
    }

    /** The run could not be carried out (as opposed to a run that measured losses). */
    static final class LoadFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        LoadFailure(String message) {
            super(message);
        }
    }
}
