package org.bayeux.api.server;

/**
 * Told when channels are added to and removed from the server.
 */
public interface ChannelListener {
    /**
     * @param channel the new channel, after its initializers ran
     */
    default void channelAdded(ServerChannel channel) {
    }

    /**
     * @param channelName the name of the removed channel
     */
    default void channelRemoved(String channelName) {
    }
}
