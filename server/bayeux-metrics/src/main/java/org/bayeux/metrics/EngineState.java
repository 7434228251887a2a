package org.bayeux.metrics;

import java.time.Duration;
import java.util.List;

import org.bayeux.api.server.ServerChannel;
import org.bayeux.api.server.ServerSession;
import org.bayeux.server.BayeuxEngine;

/**
 * The engine's gauges, read in one pass over its sessions and channels when a scrape asks, and kept for a short
 * while so that the many gauges of one scrape (or of a JMX console polling them one by one) share that pass. The
 * pass costs time in proportion to the sessions, off the message path: nothing is counted as messages flow.
 */
final class EngineState {
    /** The transports sessions are counted by; {@code none} is a session with no connect yet, or an unknown name. */
    static final List<String> TRANSPORTS = List.of("websocket", "long-polling", "callback-polling", "local", "none");
    /** The ranges of queue lengths sessions are counted by, as {@code depth} tags. */
    static final String[] DEPTH_BUCKETS = {"0", "1-9", "10-99", "100-999", "1000+"};

    private final BayeuxEngine engine;
    private final long maxAgeNanos;
    private volatile Snapshot last;

    EngineState(BayeuxEngine engine, Duration maxAge) {
        this.engine = engine;
        this.maxAgeNanos = maxAge.toNanos();
    }

    /** @return a snapshot no older than the maximum age */
    Snapshot snapshot() {
        Snapshot snapshot = last;
        long now = System.nanoTime();
        if (snapshot == null || now - snapshot.takenAt > maxAgeNanos) {
            snapshot = take(now);
            last = snapshot;
        }
        return snapshot;
    }

    private Snapshot take(long now) {
        Snapshot s = new Snapshot(now);
        for (ServerSession session : engine.getSessions()) {
            s.bySession(transportIndex(session), engine.isConnectHeld(session), session.getQueueSize(),
                    session.getQueueBytes());
        }
        for (ServerChannel channel : engine.getChannels()) {
            s.channels++;
            s.subscriptions += channel.getSubscribers().size();
        }
        return s;
    }

    private static int transportIndex(ServerSession session) {
        if (session.isLocalSession()) {
            return TRANSPORTS.indexOf("local");
        }
        String name = session.getTransportName();
        if (name == null) {
            return TRANSPORTS.size() - 1;
        }
        if (name.equals("cross-origin-long-polling")) {
            name = "long-polling";
        }
        int index = TRANSPORTS.indexOf(name);
        return index < 0 ? TRANSPORTS.size() - 1 : index;
    }

    /** One pass's figures. */
    static final class Snapshot {
        final long takenAt;
        final long[] byTransport = new long[TRANSPORTS.size()];
        final long[] byDepth = new long[DEPTH_BUCKETS.length];
        long heldConnects;
        long channels;
        long subscriptions;
        long queuedMessages;
        long queuedBytes;
        long longestQueue;

        Snapshot(long takenAt) {
            this.takenAt = takenAt;
        }

        void bySession(int transport, boolean held, int queue, long bytes) {
            byTransport[transport]++;
            if (held) {
                heldConnects++;
            }
            queuedMessages += queue;
            queuedBytes += bytes;
            longestQueue = Math.max(longestQueue, queue);
            byDepth[queue == 0 ? 0 : queue < 10 ? 1 : queue < 100 ? 2 : queue < 1000 ? 3 : 4]++;
        }

        double sessions(String transport) {
            return byTransport[TRANSPORTS.indexOf(transport)];
        }

        double sessionsAtDepth(int bucket) {
            return byDepth[bucket];
        }

        double heldConnects() {
            return heldConnects;
        }

        double channels() {
            return channels;
        }

        double subscriptions() {
            return subscriptions;
        }

        double queuedMessages() {
            return queuedMessages;
        }

        double queuedBytes() {
            return queuedBytes;
        }

        double longestQueue() {
            return longestQueue;
        }
    }
}
