package org.bayeux.server.transport;

import org.bayeux.api.server.ServerSession;

/**
 * What ties a session to its client beyond its {@code clientId}: the browser (cookie) it was created from and, if
 * pinned, the carrier of its handshake. Transports record and read these to answer {@link Carrier#mayCarry}, so that
 * a stolen {@code clientId} is worth nothing; the engine keeps them, because it outlives every carrier. An
 * application (a security policy, a handshake extension) may {@link #pinToHandshakeCarrier pin} a session.
 */
public interface ClientBindings {
    /**
     * Records the browser a session was created from, for later {@link Carrier#mayCarry} checks. Only the first call
     * for a session counts: a session never changes browser.
     *
     * @param session a session the transport just created (its handshake's {@link Carrier#attach})
     * @param browserId the browser's id (its cookie value), or null if it has none
     */
    void bindToBrowser(ServerSession session, String browserId);

    /**
     * @param session a session
     * @return the browser it was created from ({@link #bindToBrowser}), or null
     */
    String browserOf(ServerSession session);

    /**
     * @param session a session
     * @return true if it is bound to a browser: {@link #browserOf} is known, or, for a session this node adopted from
     *         another, only the cookie's digest is (the cookie becomes known when its client presents it)
     */
    default boolean isBoundToBrowser(ServerSession session) {
        return browserOf(session) != null;
    }

    /**
     * Whether a cookie a carrier presents is the one the session is bound to. A session adopted from another node
     * knows its cookie by its SHA-256 digest only (a store keeps no cookie): the presented cookie is hashed and
     * compared, so that the adopting node applies the same rule as the node that created the session.
     *
     * @param session a session
     * @param cookie a browser cookie, or null
     * @return true if it is the session's own
     */
    default boolean isBrowserOf(ServerSession session, String cookie) {
        return cookie != null && cookie.equals(browserOf(session));
    }

    /**
     * Records that the session's client presented, on a request or a WebSocket upgrade, the browser cookie the
     * session is bound to ({@link #bindToBrowser}). A cookie the server set on a response proves nothing until the
     * client sends it back: only then may a transport insist on it for every later message.
     *
     * @param session the session
     */
    void browserCookieShown(ServerSession session);

    /**
     * @param session a session
     * @return true once its client has presented its browser cookie ({@link #browserCookieShown})
     */
    boolean hasShownBrowserCookie(ServerSession session);

    /**
     * Pins a session to the carrier of its handshake: from then on a message naming it is accepted only from that
     * carrier (one WebSocket), and answered from any other, whatever cookie it shows, exactly as one naming an unknown
     * session ({@code 402::session_unknown}). To be called while the handshake is being decided (a handshake
     * extension or {@code SecurityPolicy.canHandshake}); the pin takes hold when the handshake succeeds, and outlives
     * nothing: when that carrier ends, the session can only expire, and its client must handshake again. A session
     * handshaken over HTTP, where each request is a carrier of its own ({@link CarrierCapabilities#persistentConnection()}
     * false), is instead bound strictly to the browser cookie of its handshake, whatever the binding mode, and carried
     * by no socket.
     *
     * @param session the session being handshaken
     */
    void pinToHandshakeCarrier(ServerSession session);

    /**
     * @param session a session
     * @return true if it was {@link #pinToHandshakeCarrier pinned}: transports then let no other carrier take it
     */
    boolean isPinned(ServerSession session);
}
