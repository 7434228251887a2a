package org.bayeux.backplane.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.bayeux.api.server.ServerChannel;
import org.bayeux.api.server.ServerSession;
import org.bayeux.server.cluster.PresenceEntry;
import org.bayeux.server.cluster.PresenceEvent;
import org.bayeux.server.cluster.PresenceListeners;
import org.bayeux.server.cluster.SingleNodePresence;
import org.bayeux.server.cluster.UserTies;

/**
 * The backplane's side of the engine's presence seam: what {@code Presence} keeps in Redis, read as entries. A
 * channel's entry carries its session's user (its value is the node id, then the user id after a separator); a user
 * with a session on a node has an entry of its own in a channel no session can subscribe to ({@code Presence#USERS}),
 * so that users expire, are refreshed and swept exactly as subscriptions are. Every event, this node's included,
 * comes back from the channels' fan-out streams, in each channel's order; while a listener is registered this node
 * reads every shard stream, as for the backplane's own presence listeners.
 */
final class RedisPresence implements org.bayeux.server.cluster.Presence {
    private final String nodeId;
    private final Supplier<Presence> tracker;
    private final Runnable listening;
    private final Runnable notListening;
    private final Duration timeout;
    private final PresenceListeners listeners = new PresenceListeners();
    private final UserTies ties = new UserTies(this, this::disassociate);

    /**
     * @param nodeId this node's id in entries
     * @param tracker the tracker while the backplane runs, else null
     * @param listening told when a listener is added: this node must read every shard
     * @param notListening told when one is removed
     * @param timeout how long a read of Redis may take
     */
    RedisPresence(String nodeId, Supplier<Presence> tracker, Runnable listening, Runnable notListening,
            Duration timeout) {
        this.nodeId = nodeId;
        this.tracker = tracker;
        this.listening = listening;
        this.notListening = notListening;
        this.timeout = timeout;
    }

    @Override
    public String nodeId() {
        return nodeId;
    }

    private <T> CompletionStage<T> read(java.util.function.Function<Presence, CompletableFuture<T>> reading) {
        Presence current = tracker.get();
        return current == null ? CompletableFuture.failedFuture(new IllegalStateException("not started"))
                : reading.apply(current).orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public CompletionStage<List<PresenceEntry>> members(String channel) {
        return read(current -> current.values(channel).thenApply(values -> {
            List<PresenceEntry> entries = new ArrayList<>(values.size());
            values.forEach((session, value) -> {
                String[] parts = Presence.split(value);
                entries.add(new PresenceEntry(session, parts[1], parts[0]));
            });
            return entries;
        }));
    }

    @Override
    public CompletionStage<Set<String>> userIds() {
        return read(current -> current.values(Presence.USERS).thenApply(values -> {
            Set<String> users = new TreeSet<>();
            for (String field : values.keySet()) {
                String user = Presence.split(field)[1];
                if (user != null) {
                    users.add(user);
                }
            }
            return users;
        }));
    }

    @Override
    public CompletionStage<Boolean> isPresent(String userId) {
        return userIds().thenApply(users -> users.contains(userId));
    }

    @Override
    public boolean associate(String userId, ServerSession session) {
        SingleNodePresence.checkUser(userId);
        boolean[] first = new boolean[1];
        boolean tied = ties.tie(userId, session, () -> first[0] = true);
        Presence current = tracker.get();
        if (tied && current != null) {
            // Outside this object's lock: the tracker takes its own, and asks this object for users under it.
            if (first[0]) {
                current.userPresent(userId);
            }
            current.retie(session.getId(), channelsOf(session));
        }
        return tied;
    }

    @Override
    public boolean disassociate(String userId, ServerSession session) {
        boolean[] last = new boolean[1];
        boolean untied = ties.untie(userId, session, () -> last[0] = true);
        Presence current = tracker.get();
        if (untied && current != null) {
            if (last[0]) {
                current.userAbsent(userId);
            }
            current.retie(session.getId(), channelsOf(session));
        }
        return untied;
    }

    private static List<String> channelsOf(ServerSession session) {
        List<String> channels = new ArrayList<>();
        for (ServerChannel channel : session.getSubscriptions()) {
            if (SingleNodePresence.tracked(channel.getChannelId())) {
                channels.add(channel.getId());
            }
        }
        return channels;
    }

    @Override
    public void addListener(Listener listener) {
        listeners.add(listener);
        listening.run();
    }

    @Override
    public void removeListener(Listener listener) {
        if (listeners.remove(listener)) {
            notListening.run();
        }
    }

    /** @return the users with a session on this node, for a tracker that starts */
    Set<String> localUserIds() {
        return ties.userIds();
    }

    /**
     * @param sessionId a session of this node
     * @return the user it is tied to, or null
     */
    String userOf(String sessionId) {
        return ties.userOf(sessionId);
    }

    /** @param event read from a fan-out stream, told to the listeners */
    void fire(PresenceEvent event) {
        listeners.fire(event);
    }
}
