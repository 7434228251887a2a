package org.bayeux.load;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One load run: connects the clients over the ramp-up, joins their rooms, publishes open loop at the fixed rate
 * through the warm-up and the measured duration, waits for the deliveries under way, fetches the server's statistics
 * and disconnects. Every phase has a time limit.
 */
final class LoadRun implements LoadClient.Listener {
    /** The service a load server answers with its statistics. */
    static final String STATS_SERVICE = "/service/load/stats";
    private static final Logger LOG = LoggerFactory.getLogger(LoadRun.class);
    private static final Duration CONNECT_GRACE = Duration.ofSeconds(30);
    private static final Duration STATS_TIMEOUT = Duration.ofSeconds(30);
    private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final int MAX_ERROR_KINDS = 20;
    /** Server samples kept at most (one a second: over a day). */
    private static final int MAX_SERVER_SAMPLES = 100_000;

    private final LoadOptions options;
    private final ClientFactory factory;
    private final PrintStream progress;
    private final RoomPlan plan;
    private final DeliveryTracker tracker;
    private final LatencyRecorder latency = new LatencyRecorder();
    /** With several --url nodes: deliveries whose publisher was on the receiver's node, and those that crossed. */
    private final LatencyRecorder sameNode = new LatencyRecorder();
    private final LatencyRecorder crossNode = new LatencyRecorder();
    private final Payload payload;
    private final LoadClient[] clients;
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
    /** Phase boundaries, seconds since the start, for the report's bands; NaN until reached. */
    private volatile double connectedAt = Double.NaN;
    private volatile double publishAt = Double.NaN;
    private volatile double measureAt = Double.NaN;
    private volatile double measureEndAt = Double.NaN;
    private volatile double drainEndAt = Double.NaN;
    /** Per tick (the timer thread only): clients connected, errors so far. */
    private final List<long[]> perSecond = new ArrayList<>();
    /** Errors by kind (the message without its numbers), bounded: later kinds count as "other". */
    private final Map<String, LongAdder> errorKinds = new ConcurrentHashMap<>();
    /** The server's CPU and heap each second while publishing, when it has the statistics service. */
    private final List<Map<String, Object>> serverSamples = java.util.Collections.synchronizedList(new ArrayList<>());

    LoadRun(LoadOptions options, ClientFactory factory, PrintStream progress) {
        this.options = options;
        this.factory = factory;
        this.progress = progress;
        this.plan = new RoomPlan(options.rooms, options.roomsPerClient);
        this.tracker = new DeliveryTracker(plan, options.clients);
        this.payload = new Payload(options.sizeBytes);
        this.clients = new LoadClient[options.clients];
    }

