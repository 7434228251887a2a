package org.bayeux.transport.jetty;

import java.nio.ByteBuffer;
import java.util.function.Consumer;

import org.bayeux.transport.websocket.SocketCarrier;
import org.bayeux.transport.websocket.SocketPeer;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;

/**
 * Adapts one Jetty core WebSocket to a {@link SocketCarrier}: Jetty's events go to the carrier, the carrier's writes
 * and closes go to Jetty. Reading is demand-driven: the next message is demanded only once the carrier has processed
 * the current one.
 *
 * <p>The class is public only because Jetty calls the listener methods of endpoints through public method handles;
 * applications never create one.</p>
 */
public final class JettySocketListener implements Session.Listener, SocketPeer {
    private final SocketCarrier carrier;
    private volatile Session socket;

    JettySocketListener(SocketCarrier carrier) {
        this.carrier = carrier;
    }

    // ---- Session.Listener ------------------------------------------------------------------------------------

    @Override
    public void onWebSocketOpen(Session session) {
        socket = session;
        carrier.opened(this);
        session.demand();
    }

    @Override
    public void onWebSocketText(String text) {
        carrier.onText(text).thenAccept(readMore -> {
            if (readMore) {
                socket.demand();
            }
        });
    }

    @Override
    public void onWebSocketPartialBinary(ByteBuffer payload, boolean last, Callback callback) {
        callback.succeed();
        carrier.onBinary();
    }

    @Override
    public void onWebSocketError(Throwable cause) {
        carrier.onError(cause);
    }

    @Override
    public void onWebSocketClose(int statusCode, String reason, Callback callback) {
        carrier.onClosed(statusCode, reason);
        callback.succeed();
    }

    // ---- SocketPeer ------------------------------------------------------------------------------------------

    @Override
    public void sendText(String text, Consumer<Throwable> done) {
        socket.sendText(text, Callback.from(() -> done.accept(null), done::accept));
    }

    @Override
    public void close(int code, String reason) {
        socket.close(code, reason, Callback.NOOP);
    }

    @Override
    public void abort() {
        socket.disconnect();
    }

    @Override
    public String toString() {
        Session current = socket;
        return current == null ? "not open" : String.valueOf(current.getRemoteSocketAddress());
    }
}
