package org.bayeux.server.cluster;

import java.time.Duration;
import java.util.Map;
import java.util.Set;

/**
 * What of a session must survive its node for its client to carry on elsewhere with the same {@code clientId}.
 */
public interface SessionState {
    /** @return the session's id, its {@code clientId} */
    String sessionId();

    /** @return the channels (and wildcards) it subscribes to, now */
    Set<String> subscriptions();

    /** @return how many messages the session has handed to its carriers since it was created */
    long deliveryPosition();

    /** @return the last batch number the client acknowledged under the {@code ack} extension, or -1 */
    long ackBatch();

    /**
     * Per plain channel the session subscribes to (not wildcards), the position of the last message of that channel
     * the client is known to have: with the {@code ack} extension, the last one of the batches it acknowledged;
     * without it, the last one handed to the session's carrier (written to its connection, not necessarily
     * received). Only messages that carry a position ({@link ChannelPosition#of}) count; a channel with none yet is
     * absent.
     *
     * @return the positions by channel, unchangeable; empty by default
     */
    default Map<String, ChannelPosition> positions() {
        return Map.of();
    }

    /**
     * @return how long the session lives without a connect from its client ({@code maxInterval}), which bounds how
     *         long its state is worth keeping after its node is gone; null if unknown
     */
    default Duration maxInterval() {
        return null;
    }
}
