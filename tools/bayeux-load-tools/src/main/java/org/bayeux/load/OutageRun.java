package org.bayeux.load;

import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

import org.HdrHistogram.Histogram;
import org.bayeux.api.Message;
import org.bayeux.client.BayeuxClient;
import org.bayeux.client.BayeuxClientConfig;
import org.bayeux.client.ClientResources;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code bin/bayeux load --outage D} (our client only): N subscribers reach their nodes through a {@link CuttingProxy}
 * each node has in this process; P publishers, extra clients that connect directly, publish open loop at the rate
 * through the warm-up, the outage and the duration. At the end of the warm-up every subscriber's connection is reset
 * and new ones refused for the outage; then the subscribers reconnect by themselves (their back-off, their recovery
 * extension) and the run measures, per subscriber, what it had missed when it reconnected, what of it arrived, in
 * which order, with which {@code recovered} flag, and how long after its reconnection the last missed message came.
 * Those per-subscriber checks are {@link OutageSubscriber}'s; this class drives the clients, the proxies and the
 * publishing, keeps the run-wide counts, and sums it all up as the result.
 */
final class OutageRun {
    private static final Logger LOG = LoggerFactory.getLogger(OutageRun.class);
    private static final Duration CONNECT_GRACE = Duration.ofSeconds(30);
    private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final LoadOptions options;
    private final PrintStream progress;
    private final RoomPlan plan;
    private final Payload payload;
    private final OutageSubscriber[] subs;
    private final BayeuxClient[] publishers;
    private final AtomicLong nextSeq = new AtomicLong();
    private final AtomicLongArray publishedPerRoom;
    private final AtomicLongArray refusedPerRoom;
    /** Refused sequence numbers. Guarded by itself. */
    private final BitSet refused = new BitSet();
    private final AtomicLong errors = new AtomicLong();
    /** The first duplicates, described (no message bodies), for whoever looks into them. */
    private final List<Map<String, Object>> duplicates = java.util.Collections.synchronizedList(new ArrayList<>());
    private final AtomicReference<String> firstError = new AtomicReference<>();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "outage-timer");
        thread.setDaemon(true);
        return thread;
    });
    private volatile long cutAt;
    private volatile long restoredAt;
    /** When the run started (the report's run date); its clock (the report's time axis) is the timeline's. */
    private final java.time.Instant startedAt = java.time.Instant.now();
    private final OutageTimeline timeline = new OutageTimeline(nextSeq::get, errors::get, this::connectedSubscribers);
    private volatile long publishAt;
    private volatile long endAt;
    private volatile long drainEndAt;

    OutageRun(LoadOptions options, PrintStream progress) {
        this.options = options;
        this.progress = progress;
        this.plan = new RoomPlan(options.rooms, options.roomsPerClient);
        this.payload = new Payload(options.sizeBytes);
        this.subs = new OutageSubscriber[options.clients];
        this.publishers = new BayeuxClient[options.publishers];
        this.publishedPerRoom = new AtomicLongArray(options.rooms);
        this.refusedPerRoom = new AtomicLongArray(options.rooms);
    }

    private boolean isRefused(long seq) {
        synchronized (refused) {
            return refused.get((int) seq);
        }
    }

    private long expected(int[] rooms) {
        long sum = 0;
        for (int room : rooms) {
            sum += publishedPerRoom.get(room) - refusedPerRoom.get(room);
        }
        return sum;
    }

    /**
     * @return the result, as written to {@code result.json}
     * @throws LoadRun.LoadFailure if the clients could not connect
     */
    Map<String, Object> run() throws InterruptedException {
        List<CuttingProxy> proxies = new ArrayList<>();
        ClientResources resources = ClientResources.builder().maxThreads(Math.max(4, options.threads))
                .maxConnectionsPerServer(Math.max(1024, 4 * (options.clients + options.publishers)))
                .idleTimeout(Duration.ofMinutes(2)).build();
        ScheduledFuture<?> sampling = timer.scheduleAtFixedRate(timeline::sample, 1, 1, TimeUnit.SECONDS);
        try {
            for (URI url : options.urls) {
                int port = url.getPort() > 0 ? url.getPort() : "https".equalsIgnoreCase(url.getScheme()) ? 443 : 80;
                proxies.add(new CuttingProxy(new InetSocketAddress(url.getHost(), port),
                        4 * options.clients + 64));
            }
            connect(resources, proxies);
            publishThroughOutage(proxies);
            drain();
            drainEndAt = System.nanoTime();
            sampling.cancel(false);
            timeline.sample();
            return result(proxies);
        } catch (java.io.IOException failure) {
            throw new LoadRun.LoadFailure("cannot start the outage proxies: " + failure.getMessage());
        } finally {
            sampling.cancel(false);
            disconnectAll();
            timer.shutdownNow();
            resources.close();
            proxies.forEach(CuttingProxy::close);
        }
    }

    private void connect(ClientResources resources, List<CuttingProxy> proxies) throws InterruptedException {
        int total = options.clients + options.publishers;
        CountDownLatch settled = new CountDownLatch(total);
        AtomicInteger ready = new AtomicInteger();
        long rampNanos = options.rampUp.toNanos();
        for (int i = 0; i < total; i++) {
            int client = i;
            timer.schedule(() -> {
                try {
                    if (client < options.clients) {
                        startSubscriber(resources, proxies, client, ready, settled);
                    } else {
                        startPublisher(resources, client - options.clients, ready, settled);
                    }
                } catch (RuntimeException failure) {
                    error("client " + client + " could not start: " + failure);
                    settled.countDown();
                }
            }, rampNanos * i / total, TimeUnit.NANOSECONDS);
        }
        settled.await(rampNanos + CONNECT_GRACE.toNanos(), TimeUnit.NANOSECONDS);
        if (ready.get() != total) {
            throw new LoadRun.LoadFailure("only " + ready.get() + " of " + total + " clients (subscribers and "
                    + "publishers) connected within the ramp-up + " + CONNECT_GRACE.toSeconds() + "s"
                    + (firstError.get() == null ? "" : "; first error: " + firstError.get()));
        }
    }

    private void startSubscriber(ClientResources resources, List<CuttingProxy> proxies, int index,
            AtomicInteger ready, CountDownLatch settled) {
        URI direct = options.urlOf(index);
        int proxyPort = proxies.get(options.nodeOf(index)).port();
        String viaProxy = direct.getScheme() + "://127.0.0.1:" + proxyPort + (direct.getRawPath() == null ? ""
                : direct.getRawPath());
        OutageSubscriber sub = new OutageSubscriber(index, options.transport.transportOf(index), plan,
                nextSeq::get, this::isRefused, timeline, duplicates);
        subs[index] = sub;
        BayeuxClientConfig.Builder config = BayeuxClientConfig.builder(viaProxy)
                .transports(options.transport.transportOf(index));
        if (options.maxBackoff != null) {
            config.backoff(Duration.ofMillis(500), options.maxBackoff);
        }
        BayeuxClient client = new BayeuxClient(config.build(), resources);
        sub.client = client;
        org.bayeux.api.client.ClientSessionChannel.MessageListener alive = (channel, reply) -> {
            if (reply.isSuccessful() && restoredAt != 0) {
                sub.reconnected(System.nanoTime());
            }
        };
        client.getChannel(Message.META_HANDSHAKE).addListener(alive);
        client.getChannel(Message.META_CONNECT).addListener(alive);
        client.getChannel(Message.META_SUBSCRIBE).addListener((channel, reply) -> {
            Map<String, Object> ext = reply.getExt();
            Object recovery = ext == null ? null : ext.get("recovery");
            if (cutAt != 0 && reply.isSuccessful() && recovery instanceof Map<?, ?> outcome
                    && outcome.get("recovered") instanceof Boolean flag) {
                sub.flag(flag);
            }
        });
        org.bayeux.api.client.ClientSessionChannel.MessageListener onDelivery = (channel, message) -> {
            long now = System.nanoTime();
            long seq = Payload.seq(message.getData());
            if (seq < 0) {
                error("subscriber " + index + " received a message that is not the load's");
                return;
            }
            if (restoredAt != 0) {
                sub.reconnected(now);
            }
            Map<String, Object> ext = message.getExt();
            sub.delivered(message.getChannel(), seq, ext == null ? null : ext.get("position"), now);
        };
        client.handshake(null, (channel, reply) -> {
            if (!reply.isSuccessful()) {
                error("subscriber " + index + " handshake failed: " + reply.get(Message.ERROR_FIELD));
                settled.countDown();
                return;
            }
            AtomicInteger joined = new AtomicInteger();
            for (int room : sub.rooms) {
                client.getChannel(RoomPlan.channel(room)).subscribe(onDelivery, (subscribe, subscribed) -> {
                    if (!subscribed.isSuccessful()) {
                        error("subscriber " + index + " could not join room " + room);
                        settled.countDown();
                    } else if (joined.incrementAndGet() == sub.rooms.length) {
                        ready.incrementAndGet();
                        settled.countDown();
                    }
                });
            }
        });
    }

    private void startPublisher(ClientResources resources, int index, AtomicInteger ready, CountDownLatch settled) {
        BayeuxClient client = new BayeuxClient(BayeuxClientConfig.builder(options.urlOf(index).toString())
                .transports(options.transport.transportOf(index)).maxPendingMessages(options.maxPending).build(),
                resources);
        publishers[index] = client;
        client.handshake(null, (channel, reply) -> {
            if (reply.isSuccessful()) {
                ready.incrementAndGet();
            } else {
                error("publisher " + index + " handshake failed: " + reply.get(Message.ERROR_FIELD));
            }
            settled.countDown();
        });
    }

    /** Publishes open loop through warm-up, outage and duration; cuts and restores the proxies on schedule. */
    private void publishThroughOutage(List<CuttingProxy> proxies) throws InterruptedException {
        long begin = System.nanoTime();
        long cut = begin + options.warmUp.toNanos();
        long restore = cut + options.outage.toNanos();
        long end = restore + options.duration.toNanos();
        publishAt = begin;
        endAt = end;
        double nanosPerMessage = 1e9 / options.rate;
        long total = (long) Math.floor((end - begin) / nanosPerMessage);
        CountDownLatch finished = new CountDownLatch(1);
        ScheduledFuture<?> publishing = timer.scheduleAtFixedRate(() -> {
            long due = Math.min(total, (long) Math.floor((System.nanoTime() - begin) / nanosPerMessage) + 1);
            long seq = nextSeq.get();
            while (seq < due && (due - seq >= options.batch || due == total)) {
                long last = Math.min(due, seq + options.batch);
                publishBatch(seq, last, begin, nanosPerMessage);
                seq = last;
            }
            if (seq >= total) {
                finished.countDown();
            }
        }, 0, TICK_NANOS, TimeUnit.NANOSECONDS);
        try {
            sleepUntil(cut);
            cutAt = System.nanoTime();
            for (CuttingProxy proxy : proxies) {
                proxy.cut();
            }
            status("cut every subscriber's connection");
            sleepUntil(restore);
            restoredAt = System.nanoTime();
            proxies.forEach(CuttingProxy::restore);
            status("connections accepted again");
            if (!finished.await(Math.max(0, end - System.nanoTime()) + CONNECT_GRACE.toNanos(),
                    TimeUnit.NANOSECONDS)) {
                error("the publisher fell behind: " + nextSeq.get() + " of " + total + " messages sent");
            }
        } finally {
            publishing.cancel(false);
        }
    }

    private void publishBatch(long first, long last, long begin, double nanosPerMessage) {
        BayeuxClient publisher = publishers[(int) ((first / options.batch) % options.publishers)];
        publisher.batch(() -> {
            for (long seq = first; seq < last; seq++) {
                long number = seq;
                int room = plan.roomOf(seq);
                publishedPerRoom.incrementAndGet(room);
                // Counted as published before it is sent: a reconnecting subscriber may then miss it.
                nextSeq.set(seq + 1);
                publisher.getChannel(RoomPlan.channel(room)).publish(
                        payload.data(seq, begin + (long) (seq * nanosPerMessage)), (channel, reply) -> {
                            if (!reply.isSuccessful()) {
                                refuse(number, room, String.valueOf(reply.get(Message.ERROR_FIELD)));
                            }
                        });
            }
        });
    }

    private void refuse(long seq, int room, String why) {
        synchronized (refused) {
            refused.set((int) seq);
        }
        refusedPerRoom.incrementAndGet(room);
        error("publish " + seq + " refused: " + why);
        for (OutageSubscriber sub : subs) {
            if (sub != null) {
                sub.forgive(seq);
            }
        }
    }

    /** Waits, up to {@code --drain} after the last publish, until every subscriber has everything it should. */
    private void drain() throws InterruptedException {
        long deadline = System.nanoTime() + options.drain.toNanos();
        while (System.nanoTime() < deadline) {
            boolean all = true;
            for (OutageSubscriber sub : subs) {
                all &= sub.done(expected(sub.rooms));
            }
            if (all) {
                return;
            }
            TimeUnit.MILLISECONDS.sleep(50);
        }
    }

    private Map<String, Object> result(List<CuttingProxy> proxies) {
        Histogram recovery = new Histogram(3_600_000_000L, 3);
        Histogram reconnect = new Histogram(3_600_000_000L, 3);
        long expected = 0;
        long delivered = 0;
        long duplicated = 0;
        long outOfOrder = 0;
        long missed = 0;
        long recovered = 0;
        long minMissed = Long.MAX_VALUE;
        long maxMissed = 0;
        int reconnected = 0;
        int fullyRecovered = 0;
        int flagTrue = 0;
        int flagFalse = 0;
        int noFlag = 0;
        boolean positions = false;
        for (OutageSubscriber sub : subs) {
            synchronized (sub) {
                expected += expected(sub.rooms);
                delivered += sub.unique;
                duplicated += sub.duplicated;
                outOfOrder += sub.outOfOrder;
                positions |= !sub.lastPosition.isEmpty();
                flagTrue += sub.flagTrue;
                flagFalse += sub.flagFalse;
                if (sub.flagTrue + sub.flagFalse == 0) {
                    noFlag++;
                }
                if (sub.reconnectedAt == 0) {
                    continue;
                }
                reconnected++;
                reconnect.recordValue(Math.max(0, (sub.reconnectedAt - restoredAt) / 1000));
                missed += sub.missed;
                recovered += sub.recovered;
                minMissed = Math.min(minMissed, sub.missed);
                maxMissed = Math.max(maxMissed, sub.missed);
                if (sub.outstanding == 0) {
                    fullyRecovered++;
                    if (sub.missed > 0) {
                        recovery.recordValue(Math.max(0, (sub.recoveryDoneAt - sub.reconnectedAt) / 1000));
                    }
                }
            }
        }
        long published = nextSeq.get();
        long refusedCount;
        synchronized (refused) {
            refusedCount = refused.cardinality();
        }
        Map<String, Object> configuration = new LinkedHashMap<>();
        configuration.put("label", options.label());
        configuration.put("urls", options.urls.stream().map(URI::toString).toList());
        configuration.put("client", options.client.toString());
        configuration.put("transport", options.transport.toString());
        configuration.put("subscribers", options.clients);
        configuration.put("publishers", options.publishers);
        configuration.put("rooms", options.rooms);
        configuration.put("roomsPerClient", options.roomsPerClient);
        configuration.put("rate", options.rate);
        configuration.put("sizeBytes", options.sizeBytes);
        configuration.put("batch", options.batch);
        configuration.put("warmUpMillis", options.warmUp.toMillis());
        configuration.put("outageMillis", options.outage.toMillis());
        configuration.put("durationMillis", options.duration.toMillis());
        configuration.put("drainMillis", options.drain.toMillis());
        Map<String, Object> messages = new LinkedHashMap<>();
        messages.put("published", published);
        messages.put("refused", refusedCount);
        messages.put("expected", expected);
        messages.put("delivered", delivered);
        messages.put("lost", expected - delivered);
        messages.put("duplicated", duplicated);
        messages.put("outOfOrder", outOfOrder);
        messages.put("orderCheckedBy", positions ? "ext.position offsets per channel"
                : "sequence numbers per channel (exact with one publisher per room only)");
        Map<String, Object> outcome = new LinkedHashMap<>();
        outcome.put("subscribersReconnected", reconnected);
        outcome.put("subscribersNotReconnected", options.clients - reconnected);
        outcome.put("missed", missed);
        outcome.put("missedPerSubscriberMin", reconnected == 0 ? 0 : minMissed);
        outcome.put("missedPerSubscriberMean", reconnected == 0 ? 0.0 : (double) missed / reconnected);
        outcome.put("missedPerSubscriberMax", maxMissed);
        outcome.put("recovered", recovered);
        outcome.put("recoveredPercent", missed == 0 ? 100.0 : 100.0 * recovered / missed);
        outcome.put("subscribersFullyRecovered", fullyRecovered);
        outcome.put("recoveredFlagTrue", flagTrue);
        outcome.put("recoveredFlagFalse", flagFalse);
        outcome.put("subscribersWithoutFlag", noFlag);
        outcome.put("recoveryMillisP50", millis(recovery, 50));
        outcome.put("recoveryMillisP99", millis(recovery, 99));
        outcome.put("recoveryMillisMax", recovery.getTotalCount() == 0 ? 0.0 : recovery.getMaxValue() / 1000.0);
        outcome.put("recoveryMeasuredSubscribers", recovery.getTotalCount());
        outcome.put("reconnectAfterRestoreMillisP50", millis(reconnect, 50));
        outcome.put("reconnectAfterRestoreMillisP99", millis(reconnect, 99));
        outcome.put("proxyResets", proxies.stream().mapToLong(CuttingProxy::resets).sum());
        Map<String, Object> run = new LinkedHashMap<>();
        run.put("date", startedAt.toString());
        run.put("commit", LoadResult.commit());
        // Seconds since the start; the report shades them as phases, the outage among them.
        Map<String, Object> phases = new LinkedHashMap<>();
        phases.put("connectedAt", timeline.seconds(publishAt));
        phases.put("cutAt", timeline.seconds(cutAt));
        phases.put("restoredAt", timeline.seconds(restoredAt));
        phases.put("publishEndAt", timeline.seconds(endAt));
        phases.put("drainEndAt", timeline.seconds(drainEndAt));
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("mode", "outage");
        result.put("label", options.label());
        result.put("run", run);
        result.put("phases", phases);
        result.put("configuration", configuration);
        result.put("machine", LoadResult.machine());
        result.put("jvm", LoadResult.jvm());
        result.put("messages", messages);
        result.put("recovery", outcome);
        synchronized (duplicates) {
            result.put("firstDuplicates", new ArrayList<>(duplicates));
        }
        result.put("timeline", timeline.samples());
        result.put("errors", errors.get());
        result.put("firstError", firstError.get());
        result.put("complete", expected == delivered && duplicated == 0 && outOfOrder == 0
                && reconnected == options.clients && recovered == missed && refusedCount == 0);
        return result;
    }

    /** @return the subscribers connected now (for the timeline) */
    private int connectedSubscribers() {
        int connected = 0;
        for (OutageSubscriber sub : subs) {
            if (sub != null && sub.client != null && sub.client.isConnected()) {
                connected++;
            }
        }
        return connected;
    }

    /** @return the one-paragraph summary of an outage result */
    @SuppressWarnings("unchecked")
    static String summary(Map<String, Object> result) {
        Map<String, Object> m = (Map<String, Object>) result.get("messages");
        Map<String, Object> r = (Map<String, Object>) result.get("recovery");
        Map<String, Object> c = (Map<String, Object>) result.get("configuration");
        return String.format(java.util.Locale.ROOT,
                "%s (outage of %d ms, %d subscribers): reconnected %d; missed per subscriber min %d, mean %.1f, "
                        + "max %d; recovered %,d of %,d (%.2f%%), fully %d subscribers; recovered flags true %d, "
                        + "false %d, subscribers without one %d; recovery p50 %.2f ms, p99 %.2f ms, max %.2f ms "
                        + "(from reconnection to the last missed message); reconnection after the outage p50 %.2f "
                        + "ms, p99 %.2f ms%n  messages: published %,d, refused %,d, delivered %,d of %,d expected, "
                        + "lost %,d, duplicated %,d, out of order %,d (by %s); errors %d",
                c.get("label"), c.get("outageMillis"), c.get("subscribers"), r.get("subscribersReconnected"),
                r.get("missedPerSubscriberMin"), r.get("missedPerSubscriberMean"), r.get("missedPerSubscriberMax"),
                r.get("recovered"), r.get("missed"), r.get("recoveredPercent"), r.get("subscribersFullyRecovered"),
                r.get("recoveredFlagTrue"), r.get("recoveredFlagFalse"), r.get("subscribersWithoutFlag"),
                r.get("recoveryMillisP50"), r.get("recoveryMillisP99"), r.get("recoveryMillisMax"),
                r.get("reconnectAfterRestoreMillisP50"), r.get("reconnectAfterRestoreMillisP99"),
                m.get("published"), m.get("refused"), m.get("delivered"), m.get("expected"), m.get("lost"),
                m.get("duplicated"), m.get("outOfOrder"), m.get("orderCheckedBy"), result.get("errors"));
    }

    private static double millis(Histogram histogram, double percentile) {
        return histogram.getTotalCount() == 0 ? 0.0 : histogram.getValueAtPercentile(percentile) / 1000.0;
    }

    private void sleepUntil(long nanos) throws InterruptedException {
        long left;
        while ((left = nanos - System.nanoTime()) > 0) {
            TimeUnit.NANOSECONDS.sleep(Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
        }
    }

    private void status(String what) {
        if (!options.quiet) {
            progress.printf("outage: %s%n", what);
        }
    }

    private void disconnectAll() throws InterruptedException {
        List<BayeuxClient> all = new ArrayList<>();
        for (OutageSubscriber sub : subs) {
            if (sub != null && sub.client != null) {
                all.add(sub.client);
            }
        }
        for (BayeuxClient publisher : publishers) {
            if (publisher != null) {
                all.add(publisher);
            }
        }
        CountDownLatch disconnected = new CountDownLatch(all.size());
        for (BayeuxClient client : all) {
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
        for (BayeuxClient client : all) {
            client.close();
        }
    }

    private void error(String what) {
        errors.incrementAndGet();
        if (firstError.compareAndSet(null, what)) {
            LOG.warn("First error: {}", what);
        } else {
            LOG.debug(what);
        }
    }
}
