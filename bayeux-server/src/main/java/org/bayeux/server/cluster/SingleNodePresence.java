package org.bayeux.server.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

import org.bayeux.api.ChannelId;
import org.bayeux.api.server.ServerChannel;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.api.server.SubscriptionListener;

/**
 * The presence of an engine without a cluster: its channels' subscribers and its own ties, every answer at once. The
 * engine builds it on the first {@link org.bayeux.server.BayeuxEngine#presence()} and registers
 * {@link #subscriptions()} with its subscription listeners, so that an engine nobody asks costs nothing.
 */
public final class SingleNodePresence implements Presence {
    /** The node id of every entry: there is one node. */
    public static final String NODE_ID = "local";

    private final Function<String, ? extends ServerChannel> channels;
    private final PresenceListeners listeners = new PresenceListeners();
    private final UserTies ties = new UserTies(this, this::disassociate);
    private final SubscriptionListener subscriptions = new SubscriptionListener() {
        @Override
        public void subscribed(ServerSession session, ServerChannel channel, ServerMessage message) {
            changed(session, channel, true);
        }

        @Override
        public void unsubscribed(ServerSession session, ServerChannel channel, ServerMessage message) {
            changed(session, channel, false);
        }
    };

    /** @param channels finds a channel by name, or null */
    public SingleNodePresence(Function<String, ? extends ServerChannel> channels) {
        this.channels = Objects.requireNonNull(channels, "channels");
    }

    /** @return the listener the engine registers, which turns subscriptions into events */
    public SubscriptionListener subscriptions() {
        return subscriptions;
    }

    /**
     * @param channel a channel
     * @return true for a plain channel: presence is kept for those only
     */
    public static boolean tracked(ChannelId channel) {
        return channel.isBroadcast() && !channel.isWildcard();
    }

    private void changed(ServerSession session, ServerChannel channel, boolean joined) {
        if (!listeners.isEmpty() && tracked(channel.getChannelId())) {
            listeners.fire(new PresenceEvent(channel.getId(), entryOf(session), joined));
        }
    }

    private PresenceEntry entryOf(ServerSession session) {
        return new PresenceEntry(session.getId(), ties.userOf(session.getId()), NODE_ID);
    }

    @Override
    public String nodeId() {
        return NODE_ID;
    }

    @Override
    public CompletionStage<List<PresenceEntry>> members(String channel) {
        ServerChannel found = ChannelId.isValid(channel) && tracked(ChannelId.of(channel)) ? channels.apply(channel)
                : null;
        List<PresenceEntry> entries = new ArrayList<>();
        if (found != null) {
            for (ServerSession session : found.getSubscribers()) {
                entries.add(entryOf(session));
            }
        }
        return CompletableFuture.completedFuture(entries);
    }

    @Override
    public CompletionStage<Set<String>> userIds() {
        return CompletableFuture.completedFuture(ties.userIds());
    }

    @Override
    public CompletionStage<Boolean> isPresent(String userId) {
        return CompletableFuture.completedFuture(ties.contains(userId));
    }

    @Override
    public boolean associate(String userId, ServerSession session) {
        checkUser(userId);
        boolean[] first = new boolean[1];
        boolean tied = ties.tie(userId, session, () -> first[0] = true);
        if (first[0]) {
            listeners.fire(userEvent(userId, true));
        }
        return tied;
    }

    @Override
    public boolean disassociate(String userId, ServerSession session) {
        boolean[] last = new boolean[1];
        boolean untied = ties.untie(userId, session, () -> last[0] = true);
        if (last[0]) {
            listeners.fire(userEvent(userId, false));
        }
        return untied;
    }

    private static PresenceEvent userEvent(String userId, boolean joined) {
        return new PresenceEvent(null, new PresenceEntry(null, userId, NODE_ID), joined);
    }

    /**
     * @param userId a user id given to {@link Presence#associate}
     * @throws IllegalArgumentException if it is null or empty
     */
    public static void checkUser(String userId) {
        if (userId == null || userId.isEmpty()) {
            throw new IllegalArgumentException("A user id must be a non-empty string");
        }
    }

    @Override
    public void addListener(Listener listener) {
        listeners.add(listener);
    }

    @Override
    public void removeListener(Listener listener) {
        listeners.remove(listener);
    }
}
