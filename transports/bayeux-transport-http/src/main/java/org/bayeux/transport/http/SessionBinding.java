package org.bayeux.transport.http;

/**
 * How a session is bound to its client ({@link TransportConfig#SESSION_BINDING}): what a message naming a session's
 * {@code clientId} must also show to act as that session. Whatever the mode, a session pinned to its handshake's
 * socket ({@code TransportEngine.pinToHandshakeCarrier}) is carried by that socket only.
 */
public enum SessionBinding {
    /**
     * The default. A session whose client has presented its browser cookie ({@code BAYEUX_BROWSER}) on a request or
     * a WebSocket upgrade is from then on carried only by requests and sockets that present that cookie, or by the
     * socket that already carries it. A session whose client has never sent the cookie back (a cookie the server set
     * proves nothing until then) is found by its {@code clientId} alone, across reconnects and transports: the
     * clients that keep no cookies (CometD JS and ours in Node.js, native apps) keep their sessions. A socket a client
     * opened without a cookie just before its first handshake over HTTP (Faye) may take that session once, from the
     * handshake's address, even after the client has shown its cookie over HTTP.
     */
    COOKIE_ONCE_SHOWN,
    /**
     * Every session is bound from its handshake: over HTTP to the browser cookie of its handshake (the one the request
     * came with, or the one its reply set); over WebSocket to the socket that carries it or, on another socket, to
     * that cookie. A cookie-less client loses its session when its socket is replaced. One allowance for Faye: the
     * first cookie-less socket from the handshake's own address may take a session created by a cookie-less HTTP
     * handshake, once.
     */
    STRICT,
    /** Sessions are found by {@code clientId} alone (CometD's {@code trustClientSession=true}). */
    NONE
}
