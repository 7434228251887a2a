package org.bayeux.server.transport;

import java.util.Map;

import org.bayeux.api.server.ServerSession;

/**
 * What a {@link Carrier} that {@link CarrierCapabilities#canHoldConnect() can hold connects} decides and is told
 * about them: whether a session's connect may be held now, when a hold ends, and when a newer connect replaced the
 * held one. HTTP transports use it to cap the connects one browser holds at once and to answer a superseded long
 * poll; a carrier with no such policy returns {@link #ALWAYS} from {@link Carrier#holdPolicy()}.
 */
public interface HoldPolicy {
    /** Every hold allowed; nothing to do when one ends or is superseded. */
    HoldPolicy ALWAYS = new HoldPolicy() {
    };

    /**
     * Asks whether a connect of this session may be held now; HTTP transports refuse when too many sessions of the
     * same browser already hold one.
     *
     * @param session the session whose connect could be held
     * @return null to allow the hold, or advice fields to put in the connect reply, which is then sent at once
     */
    default Map<String, Object> refuseHold(ServerSession session) {
        return null;
    }

    /**
     * A connect of this session that {@link #refuseHold(ServerSession)} allowed is no longer held.
     *
     * @param session the session
     */
    default void holdEnded(ServerSession session) {
    }

    /**
     * A connect held on this carrier was replaced by a newer one and will get no reply from the engine. Long-polling
     * answers such a request with an HTTP error status; WebSocket sends nothing.
     */
    default void superseded() {
    }
}
