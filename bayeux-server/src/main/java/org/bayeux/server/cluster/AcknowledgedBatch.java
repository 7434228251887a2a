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
}
