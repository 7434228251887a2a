package org.bayeux.server;

import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import org.bayeux.server.cluster.ChannelPosition;
import org.bayeux.server.cluster.SessionState;
import org.bayeux.server.cluster.SessionStore;

/**
 * A "remote" session store for tests, shared by engines in one JVM: each node has its own view ({@link #node}), which
 * writes a snapshot of a session's state at once, and can adopt what another node wrote. Counts its reads; a test can
 * hold look-ups ({@link #holdLookUps}) to see them pile up. Every subscription gets a position of its own at
 * subscription ({@code subscribedAt}), as a store with a cluster's positions would.
 */
final class SharedSessionStore {
    /** A stored session: what a node wrote last, and who owns it. */
    record Stored(Snapshot state, String owner) {
    }

    private final ConcurrentHashMap<String, Stored> sessions = new ConcurrentHashMap<>();
    private final Set<String> dead = ConcurrentHashMap.newKeySet();
    final AtomicInteger finds = new AtomicInteger();
    final AtomicInteger adopts = new AtomicInteger();
    final AtomicInteger removals = new AtomicInteger();
    /** Look-ups waiting while {@link #holdLookUps} is on. */
    final CopyOnWriteArrayList<CompletableFuture<Void>> heldLookUps = new CopyOnWriteArrayList<>();
    private volatile boolean holding;
    private final AtomicInteger positions = new AtomicInteger();

    /** @param node a node whose writes are ignored from now on, as a killed node's */
    void kill(String node) {
        dead.add(node);
    }

    /** From now on look-ups wait until {@link #releaseLookUps}. */
    void holdLookUps() {
        holding = true;
    }

    void releaseLookUps() {
        holding = false;
        heldLookUps.forEach(held -> held.complete(null));
    }

    Stored stored(String id) {
        return sessions.get(id);
    }

    /** Changes a stored session, as another node's write would. */
    void rewrite(String id, java.util.function.UnaryOperator<Snapshot> change) {
        sessions.computeIfPresent(id, (key, stored) -> new Stored(change.apply(stored.state()), stored.owner()));
    }

    Node node(String name) {
        return new Node(name);
    }

    /** One node's view of the store. */
    final class Node implements SessionStore {
        private final String name;
        volatile Consumer<String> moved;

        Node(String name) {
            this.name = name;
        }

        @Override
        public boolean adopts() {
            return true;
        }

        @Override
        public void onMoved(Consumer<String> moved) {
            this.moved = moved;
        }

        @Override
        public void created(SessionState session) {
            changed(session);
        }

        @Override
        public void changed(SessionState session) {
            if (dead.contains(name)) {
                return;
            }
            sessions.compute(session.sessionId(), (id, before) -> {
                if (before != null && !before.owner().equals(name)) {
                    return before;
                }
                Map<String, ChannelPosition> subscribedAt = new HashMap<>(
                        before == null ? Map.of() : before.state().subscribedAt());
                for (String channel : session.subscriptions()) {
                    subscribedAt.computeIfAbsent(channel,
                            ignored -> new ChannelPosition("test", positions.incrementAndGet()));
                }
                subscribedAt.keySet().retainAll(session.subscriptions());
                return new Stored(Snapshot.of(session, subscribedAt), name);
            });
        }

        @Override
        public SessionState find(String sessionId) {
            Stored stored = sessions.get(sessionId);
            return stored == null ? null : stored.state();
        }

        @Override
        public CompletionStage<SessionState> findAsync(String sessionId) {
            finds.incrementAndGet();
            if (holding) {
                CompletableFuture<Void> held = new CompletableFuture<>();
                heldLookUps.add(held);
                return held.thenApply(ignored -> find(sessionId));
            }
            return CompletableFuture.completedFuture(find(sessionId));
        }

        @Override
        public CompletionStage<SessionState> adopt(String sessionId) {
            adopts.incrementAndGet();
            Stored taken = sessions.computeIfPresent(sessionId, (id, stored) -> new Stored(
                    stored.state().withGeneration(stored.state().generation() + 1), name));
            return CompletableFuture.completedFuture(taken == null ? null : taken.state());
        }

        @Override
        public void removed(String sessionId) {
            if (dead.contains(name)) {
                return;
            }
            removals.incrementAndGet();
            sessions.computeIfPresent(sessionId, (id, stored) -> stored.owner().equals(name) ? null : stored);
        }

        /** Tells the engine that one of its sessions moved, as a fenced write would. */
        void fence(String sessionId) {
            moved.accept(sessionId);
        }
    }

    /** A session's state as written. */
    record Snapshot(String sessionId, Set<String> subscriptions, long deliveryPosition, long ackBatch,
            Map<String, ChannelPosition> positions, Duration maxInterval, long generation, String browserDigest,
            boolean browserCookieShown, boolean pinned, Map<String, ChannelPosition> subscribedAt,
            boolean acknowledges, long lastBatch, NavigableMap<Long, Map<String, ChannelPosition>> journal,
            Map<String, String> portableAttributes) implements SessionState {
        static Snapshot of(SessionState state, Map<String, ChannelPosition> subscribedAt) {
            return new Snapshot(state.sessionId(), Set.copyOf(state.subscriptions()), state.deliveryPosition(),
                    state.ackBatch(), Map.copyOf(state.positions()), state.maxInterval(), state.generation(),
                    state.browserDigest(), state.browserCookieShown(), state.pinned(), Map.copyOf(subscribedAt),
                    state.acknowledges(), state.lastBatch(), Collections.unmodifiableNavigableMap(
                            new TreeMap<>(state.journal())), Map.copyOf(state.portableAttributes()));
        }

        Snapshot withGeneration(long next) {
            return new Snapshot(sessionId, subscriptions, deliveryPosition, ackBatch, positions, maxInterval, next,
                    browserDigest, browserCookieShown, pinned, subscribedAt, acknowledges, lastBatch, journal,
                    portableAttributes);
        }

        Snapshot withSubscriptions(Set<String> more) {
            return new Snapshot(sessionId, more, deliveryPosition, ackBatch, positions, maxInterval, generation,
                    browserDigest, browserCookieShown, pinned, subscribedAt, acknowledges, lastBatch, journal,
                    portableAttributes);
        }
    }
}