    /**
     * Runs the whole load.
     *
     * @return what was measured
     * @throws InterruptedException if interrupted
     */
    LoadResult run() throws InterruptedException {
        startNanos = System.nanoTime();
        java.time.Instant startedAt = java.time.Instant.now();
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
                connectedAt = seconds(System.nanoTime());
            } else {
                connectAll(0, options.clients);
                connectedAt = seconds(System.nanoTime());
                // A baseline at the first publish: what the server spends from here on is the load's cost, apart
                // from what connecting (handshakes, upgrades, subscriptions) cost it.
                serverBefore = serverStats(false);
            }
            if (!options.idle) {
                publishOpenLoop();
                measureEndAt = seconds(System.nanoTime());
                drain();
                drainEndAt = seconds(System.nanoTime());
            }
            Map<String, Object> serverAfter = serverStats(options.idle);
            ticker.cancel(false);
            tick(false);
            ResourceUsage usage = ResourceUsage.now().since(usageAtStart);
            return new LoadResult(options, latency.total(), latency.timeline(), tracker.published(),
                    tracker.refused(), tracker.expected(), tracker.delivered(), tracker.duplicated(), errors.get(),
                    firstError.get(), usage, serverBefore, serverAfter,
                    options.urls.size() > 1 ? sameNode.total() : null,
                    options.urls.size() > 1 ? crossNode.total() : null,
                    new LoadResult.RunRecord(startedAt, phases(), connectedAndErrors(), errorKinds(),
                            serverSamples()));
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
        LoadClient session;
        try {
            session = factory.newClient(client, options.transport.transportOf(client), this);
        } catch (RuntimeException failure) {
            error("client " + client + " could not be created: " + failure);
            settle.run();
            return;
        }
        clients[client] = session;
        int[] rooms = plan.roomsOf(client);
        String[] channels = new String[rooms.length];
        for (int i = 0; i < rooms.length; i++) {
            channels[i] = RoomPlan.channel(rooms[i]);
        }
        try {
            session.start(channels, () -> {
                connected.incrementAndGet();
                settle.run();
            }, why -> {
                error("client " + client + ": " + why);
                settle.run();
            });
        } catch (RuntimeException failure) {
            error("client " + client + " could not start: " + failure);
            settle.run();
        }
    }

    @Override
    public void delivered(int client, long seq, long scheduled) {
        long now = System.nanoTime();
        if (tracker.delivered(client, seq)) {
            boolean measured = scheduled >= measureFromNanos;
            latency.received(now - scheduled, measured);
            if (options.urls.size() > 1) {
                // The publisher of a message follows from its number (see publishBatch), its node from its index.
                boolean same = options.nodeOf(publisherOf(seq)) == options.nodeOf(client);
                (same ? sameNode : crossNode).received(now - scheduled, measured);
            }
        }
    }

    @Override
    public void error(int client, String what) {
        error("client " + client + ": " + what);
    }

    @Override
    public void refused(int client, long seq, String why) {
        tracker.refused(seq);
        error("publish " + seq + " failed: " + why);
    }

    /**
     * Publishes {@code rate} messages a second, open loop: each tick sends every message whose scheduled time has
     * come, stamped with that time, whether or not earlier publishes were answered.
     */
    private void publishOpenLoop() throws InterruptedException {
        long begin = System.nanoTime();
        publishAt = seconds(begin);
        measureAt = seconds(begin + options.warmUp.toNanos());
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

    /** @return the index of the client that publishes message {@code seq}: batches go round the publishers */
    private int publisherOf(long seq) {
        return (int) ((seq / options.batch) % options.publishers);
    }

    private void publishBatch(long first, long last, long begin, double nanosPerMessage) {
        int publisherIndex = publisherOf(first);
        LoadClient publisher = clients[publisherIndex];
        LoadClient.Publish[] publishes = new LoadClient.Publish[(int) (last - first)];
        for (long seq = first; seq < last; seq++) {
            long scheduled = begin + (long) (seq * nanosPerMessage);
            tracker.published(seq);
            publishes[(int) (seq - first)] = new LoadClient.Publish(RoomPlan.channel(plan.roomOf(seq)), seq, scheduled);
        }
        publisher.publish(publishes, payload);
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
        LoadClient asker = clients[0];
        if (asker == null) {
            return Map.of();
        }
        CountDownLatch answered = new CountDownLatch(1);
        AtomicReference<Map<String, Object>> stats = new AtomicReference<>(Map.of());
        asker.askStats(fullGc, answer -> {
            stats.set(answer);
            answered.countDown();
        });
        if (!answered.await(STATS_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            LOG.info("No answer from {} within {}", STATS_SERVICE, STATS_TIMEOUT);
        }
        return stats.get();
    }

    private void disconnectAll() throws InterruptedException {
        CountDownLatch disconnected = new CountDownLatch(options.clients);
        for (LoadClient client : clients) {
            if (client == null) {
                disconnected.countDown();
                continue;
            }
            try {
                client.disconnect(disconnected::countDown);
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
        tick(!options.quiet);
    }

    /** Closes a second of the timeline; the timer thread, or the run's thread once the timer is cancelled. */
    private synchronized void tick(boolean print) {
        LatencyRecorder.Interval interval = latency.tick(seconds(System.nanoTime()));
        sameNode.tick(interval.atSeconds());
        crossNode.tick(interval.atSeconds());
        perSecond.add(new long[] {connected.get(), errors.get()});
        sampleServer();
        if (print) {
            long now = System.nanoTime();
            String phase = measureFromNanos == 0 ? "connecting" : now < measureFromNanos ? "warm-up"
                    : !Double.isNaN(measureEndAt) ? "draining" : "measuring";
            progress.printf("%6.0fs %-10s clients %d/%d  sent %,d/s  received %,d/s  p50 %.2f ms  p99 %.2f ms  "
                            + "errors %d  left %s%n", interval.atSeconds(), phase, connected.get(), options.clients,
                    interval.sent(), interval.received(), interval.p50Millis(), interval.p99Millis(), errors.get(),
                    timeLeft(now));
        }
    }

    /**
     * Asks the server for its CPU and heap, while publishing (not in idle mode, whose heap figures need quiet), through
     * client 1: client 0 asks for the before and after statistics, and a client has one pending question at a time.
     */
    private void sampleServer() {
        if (options.idle || clients.length < 2 || clients[1] == null || measureFromNanos == 0
                || !Double.isNaN(measureEndAt) || serverSamples.size() >= MAX_SERVER_SAMPLES) {
            return;
        }
        try {
            clients[1].askStats(false, stats -> {
                if (stats.get("processCpuSeconds") instanceof Number cpu
                        && stats.get("heapUsedBytes") instanceof Number heap) {
                    Map<String, Object> sample = new LinkedHashMap<>();
                    sample.put("t", Math.round(seconds(System.nanoTime()) * 100) / 100.0);
                    sample.put("cpuSeconds", cpu.doubleValue());
                    sample.put("heapUsedBytes", heap.longValue());
                    serverSamples.add(sample);
                }
            });
        } catch (RuntimeException failure) {
            LOG.debug("Server sample failed", failure);
        }
    }

    /**
     * @return the time left at most: the planned phases from where the run is (the ramp-up may end early, the drain
     *         ends as soon as every delivery arrived)
     */
    private String timeLeft(long now) {
        long planned;
        if (measureFromNanos == 0) {
            planned = startNanos + options.rampUp.toNanos() + (options.idle ? 0
                    : options.warmUp.toNanos() + options.duration.toNanos() + options.drain.toNanos());
        } else if (Double.isNaN(measureEndAt)) {
            planned = measureFromNanos + options.duration.toNanos() + options.drain.toNanos();
        } else {
            planned = startNanos + (long) (measureEndAt * 1e9) + options.drain.toNanos();
        }
        long seconds = Math.max(0, (planned - now) / 1_000_000_000L);
        return String.format(java.util.Locale.ROOT, "%d:%02d", seconds / 60, seconds % 60);
    }

    private Map<String, Double> phases() {
        Map<String, Double> phases = new LinkedHashMap<>();
        phases.put("connectedAt", connectedAt);
        phases.put("publishAt", publishAt);
        phases.put("measureAt", measureAt);
        phases.put("measureEndAt", measureEndAt);
        phases.put("drainEndAt", drainEndAt);
        phases.values().removeIf(value -> value.isNaN());
        return phases;
    }

    private List<Map<String, Object>> serverSamples() {
        synchronized (serverSamples) {
            return List.copyOf(serverSamples);
        }
    }

    private synchronized List<long[]> connectedAndErrors() {
        return List.copyOf(perSecond);
    }

    private Map<String, Long> errorKinds() {
        Map<String, Long> kinds = new java.util.TreeMap<>();
        errorKinds.forEach((kind, count) -> kinds.put(kind, count.sum()));
        return kinds;
    }

    /** @return the error's kind: its text without client numbers, sequence numbers and the like, shortened */
    static String kindOf(String what) {
        String kind = what.replaceAll("\\d+", "#");
        return kind.length() > 120 ? kind.substring(0, 120) + "…" : kind;
    }

    private double seconds(long nanos) {
        return (nanos - startNanos) / 1e9;
    }

    private void error(String what) {
        errors.incrementAndGet();
        String kind = kindOf(what);
        LongAdder count = errorKinds.get(kind);
        if (count == null) {
            count = errorKinds.size() < MAX_ERROR_KINDS ? errorKinds.computeIfAbsent(kind, k -> new LongAdder())
                    : errorKinds.computeIfAbsent("other", k -> new LongAdder());
        }
        count.increment();
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
