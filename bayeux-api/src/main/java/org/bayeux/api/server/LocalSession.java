package org.bayeux.api.server;

import org.bayeux.api.client.ClientSession;

/**
 * A client that lives inside the server: it handshakes, subscribes and publishes in-process, with no JSON and no
 * network. Services use one to publish and to answer on service channels.
 */
public interface LocalSession extends ClientSession {
    /** @return the server's session for this client; null before the handshake */
    ServerSession getServerSession();
}
