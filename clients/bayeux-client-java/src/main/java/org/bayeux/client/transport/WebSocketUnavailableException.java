package org.bayeux.client.transport;

import java.io.IOException;

/**
 * The server answered a WebSocket upgrade with something other than an upgrade (for example 400 or 404, from a
 * server or a proxy that does not do WebSocket) on a client that never had a WebSocket open: the client falls back
 * to long-polling.
 */
public final class WebSocketUnavailableException extends IOException {
    /** The version of the serialized form. */
    private static final long serialVersionUID = 1L;

    /**
     * @param cause the failed upgrade
     */
    public WebSocketUnavailableException(Throwable cause) {
        super("The server does not accept WebSocket upgrades: " + cause.getMessage(), cause);
    }
}
