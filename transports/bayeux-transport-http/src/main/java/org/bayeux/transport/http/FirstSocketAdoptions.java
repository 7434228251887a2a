package org.bayeux.transport.http;

import java.util.concurrent.ConcurrentHashMap;

import org.bayeux.api.server.ServerSession;
import org.bayeux.server.transport.TransportServices;

/**
 * Lets a WebSocket opened before its client had a browser cookie take over the session that client just created over
 * HTTP, once.
 *
 * <p>Faye opens its WebSocket while its first handshake is still on its way over HTTP (it checks early that the
 * socket works), so the socket's upgrade carries no cookie, while the session the handshake creates is bound to the
 * cookie set on the handshake's reply. The socket cannot prove it belongs to that browser, and every message it
 * carries for the session would be refused. So a session created over HTTP by a handshake that came without a cookie
 * is marked as awaiting its first socket: the first socket that names it, if its upgrade carried no cookie and came
 * from the same remote address as the handshake, may carry it from then on; the mark is then gone, and so it is once
 * any socket has carried the session. Any other socket is refused as usual: a stolen {@code clientId} is worth
 * something only from the victim's own address, before the victim's own socket has named it, which in practice is
 * the few milliseconds between Faye's handshake reply and its first connect. The cookie the adopting socket was given
 * on its upgrade then vouches for the session as the handshake's does: Faye's jar keeps whichever of the two arrived
 * last and sends it on its later requests and sockets, so either must work, whatever order they arrived in.</p>
 *
 * <p>One instance serves every transport of an engine ({@link #of(TransportServices)}).</p>
 */
public final class FirstSocketAdoptions {
    /** Session id to the remote address of its handshake. */
    private final ConcurrentHashMap<String, String> awaiting = new ConcurrentHashMap<>();
    /**
     * Session id to the cookie given on the upgrade of the socket that adopted it: Faye's jar may keep that cookie
     * rather than its handshake's, and send it on its later requests and sockets.
     */
    private final ConcurrentHashMap<String, String> adoptedCookies = new ConcurrentHashMap<>();

    /**
     * @param services the services of the engine whose transports share the marks
     * @return the engine's instance
     */
    public static FirstSocketAdoptions of(TransportServices services) {
        return services.transportPart(FirstSocketAdoptions.class, FirstSocketAdoptions::new);
    }

    /**
     * Marks a session created over HTTP by a handshake without a cookie. The mark goes with the session.
     *
     * @param session the new session
     * @param address the handshake's remote address, or null (then no socket may adopt the session)
     */
    void awaitSocket(ServerSession session, String address) {
        if (address == null) {
            return;
        }
        awaiting.put(session.getId(), address);
        session.addRemovedListener((removed, message, expired) -> {
            awaiting.remove(removed.getId());
            adoptedCookies.remove(removed.getId());
        });
        if (!session.isHandshook()) {
            awaiting.remove(session.getId());
        }
    }

    /**
     * A socket whose upgrade carried no cookie names a session: it may carry it if the session awaits its first
     * socket and the socket comes from the handshake's address; then the session awaits no more. A socket from
     * another address changes nothing.
     *
     * @param session the session named
     * @param socketAddress the socket's remote address, or null
     * @return true if the socket adopts the session
     */
    public boolean adopt(ServerSession session, String socketAddress) {
        return adopt(session, socketAddress, null);
    }

    /**
     * As {@link #adopt(ServerSession, String)}; when the socket adopts the session, the cookie its upgrade was given
     * vouches for the session too from then on ({@link #adoptedCookie(ServerSession)}): the server gave it to the
     * client that now carries the session, and a client whose jar keeps it (Faye) sends it on its next requests.
     *
     * @param session the session named
     * @param socketAddress the socket's remote address, or null
     * @param givenCookie the cookie the socket's upgrade response set, or null
     * @return true if the socket adopts the session
     */
    public boolean adopt(ServerSession session, String socketAddress, String givenCookie) {
        if (socketAddress == null || !awaiting.remove(session.getId(), socketAddress)) {
            return false;
        }
        if (givenCookie != null) {
            adoptedCookies.put(session.getId(), givenCookie);
            if (!session.isHandshook()) {
                // Removed meanwhile: its listener may have run before the put.
                adoptedCookies.remove(session.getId());
            }
        }
        return true;
    }

    /**
     * @param session a session
     * @return the cookie given to the socket that adopted it, which vouches for it as its own cookie does; or null
     */
    public String adoptedCookie(ServerSession session) {
        return adoptedCookies.isEmpty() ? null : adoptedCookies.get(session.getId());
    }

    /**
     * A socket carries the session (it was handshaken on it, or proved its cookie): no other may adopt it.
     *
     * @param session the session
     */
    public void carriedBySocket(ServerSession session) {
        if (!awaiting.isEmpty()) {
            awaiting.remove(session.getId());
        }
    }

    /** @return how many sessions await their first socket now */
    public int awaiting() {
        return awaiting.size();
    }
}
