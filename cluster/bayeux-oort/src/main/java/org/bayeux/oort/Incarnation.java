package org.bayeux.oort;

import java.util.UUID;

/**
 * This node's incarnation now: fresh at every start of the process, and again when a peer declared it left. The
 * parts that name the node on the wire (its links, the receiver of forwards, peer messaging) read it here, so that
 * none of them needs the {@link Oort} that owns it.
 */
final class Incarnation {
    private volatile String id = UUID.randomUUID().toString();

    /** @return the incarnation now */
    String id() {
        return id;
    }

    /**
     * Takes a new incarnation. The caller keeps the numbering of its forwards in step (under its own lock).
     *
     * @return the new id
     */
    String renew() {
        String fresh = UUID.randomUUID().toString();
        id = fresh;
        return fresh;
    }
}
