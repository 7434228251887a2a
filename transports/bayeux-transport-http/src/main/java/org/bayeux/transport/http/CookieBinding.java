package org.bayeux.transport.http;

import org.bayeux.api.server.ServerSession;
import org.bayeux.server.transport.ClientBindings;
import org.bayeux.server.transport.TransportServices;

/**
 * The rule of {@link SessionBinding} that both transports apply: whether a carrier that presents a given browser
 * cookie may act as a session, and when a session's cookie counts as shown. The cookie given to the socket that adopted
 * a session ({@link FirstSocketAdoptions}) vouches for it as its own cookie does.
 *
 * <p>"Shown" means the client sent the cookie: a cookie the server sets on a handshake's reply or an upgrade's
 * response may never come back (clients that keep no cookies), so insisting on it from then on would cut such a
 * client off at its next request or socket. A cookie that came back proves the client keeps it, so from then on a
 * carrier without it is refused: whoever copied the {@code clientId} alone cannot act as the session.</p>
 */
public final class CookieBinding {
    private final ClientBindings bindings;
    private final SessionBinding mode;
    private final FirstSocketAdoptions adoptions;

    /**
     * @param services the engine's services: its bindings record each session's cookie and whether it was shown
     * @param mode the binding mode
     */
    public CookieBinding(TransportServices services, SessionBinding mode) {
        this.bindings = services.bindings();
        this.mode = mode;
        this.adoptions = FirstSocketAdoptions.of(services);
    }

    /** @return the binding mode */
    public SessionBinding mode() {
        return mode;
    }

    /**
     * Binds a session being created to its browser cookie.
     *
     * @param session the session its handshake just created
     * @param browserId the cookie it is bound to, or null if none
     * @param presented true if the client sent that cookie (on the handshake's request or the socket's upgrade),
     *        false if the server gave it on this response
     */
    public void bind(ServerSession session, String browserId, boolean presented) {
        bindings.bindToBrowser(session, browserId);
        if (presented && browserId != null && bindings.isBrowserOf(session, browserId)) {
            bindings.browserCookieShown(session);
        }
    }

    /**
     * Decides whether a carrier that presents a cookie may act as a session, by the mode; a carrier that presents the
     * session's own cookie marks it shown. Carrier-specific evidence (the socket already carrying the session, the
     * strict mode's first-socket allowance) is the caller's to add.
     *
     * @param session the session a message names
     * @param presentedCookie the browser cookie the client sent with this request or upgrade, or null
     * @return true if the carrier may act as the session
     */
    public boolean mayCarry(ServerSession session, String presentedCookie) {
        if (mode == SessionBinding.NONE) {
            return true;
        }
        if (vouchesFor(session, presentedCookie)) {
            bindings.browserCookieShown(session);
            return true;
        }
        return mode == SessionBinding.COOKIE_ONCE_SHOWN && !bindings.hasShownBrowserCookie(session);
    }

    /**
     * @param session a session
     * @param cookie a browser cookie, or null
     * @return true if the cookie is the session's own, or the one given to the socket that adopted it
     */
    public boolean vouchesFor(ServerSession session, String cookie) {
        // isBrowserOf, not browserOf: a session adopted from another node knows its cookie by its digest only.
        return cookie != null && (bindings.isBrowserOf(session, cookie)
                || cookie.equals(adoptions.adoptedCookie(session)));
    }
}
