package org.bayeux.server.cluster;

/**
 * A session extension that numbers the batches it delivers (the {@code ack} extension) implements this, so that a
 * session's {@link SessionState#ackBatch()} can tell how far its client acknowledged.
 */
public interface AcknowledgedBatch {
    /** @return the highest batch number the client acknowledged, 0 if none yet */
    long acknowledgedBatch();
}
