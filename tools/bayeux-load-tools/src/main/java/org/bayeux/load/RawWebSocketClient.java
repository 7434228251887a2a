package org.bayeux.load;

import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.websocket.core.CloseStatus;
import org.eclipse.jetty.websocket.core.Configuration;
import org.eclipse.jetty.websocket.core.CoreSession;
import org.eclipse.jetty.websocket.core.Frame;
import org.eclipse.jetty.websocket.core.FrameHandler;
import org.eclipse.jetty.websocket.core.OpCode;
import org.eclipse.jetty.websocket.core.client.CoreClientUpgradeRequest;
import org.eclipse.jetty.websocket.core.client.WebSocketCoreClient;

/**
 * The raw client over one WebSocket, on Jetty's core WebSocket API (a frame handler per socket, no endpoint method
 * handles): frames are read one at a time as they arrive and scanned in place, in Jetty's buffer.
 */
final class RawWebSocketClient extends RawClient implements FrameHandler {
    private static final int MAX_MESSAGE_BYTES = 1024 * 1024;
    private final WebSocketCoreClient webSockets;
    private final URI uri;
    private final long timeoutMillis;
    private volatile CoreSession session;
    /** A message split over several frames, joined here; null when none is (the usual case). */
    private ByteBuffer fragments;

    RawWebSocketClient(int index, Listener listener, WebSocketCoreClient webSockets, URI uri, long timeoutMillis) {
        super(index, listener, "websocket");
        this.webSockets = webSockets;
        this.uri = uri;
        this.timeoutMillis = timeoutMillis;
    }

    @Override
    void open() {
        CoreClientUpgradeRequest upgrade = CoreClientUpgradeRequest.from(webSockets, uri, this);
        upgrade.timeout(timeoutMillis, TimeUnit.MILLISECONDS);
        Configuration.ConfigurationCustomizer configuration = new Configuration.ConfigurationCustomizer();
        configuration.setMaxTextMessageSize(MAX_MESSAGE_BYTES);
        configuration.setIdleTimeout(java.time.Duration.ofMinutes(2));
        upgrade.setConfiguration(configuration);
        try {
            webSockets.connect(upgrade).whenComplete((opened, failure) -> {
                if (failure != null) {
                    failed("WebSocket upgrade failed: " + failure);
                }
            });
        } catch (IOException | RuntimeException failure) {
            failed("WebSocket upgrade failed: " + failure);
        }
    }

    @Override
    public void onOpen(CoreSession coreSession, Callback callback) {
        session = coreSession;
        callback.succeeded();
        coreSession.demand();
        send(handshakeMessage());
    }

    @Override
    public void onFrame(Frame frame, Callback callback) {
        switch (frame.getOpCode()) {
            case OpCode.TEXT, OpCode.CONTINUATION -> {
                ByteBuffer payload = frame.getPayload();
                if (frame.isFin() && fragments == null) {
                    // Read in Jetty's buffer, before it is given back.
                    received(payload);
                } else {
                    join(payload);
                    if (frame.isFin()) {
                        ByteBuffer whole = fragments.flip();
                        fragments = null;
                        received(whole);
                    }
                }
                callback.succeeded();
                session.demand();
            }
            case OpCode.PING -> {
                callback.succeeded();
                session.sendFrame(new Frame(OpCode.PONG).setPayload(copy(frame.getPayload())), Callback.NOOP, false);
                session.demand();
            }
            // Jetty answers the server's close frame once the callback succeeds, then calls onClosed.
            case OpCode.CLOSE -> callback.succeeded();
            default -> {
                callback.succeeded();
                session.demand();
            }
        }
    }

    private void join(ByteBuffer payload) {
        int needed = payload.remaining() + (fragments == null ? 0 : fragments.position());
        if (needed > MAX_MESSAGE_BYTES) {
            fragments = null;
            failed("a message of more than " + MAX_MESSAGE_BYTES + " bytes");
            return;
        }
        if (fragments == null || fragments.remaining() < payload.remaining()) {
            ByteBuffer larger = ByteBuffer.allocate(Math.max(needed, 2 * needed));
            if (fragments != null) {
                larger.put(fragments.flip());
            }
            fragments = larger;
        }
        fragments.put(payload.slice());
    }

    private static ByteBuffer copy(ByteBuffer payload) {
        ByteBuffer copy = ByteBuffer.allocate(payload == null ? 0 : payload.remaining());
        if (payload != null) {
            copy.put(payload.slice()).flip();
        }
        return copy;
    }

    @Override
    public void onError(Throwable cause, Callback callback) {
        callback.succeeded();
        failed("WebSocket error: " + cause);
    }

    @Override
    public void onClosed(CloseStatus closeStatus, Callback callback) {
        callback.succeeded();
        failed("WebSocket closed: " + closeStatus);
    }

    @Override
    void send(String json) {
        CoreSession current = session;
        if (current == null) {
            failed("not open");
            return;
        }
        current.sendFrame(new Frame(OpCode.TEXT, json), Callback.from(() -> { }, failure -> failed("write failed: "
                + failure)), false);
    }

    @Override
    void sendConnect(String json) {
        send(json);
    }

    @Override
    void release() {
        CoreSession current = session;
        if (current != null && !current.isClosed()) {
            current.close(CloseStatus.NORMAL, "disconnected", Callback.NOOP);
        }
    }
}
