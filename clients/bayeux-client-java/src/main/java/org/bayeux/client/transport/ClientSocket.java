package org.bayeux.client.transport;

import java.io.IOException;
import java.util.function.Consumer;

import org.bayeux.websocket.text.TextFrameHandler;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.websocket.core.CloseStatus;
import org.eclipse.jetty.websocket.core.Frame;
import org.eclipse.jetty.websocket.core.OpCode;

/**
 * One WebSocket of the {@link WebSocketTransport}, on Jetty's core WebSocket API: whole text messages in, to the
 * transport. A socket that is closed or replaced can no longer affect its successor, because the transport checks
 * which socket an event comes from.
 *
 * <p>Why the core API rather than Jetty's endpoint API: the endpoint API calls an endpoint through method handles
 * bound to it, and the JVM specialises such a handle, spinning a class of its own, once it has been called 127
 * times. With thousands of clients in one JVM, each receiving at the same steady rate, that is thousands of classes
 * defined within the same second or two, and every client stalls while it happens (1 to 2 s at 10,000 clients
 * receiving 2 messages a second each, measured with the load client).</p>
 *
 * <p>The next frame is read once the transport has handled a message, so a slow listener slows the reading, not the
 * memory. A message over the client's limit closes the socket with 1009, a binary one with 1003.</p>
 */
final class ClientSocket extends TextFrameHandler {
    static final int CLOSE_NORMAL = 1000;
    static final int CLOSE_BAD_PAYLOAD = 1007;

    private final WebSocketTransport transport;

    ClientSocket(WebSocketTransport transport, int maxMessageBytes) {
        super(maxMessageBytes);
        this.transport = transport;
    }

    @Override
    protected void opened() {
    }

    @Override
    protected void onText(String text) {
        try {
            transport.received(this, text);
        } finally {
            demand();
        }
    }

    @Override
    protected void onBinary() {
        close(CLOSE_NOT_TEXT, "a Bayeux server sends text");
    }

    @Override
    public void onError(Throwable cause, Callback callback) {
        transport.closed(this, cause);
        callback.succeeded();
    }

    @Override
    public void onClosed(CloseStatus closeStatus, Callback callback) {
        String reason = closeStatus.getReason();
        transport.closed(this, new IOException("WebSocket closed: " + closeStatus.getCode()
                + (reason == null || reason.isEmpty() ? "" : " " + reason)));
        callback.succeeded();
    }

    /**
     * @param json a batch of messages
     * @param failed called if the write fails
     */
    void sendText(String json, Consumer<Throwable> failed) {
        session().sendFrame(new Frame(OpCode.TEXT, json), Callback.from(() -> {
        }, failed::accept), false);
    }
}
