package org.bayeux.backplane.redis;

/**
 * Told of every join and leave of every channel with presence, on every node, in the order of the channel's shard
 * stream. Called on the backplane's reader thread: must not block; a listener that throws is logged and the others
 * go on.
 */
@FunctionalInterface
public interface PresenceListener {
    /** @param event a session joined or left a channel */
    void presence(PresenceEvent event);
}
