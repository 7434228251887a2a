package org.bayeux.oort;

import java.util.ArrayList;
import java.util.List;

import org.bayeux.api.ChannelId;

/** The channels a node forwards to its peers and delivers from them: {@code oort.channels}, as globs. */
final class ObservedChannels {
    private final List<ChannelId> globs;

    /** @param globs the observed channel globs */
    ObservedChannels(List<String> globs) {
        List<ChannelId> ids = new ArrayList<>();
        for (String glob : globs) {
            ids.add(ChannelId.of(glob));
        }
        this.globs = List.copyOf(ids);
    }

    /**
     * @param channel a channel name
     * @return whether a glob matches it
     */
    boolean matches(String channel) {
        ChannelId channelId = ChannelId.of(channel);
        for (ChannelId glob : globs) {
            if (glob.matches(channelId)) {
                return true;
            }
        }
        return false;
    }
}
