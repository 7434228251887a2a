package org.bayeux.metrics;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.ToDoubleFunction;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.bayeux.server.BayeuxEngine;
import org.bayeux.server.EngineStatistics;
import org.bayeux.server.Limit;
import org.bayeux.server.LimitCounters;
import org.bayeux.server.QueueLimitCounters;

/**
 * Binds an engine's statistics and state to a Micrometer registry, under Prometheus-style names (see
 * {@code docs/operations.md} for the table).
 *
 * <p>Nothing here is on the message path. Counters are {@link FunctionCounter}s over the engine's own totals
 * ({@link EngineStatistics}, {@link LimitCounters}, {@link QueueLimitCounters}), read when the registry is scraped.
 * Gauges over sessions, channels and queues come from one pass over the engine's sessions and channels
 * ({@link EngineState}), shared by every gauge of one scrape. The one meter updated as messages flow is the delivery
 * latency timer, fed one sample in {@value EngineStatistics#LATENCY_SAMPLE_ONE_IN} batches.</p>
 *
 * <p>Extra counters and gauges that live outside the engine (a transport's WebSocket count, a connector's refusals)
 * are added with {@link #counter} and {@link #gauge} before {@link #bindTo}.</p>
 */
public final class BayeuxMetrics implements MeterBinder {
    /** The latency buckets: from half a millisecond to ten seconds. */
    static final Duration[] LATENCY_BUCKETS = {Duration.ofMillis(1).dividedBy(2), Duration.ofMillis(1),
        Duration.ofMillis(2), Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25), Duration.ofMillis(50),
        Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1),
        Duration.ofMillis(2500), Duration.ofSeconds(5), Duration.ofSeconds(10)};

    private final BayeuxEngine engine;
    private final EngineState state;
    private final List<Extra> extras = new ArrayList<>();
    private final Set<String> errorsBound = ConcurrentHashMap.newKeySet();

    /**
     * @param engine the engine to observe
     */
    public BayeuxMetrics(BayeuxEngine engine) {
        this(engine, Duration.ofSeconds(1));
    }

    /**
     * @param engine the engine to observe
     * @param stateMaxAge how long one pass over sessions and channels serves the gauges (one scrape reads many)
     */
    public BayeuxMetrics(BayeuxEngine engine, Duration stateMaxAge) {
        this.engine = engine;
        this.state = new EngineState(engine, stateMaxAge);
    }

    /**
     * Adds a counter read from elsewhere when scraped.
     *
     * @param name the Micrometer name, dotted: {@code bayeux.connections.closed} becomes
     *        {@code bayeux_connections_closed_total}
     * @param description what it counts
     * @param value reads the total
     * @param tags tag names and values, alternating
     * @return this
     */
    public BayeuxMetrics counter(String name, String description, LongSupplier value, String... tags) {
        extras.add(new Extra(true, name, description, Tags.of(tags), value, null));
        return this;
    }

    /**
     * Adds a gauge read from elsewhere when scraped.
     *
     * @param name the Micrometer name, dotted
     * @param description what it measures
     * @param baseUnit its unit ({@code bytes}, {@code connections}) or null
     * @param value reads the value
     * @param tags tag names and values, alternating
     * @return this
     */
    public BayeuxMetrics gauge(String name, String description, String baseUnit, LongSupplier value,
            String... tags) {
        extras.add(new Extra(false, name, description, Tags.of(tags), value, baseUnit));
        return this;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        EngineStatistics statistics = engine.statistics();
        counter(registry, "bayeux.messages.received", "Messages received from remote clients", null, Tags.empty(),
                statistics, EngineStatistics::messagesIn);
        counter(registry, "bayeux.messages.sent", "Messages (replies and deliveries) handed to transports to write",
                null, Tags.empty(), statistics, EngineStatistics::messagesOut);
        counter(registry, "bayeux.batches.received", "Batches (HTTP bodies, WebSocket messages) received", null,
                Tags.empty(), statistics, EngineStatistics::batchesIn);
        counter(registry, "bayeux.batches.sent", "Batches handed to transports to write", null, Tags.empty(),
                statistics, EngineStatistics::batchesOut);
        counter(registry, "bayeux.received", "JSON received from remote clients", "bytes", Tags.empty(), statistics,
                EngineStatistics::bytesIn);
        counter(registry, "bayeux.sent", "JSON handed to transports to write", "bytes", Tags.empty(), statistics,
                EngineStatistics::bytesOut);
        counter(registry, "bayeux.handshakes", "Handshakes answered", null, Tags.of("result", "accepted"), statistics,
                EngineStatistics::handshakesAccepted);
        counter(registry, "bayeux.handshakes", "Handshakes answered", null, Tags.of("result", "refused"), statistics,
                EngineStatistics::handshakesRefused);
        counter(registry, "bayeux.publishes", "Published messages fanned out to this node's subscribers", null,
                Tags.empty(), statistics, EngineStatistics::publishes);
        counter(registry, "bayeux.deliveries", "Published messages queued for a subscriber", null, Tags.empty(),
                statistics, EngineStatistics::deliveries);
        counter(registry, "bayeux.foreign.client.ids",
                "Messages naming a live session from a carrier that may not act as it", null, Tags.empty(), engine,
                BayeuxEngine::getForeignClientIdCount);
        bindLimits(registry);
        bindErrors(registry, statistics);
        bindState(registry);
        Timer latency = Timer.builder("bayeux.delivery.latency")
                .description("From a published message frozen (ready to queue) to its batch handed to a transport, "
                        + "sampled")
                .serviceLevelObjectives(LATENCY_BUCKETS)
                .register(registry);
        statistics.setDeliveryLatencyRecorder(nanos -> latency.record(nanos, java.util.concurrent.TimeUnit.NANOSECONDS));
        for (Extra extra : extras) {
            if (extra.counter) {
                FunctionCounter.builder(extra.name, extra.value, v -> v.getAsLong()).description(extra.description)
                        .tags(extra.tags).register(registry);
            } else {
                Gauge.builder(extra.name, extra.value, v -> v.getAsLong()).description(extra.description)
                        .tags(extra.tags).baseUnit(extra.baseUnit).strongReference(true).register(registry);
            }
        }
    }

    private void bindLimits(MeterRegistry registry) {
        LimitCounters limits = engine.getLimitCounters();
        for (Limit limit : Limit.values()) {
            counter(registry, "bayeux.limit.refusals", "Messages refused by an input limit", null,
                    Tags.of("limit", limit.token()), limits, l -> l.get(limit));
        }
        QueueLimitCounters queues = engine.queueLimitCounters();
        counter(registry, "bayeux.queue.limit.hits", "Messages that found a session's queue at its limit", null,
                Tags.of("limit", "maxQueue"), queues, QueueLimitCounters::countLimitHits);
        counter(registry, "bayeux.queue.limit.hits", "Messages that found a session's queue at its limit", null,
                Tags.of("limit", "maxQueueBytes"), queues, QueueLimitCounters::byteLimitHits);
        counter(registry, "bayeux.messages.dropped", "Messages dropped by a limit or policy", null,
                Tags.of("reason", "max_queue"), queues, QueueLimitCounters::droppedMessages);
        counter(registry, "bayeux.sessions.closed", "Sessions ended by a limit or policy", null,
                Tags.of("reason", "max_queue"), queues, QueueLimitCounters::disconnectedSessions);
    }

    private void bindErrors(MeterRegistry registry, EngineStatistics statistics) {
        // The engine's errors (and those registered) from the start, at 0; others as they first appear. The keys are
        // a code and a reason token, never an error's arguments (see EngineStatistics#errors).
        statistics.setNewErrorListener(key -> bindError(registry, statistics, key));
        for (String key : statistics.errors().keySet()) {
            bindError(registry, statistics, key);
        }
    }

    private void bindError(MeterRegistry registry, EngineStatistics statistics, String key) {
        if (!errorsBound.add(key)) {
            return;
        }
        int colon = key.indexOf(':');
        String code = colon > 0 ? key.substring(0, colon) : EngineStatistics.OTHER_ERROR;
        String reason = colon > 0 ? key.substring(key.lastIndexOf(':') + 1) : EngineStatistics.OTHER_ERROR;
        counter(registry, "bayeux.errors", "Unsuccessful replies, by Bayeux error (code and reason token)", null,
                Tags.of("code", code, "reason", reason), statistics, s -> s.errors(key));
    }

    private void bindState(MeterRegistry registry) {
        for (String transport : EngineState.TRANSPORTS) {
            gauge(registry, "bayeux.sessions", "Live sessions, by the transport of their last connect", null,
                    Tags.of("transport", transport), s -> s.sessions(transport));
        }
        gauge(registry, "bayeux.connects.held", "Connects held, waiting for messages or their timeout", null,
                Tags.empty(), EngineState.Snapshot::heldConnects);
        gauge(registry, "bayeux.channels", "Channels", null, Tags.empty(), EngineState.Snapshot::channels);
        gauge(registry, "bayeux.subscriptions", "Subscriptions (session, channel)", null, Tags.empty(),
                EngineState.Snapshot::subscriptions);
        gauge(registry, "bayeux.queue.messages", "Messages queued for sessions, in all", null, Tags.empty(),
                EngineState.Snapshot::queuedMessages);
        gauge(registry, "bayeux.queue", "JSON bytes queued for sessions, in all", "bytes", Tags.empty(),
                EngineState.Snapshot::queuedBytes);
        gauge(registry, "bayeux.queue.messages.max", "The longest session queue", null, Tags.empty(),
                EngineState.Snapshot::longestQueue);
        for (int bucket = 0; bucket < EngineState.DEPTH_BUCKETS.length; bucket++) {
            int b = bucket;
            gauge(registry, "bayeux.queue.depth.sessions", "Sessions by the length of their queue", null,
                    Tags.of("depth", EngineState.DEPTH_BUCKETS[b]), s -> s.sessionsAtDepth(b));
        }
    }

    private static <T> void counter(MeterRegistry registry, String name, String description, String baseUnit,
            Tags tags, T source, ToDoubleFunction<T> read) {
        FunctionCounter.builder(name, source, read).description(description).baseUnit(baseUnit).tags(tags)
                .register(registry);
    }

    private void gauge(MeterRegistry registry, String name, String description, String baseUnit, Tags tags,
            ToDoubleFunction<EngineState.Snapshot> read) {
        Gauge.builder(name, state, s -> read.applyAsDouble(s.snapshot())).description(description)
                .baseUnit(baseUnit).tags(tags).strongReference(true).register(registry);
    }

    /** Releases the engine's hooks into the registry: no latency recorded, no error counter added. */
    public void unbind() {
        engine.statistics().setDeliveryLatencyRecorder(null);
        engine.statistics().setNewErrorListener(null);
    }

    private record Extra(boolean counter, String name, String description, Tags tags, LongSupplier value,
            String baseUnit) {
    }

    /** @return the errors counted apart so far, for tests */
    Map<String, Long> errors() {
        return engine.statistics().errors();
    }
}
