package org.bayeux.client;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.bayeux.api.ChannelId;
import org.bayeux.api.Message;
import org.bayeux.api.client.ClientSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client's channel handles by name, and the dispatch of a delivery to the handles of its channel and of the
 * wildcards that match it.
 */
final class ChannelTable {
    private static final Logger LOG = LoggerFactory.getLogger(ChannelTable.class);

    private final ClientSession session;
    private Outbox outbox;
    private final Map<String, ClientChannel> channels = new ConcurrentHashMap<>();
    /** Counts the handles made: the wildcard handles a channel keeps for dispatch are good while it is unchanged. */
    private final AtomicInteger generation = new AtomicInteger();

    /**
     * @param session the session the handles belong to
     */
    ChannelTable(ClientSession session) {
        this.session = session;
    }

    /** Gives the table the outbox its handles send through, before any handle is made. */
    void bind(Outbox outbox) {
        this.outbox = outbox;
    }

    /**
     * @param name a channel name
     * @return its handle, made on first use
     * @throws IllegalArgumentException if the name is not a valid channel name
     */
    ClientChannel get(String name) {
        ClientChannel channel = channels.get(name);
        if (channel != null) {
            return channel;
        }
        ChannelId id = ChannelId.of(name);
        ClientChannel made = new ClientChannel(session, outbox, id);
        ClientChannel existing = channels.putIfAbsent(id.name(), made);
        if (existing != null) {
            return existing;
        }
        // After the handle is in the table: a dispatch that reads the new generation also sees the handle.
        generation.incrementAndGet();
        return made;
    }

    /**
     * @param name a channel name, possibly invalid
     * @return its handle if it has one, else null
     */
    ClientChannel existing(String name) {
        return name == null ? null : channels.get(name);
    }

    /**
     * Hands a delivery to the subscribers and listeners of its channel, then of each wildcard channel that matches
     * it, nearest first.
     *
     * @param delivery a message with data, read-only
     */
    void dispatch(Message delivery) {
        String name = delivery.getChannel();
        ClientChannel exact = name == null ? null : channels.get(name);
        if (exact != null) {
            notify(exact, delivery);
            for (ClientChannel wildcard : wildcardHandlesOf(exact)) {
                notify(wildcard, delivery);
            }
            return;
        }
        ChannelId id;
        try {
            id = ChannelId.of(name);
        } catch (IllegalArgumentException invalid) {
            LOG.debug("Ignoring a delivery on an invalid channel: {}", delivery);
            return;
        }
        for (String wildcard : id.wildcardNames()) {
            notify(channels.get(wildcard), delivery);
        }
    }

    /**
     * @return the handles of the wildcards matching a channel, nearest first, kept on the channel until a handle is
     *         made: a delivery then costs one table lookup instead of one per wildcard
     */
    private ClientChannel[] wildcardHandlesOf(ClientChannel channel) {
        int current = generation.get();
        ClientChannel.WildcardHandles kept = channel.wildcardHandles;
        if (kept != null && kept.generation() == current) {
            return kept.handles();
        }
        List<ClientChannel> handles = new ArrayList<>(4);
        for (String wildcard : channel.getChannelId().wildcardNames()) {
            ClientChannel handle = channels.get(wildcard);
            if (handle != null) {
                handles.add(handle);
            }
        }
        ClientChannel[] found = handles.toArray(new ClientChannel[0]);
        channel.wildcardHandles = new ClientChannel.WildcardHandles(current, found);
        return found;
    }

    private static void notify(ClientChannel channel, Message delivery) {
        if (channel != null) {
            channel.notifySubscribers(delivery);
            channel.notifyListeners(delivery);
        }
    }

    /** @return the names of the channels that have subscribers, to subscribe again in a new session */
    List<String> subscribedNames() {
        List<String> names = new ArrayList<>();
        for (ClientChannel channel : channels.values()) {
            if (channel.hasSubscribers()) {
                names.add(channel.getId());
            }
        }
        return names;
    }

    /** Drops every subscriber of every channel. */
    void clearSubscriptions() {
        for (ClientChannel channel : channels.values()) {
            channel.clearSubscribers();
        }
    }
}
