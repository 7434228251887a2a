package org.bayeux.server.internal;

import java.util.LinkedHashMap;
import java.util.Map;

import org.bayeux.api.server.ServerMessage;
import org.bayeux.server.cluster.ChannelPosition;

/**
 * The last position seen per channel, among messages that carry one ({@link ChannelPosition#of}); bounded to the
 * {@value #MAX_CHANNELS} channels updated most recently (a wildcard subscriber may receive from any number of them).
 * Not thread-safe: its owner guards it (a session's lock).
 */
public final class PositionLog {
    /** How many channels' positions are kept at most. */
    public static final int MAX_CHANNELS = 1024;

    /** In access order, so that the channel updated longest ago is the one dropped past the bound. */
    private final LinkedHashMap<String, ChannelPosition> positions = new LinkedHashMap<>(8, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, ChannelPosition> eldest) {
            return size() > MAX_CHANNELS;
        }
    };

    /**
     * @param message a message handed on (delivered, or acknowledged)
     * @return true if it carried a position, now the last one of its channel
     */
    public boolean record(ServerMessage message) {
        String channel = message.getChannel();
        ChannelPosition position = channel == null ? null : ChannelPosition.of(message);
        if (position == null) {
            return false;
        }
        positions.put(channel, position);
        return true;
    }

    /**
     * Sets positions known from elsewhere (a session adopted from another node).
     *
     * @param known per channel, a position
     */
    public void seed(Map<String, ChannelPosition> known) {
        positions.putAll(known);
    }

    /** @param channel a channel whose position no longer matters (unsubscribed) */
    public void forget(String channel) {
        positions.remove(channel);
    }

    /** @return the positions now, by channel (a view: copy it before the owner's lock is released) */
    public Map<String, ChannelPosition> view() {
        return positions;
    }
}
