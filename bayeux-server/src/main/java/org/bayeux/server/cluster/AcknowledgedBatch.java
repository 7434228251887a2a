package org.bayeux.server.cluster;

import java.util.Map;

/**
 * A session extension that numbers the batches it delivers (the {@code ack} extension) implements this, so that a
 * session's {@link SessionState#ackBatch()} can tell how far its client acknowledged.
 */
public interface AcknowledgedBatch {
    /** @return the highest batch number the client acknowledged, 0 if none yet */
    long acknowledgedBatch();

    /**
     * Called under the session's lock, where the extension keeps them.
     *
     * @return per channel, the position of the last message of the acknowledged batches that carried one (a view,
     *         which the caller copies); empty by default
     */
    default Map<String, ChannelPosition> acknowledgedPositions() {
        return Map.of();
    }

    /** @return the number of the newest batch sent, 0 before the first */
    default long lastBatch() {
        return 0;
    }

    /**
     * Called under the session's lock, right after a batch was numbered and before it leaves.
     *
     * @return per channel, the positions the client has once it received the newest batch: the acknowledged ones,
     *         moved on by every message sent since (a new map, the caller's)
     */
    default Map<String, ChannelPosition> positionsAfterLastBatch() {
        return Map.copyOf(acknowledgedPositions());
    }

    /**
     * Continues an adopted session's numbering: the next batch is numbered {@code lastBatch + 1}, and the client is
     * taken to have acknowledged {@code acknowledged}. Called once, before the session serves anything.
     *
     * @param lastBatch the newest batch the session was sent on its former node
     * @param acknowledged the batch its client acknowledged last
     * @param positions per channel, the positions the client has at {@code acknowledged}
     */
    default void continueFrom(long lastBatch, long acknowledged, Map<String, ChannelPosition> positions) {
    }
}
