package org.bayeux.client;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.bayeux.api.ChannelId;
import org.bayeux.api.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client's channel handles by name, and the dispatch of a delivery to the handles of its channel and of the
 * wildcards that match it.
 */
final class ChannelTable {
    private static final Logger LOG = LoggerFactory.getLogger(ChannelTable.class);

    private final BayeuxClient client;
    private final Map<String, ClientChannel> channels = new ConcurrentHashMap<>();

    ChannelTable(BayeuxClient client) {
        this.client = client;
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
        return channels.computeIfAbsent(id.name(), n -> new ClientChannel(client, id));
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
        ChannelId id;
        if (exact != null) {
            // Parsed when the handle was made, with its wildcard names computed once.
            id = exact.getChannelId();
        } else {
            try {
                id = ChannelId.of(name);
            } catch (IllegalArgumentException invalid) {
                LOG.debug("Ignoring a delivery on an invalid channel: {}", delivery);
                return;
            }
        }
        notify(exact, delivery);
        for (String wildcard : id.wildcardNames()) {
            notify(channels.get(wildcard), delivery);
        }
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
