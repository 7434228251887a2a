package org.bayeux.standalone.admin;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import org.bayeux.api.server.ServerChannel;
import org.bayeux.api.server.ServerSession;
import org.bayeux.server.BayeuxEngine;
import org.bayeux.server.EngineStatistics;

/**
 * Builds the admin page's snapshots: rates from the differences of the engine's running totals
 * ({@link EngineStatistics}) between two ticks, sessions and queues from one pass over the sessions, latency
 * percentiles from the interval's samples, the busiest channels from {@link ChannelCounter}. Called on the admin
 * thread only.
 */
final class AdminStats {
    /** The transports sessions are counted by; {@code none}: no connect yet. */
    static final List<String> TRANSPORTS = List.of("websocket", "long-polling", "callback-polling", "local", "none");
    /** How many busiest channels a snapshot lists. */
    static final int TOP_CHANNELS = 10;

    private final BayeuxEngine engine;
    private final LatencyHistogram latency;
    private final ChannelCounter channels;
    private final Supplier<Map<String, Object>> cluster;
    private final AdminAccess access;
    private long[] last;
    private long lastNanos;

    AdminStats(BayeuxEngine engine, LatencyHistogram latency, ChannelCounter channels,
            Supplier<Map<String, Object>> cluster, AdminAccess access) {
        this.engine = engine;
        this.latency = latency;
        this.channels = channels;
        this.cluster = cluster;
        this.access = access;
    }

    private long[] totals() {
        EngineStatistics s = engine.statistics();
        return new long[] {s.messagesIn(), s.messagesOut(), s.publishes(), s.deliveries(), s.bytesIn(), s.bytesOut(),
            s.handshakesAccepted(), s.handshakesRefused()};
    }

    /** Takes the totals without a snapshot: keeps the rates of the next snapshot to one interval. */
    void baseline() {
        last = totals();
        lastNanos = System.nanoTime();
        latency.drain();
        channels.drain(0, 1);
    }

    /** @return the snapshot of the interval since the last call (or baseline) */
    Map<String, Object> snapshot() {
        long now = System.nanoTime();
        long[] totals = totals();
        double seconds = last == null ? 1 : Math.max(0.001, (now - lastNanos) / 1e9);
        long[] before = last == null ? totals : last;
        last = totals;
        lastNanos = now;

        Map<String, Object> out = new LinkedHashMap<>();
        out.put("time", System.currentTimeMillis());
        out.put("interval", Math.round(seconds * 1000) / 1000.0);
        sessionsAndQueues(out);
        String[] names = {"messagesIn", "messagesOut", "publishes", "deliveries", "bytesIn", "bytesOut",
            "handshakesAccepted", "handshakesRefused"};
        Map<String, Object> rates = new LinkedHashMap<>();
        Map<String, Object> sums = new LinkedHashMap<>();
        for (int i = 0; i < names.length; i++) {
            rates.put(names[i], rate(totals[i] - before[i], seconds));
            sums.put(names[i], totals[i]);
        }
        sums.put("adminHandshakesRefused", access.refusedHandshakes());
        out.put("rates", rates);
        out.put("totals", sums);
        out.put("latency", latency.drain());
        out.put("busiest", channels.drain(TOP_CHANNELS, seconds));
        out.put("cluster", cluster == null ? null : cluster.get());
        return out;
    }

    /** One pass over the sessions and channels: time in proportion to them, once a second while watched. */
    private void sessionsAndQueues(Map<String, Object> out) {
        long[] byTransport = new long[TRANSPORTS.size()];
        long[] byDepth = new long[5];
        long held = 0;
        long queued = 0;
        long queuedBytes = 0;
        long longest = 0;
        for (ServerSession session : engine.getSessions()) {
            byTransport[transportIndex(session)]++;
            if (engine.isConnectHeld(session)) {
                held++;
            }
            int queue = session.getQueueSize();
            queued += queue;
            queuedBytes += session.getQueueBytes();
            longest = Math.max(longest, queue);
            byDepth[queue == 0 ? 0 : queue < 10 ? 1 : queue < 100 ? 2 : queue < 1000 ? 3 : 4]++;
        }
        long channelCount = 0;
        long subscriptions = 0;
        for (ServerChannel channel : engine.getChannels()) {
            channelCount++;
            subscriptions += channel.getSubscribers().size();
        }
        Map<String, Object> sessions = new LinkedHashMap<>();
        long total = 0;
        for (int i = 0; i < byTransport.length; i++) {
            sessions.put(TRANSPORTS.get(i), byTransport[i]);
            total += byTransport[i];
        }
        sessions.put("total", total);
        out.put("sessions", sessions);
        out.put("connectsHeld", held);
        out.put("channels", channelCount);
        out.put("subscriptions", subscriptions);
        Map<String, Object> queues = new LinkedHashMap<>();
        queues.put("messages", queued);
        queues.put("bytes", queuedBytes);
        queues.put("longest", longest);
        Map<String, Object> depth = new LinkedHashMap<>();
        String[] buckets = {"0", "1-9", "10-99", "100-999", "1000+"};
        for (int i = 0; i < buckets.length; i++) {
            depth.put(buckets[i], byDepth[i]);
        }
        queues.put("depth", depth);
        out.put("queues", queues);
    }

    private static int transportIndex(ServerSession session) {
        if (session.isLocalSession()) {
            return TRANSPORTS.indexOf("local");
        }
        String name = session.getTransportName();
        if ("cross-origin-long-polling".equals(name)) {
            name = "long-polling";
        }
        int index = name == null ? -1 : TRANSPORTS.indexOf(name);
        return index < 0 ? TRANSPORTS.size() - 1 : index;
    }

    static double rate(long count, double seconds) {
        return Math.round(count / seconds * 10) / 10.0;
    }
}
