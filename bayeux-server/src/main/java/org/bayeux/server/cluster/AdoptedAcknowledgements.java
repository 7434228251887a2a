package org.bayeux.server.cluster;

import org.bayeux.api.server.ServerSession;

/**
 * A server extension that numbers the batches it delivers (the {@code ack} extension) implements this, so that a
 * node adopting a session that {@linkplain SessionState#acknowledges() acknowledges} can give the session that
 * extension's state again and continue its numbering ({@link AcknowledgedBatch#continueFrom}). Without such an
 * extension on the adopting node such a session cannot continue exactly, and is not adopted.
 */
public interface AdoptedAcknowledgements {
    /**
     * Turns acknowledgements on for a session this node adopted, as a successful handshake asking for them would.
     *
     * @param adopted the session, rebuilt, not yet serving
     * @return its acknowledgement state, whose numbering the engine continues before the session serves anything
     */
    AcknowledgedBatch resumeOn(ServerSession adopted);
}
