package org.bayeux.server.cluster;

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
}
