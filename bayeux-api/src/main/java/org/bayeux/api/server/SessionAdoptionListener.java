package org.bayeux.api.server;

import java.util.Map;

/**
 * Told when this node adopts a session that another node created (the other node died, or handed it over while
 * draining): the session keeps its {@code clientId} and subscriptions, and its client carries on as if nothing
 * happened. The application restores what it keeps per session (what its {@link SecurityPolicy} decided at handshake,
 * say) from the attributes it marked portable ({@link BayeuxServer#addPortableAttribute}), which are already set on
 * the session, or refuses the adoption.
 *
 * <p>Runs before the adopted session's subscriptions are restored (their authorizers run again after it) and before
 * the message that named it is processed. Must not block.</p>
 */
@FunctionalInterface
public interface SessionAdoptionListener {
    /**
     * @param session the adopted session, not yet serving
     * @param portable the portable attributes stored with it (also set on the session), unchangeable
     * @return true to adopt it; false to refuse, which answers its client {@code 402} (it handshakes again)
     */
    boolean adopting(ServerSession session, Map<String, String> portable);
}
