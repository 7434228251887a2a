package org.bayeux.transport.jetty;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Set;
import java.util.function.Consumer;

import org.bayeux.transport.websocket.SocketCarrier;
import org.bayeux.transport.websocket.SocketPeer;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.websocket.core.CloseStatus;
import org.eclipse.jetty.websocket.core.CoreSession;
import org.eclipse.jetty.websocket.core.Frame;
import org.eclipse.jetty.websocket.core.FrameHandler;
import org.eclipse.jetty.websocket.core.OpCode;

/**
 * Adapts one connection of Jetty's core WebSocket to a {@link SocketCarrier}: frames in, texts and closes out.
 *
 * <p>Why the core API rather than Jetty's endpoint API: an endpoint session keeps the upgrade request (with its
 * HTTP connection, parser and headers) and a set of method handles for as long as the socket is open, a few
 * kilobytes per idle client. Here a connection holds only what it needs: the core session and the text being
 * received.</p>
 *
 * <p>Reading is demand-driven: the next frame is asked for only once the current one is handled, and the frame after
 * a whole message only once the carrier has processed the message. Text frames are joined into one message of at
 * most {@code maxMessageBytes} (else the socket closes with 1009) and must be valid UTF-8 (else 1007); a binary
 * message closes the socket with 1003; pings are answered.</p>
 */
final class JettySocket implements FrameHandler, SocketPeer {
    private static final int CLOSE_BAD_PAYLOAD = 1007;

    private final SocketCarrier carrier;
    private final int maxMessageBytes;
    private final Set<JettySocket> open;
    private volatile CoreSession session;
    // Guarded by this: Jetty refuses a second demand while one is pending.
    private boolean demanding;
    private boolean closing;
    // Touched only by onFrame, which Jetty calls one frame at a time, on demand.
    private byte[] partial;
    private int partialLength;

    /**
     * @param carrier the carrier of this connection
     * @param maxMessageBytes the largest incoming text message, in bytes
     * @param open the open sockets of the transport: this one is in it from its opening to its closing
     */
    JettySocket(SocketCarrier carrier, int maxMessageBytes, Set<JettySocket> open) {
        this.carrier = carrier;
        this.maxMessageBytes = maxMessageBytes;
        this.open = open;
    }

    // ---- FrameHandler ----------------------------------------------------------------------------------------

    @Override
    public void onOpen(CoreSession coreSession, Callback callback) {
        session = coreSession;
        open.add(this);
        carrier.opened(this);
        callback.succeeded();
        demand();
    }

    @Override
    public void onFrame(Frame frame, Callback callback) {
        boolean closed;
        synchronized (this) {
            demanding = false;
            closed = closing;
        }
        if (closed && frame.getOpCode() != OpCode.CLOSE) {
            // We are closing: read on only to receive the peer's close frame.
            callback.succeeded();
            demand();
            return;
        }
        switch (frame.getOpCode()) {
            case OpCode.TEXT, OpCode.CONTINUATION -> onTextFrame(frame, callback);
            case OpCode.PING -> {
                ByteBuffer payload = frame.hasPayload() ? copy(frame.getPayload()) : null;
                callback.succeeded();
                session.sendFrame(new Frame(OpCode.PONG, payload), Callback.NOOP, false);
                demand();
            }
            case OpCode.BINARY -> {
                callback.succeeded();
                carrier.onBinary();
            }
            case OpCode.CLOSE -> callback.succeeded();
            default -> {
                // A pong, or anything else the parser let through: nothing to do.
                callback.succeeded();
                demand();
            }
        }
    }

    private void onTextFrame(Frame frame, Callback callback) {
        ByteBuffer payload = frame.getPayload();
        int length = payload == null ? 0 : payload.remaining();
        if ((long) partialLength + length > maxMessageBytes) {
            callback.succeeded();
            partial = null;
            carrier.onTooBig();
            return;
        }
        byte[] whole;
        if (frame.isFin() && partial == null) {
            whole = new byte[length];
            if (length > 0) {
                payload.get(whole);
            }
        } else {
            append(payload, length);
            if (!frame.isFin()) {
                callback.succeeded();
                demand();
                return;
            }
            whole = partialLength == partial.length ? partial : Arrays.copyOf(partial, partialLength);
            partial = null;
            partialLength = 0;
        }
        callback.succeeded();
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(whole))
                    .toString();
        } catch (CharacterCodingException invalid) {
            close(CLOSE_BAD_PAYLOAD, "invalid UTF-8");
            return;
        }
        carrier.onText(text).thenAccept(readMore -> {
            if (readMore) {
                demand();
            }
        });
    }

    private void demand() {
        synchronized (this) {
            if (demanding) {
                return;
            }
            demanding = true;
        }
        session.demand();
    }

    private void append(ByteBuffer payload, int length) {
        if (partial == null) {
            partial = new byte[Math.max(length, 1024)];
            partialLength = 0;
        } else if (partialLength + length > partial.length) {
            partial = Arrays.copyOf(partial, Math.min(maxMessageBytes, Math.max(partialLength + length,
                    partial.length * 2)));
        }
        if (length > 0) {
            payload.get(partial, partialLength, length);
            partialLength += length;
        }
    }

    private static ByteBuffer copy(ByteBuffer payload) {
        ByteBuffer copy = ByteBuffer.allocate(payload.remaining());
        copy.put(payload.slice()).flip();
        return copy;
    }

    @Override
    public void onError(Throwable cause, Callback callback) {
        carrier.onError(cause);
        callback.succeeded();
    }

    @Override
    public void onClosed(CloseStatus closeStatus, Callback callback) {
        carrier.onClosed(closeStatus.getCode(), closeStatus.getReason());
        open.remove(this);
        callback.succeeded();
    }

    // ---- SocketPeer ------------------------------------------------------------------------------------------

    @Override
    public void sendText(String text, Consumer<Throwable> done) {
        session.sendFrame(new Frame(OpCode.TEXT, text), Callback.from(() -> done.accept(null), done::accept), false);
    }

    @Override
    public void sendText(byte[] utf8, Consumer<Throwable> done) {
        session.sendFrame(new Frame(OpCode.TEXT, ByteBuffer.wrap(utf8)), Callback.from(() -> done.accept(null),
                done::accept), false);
    }

    @Override
    public void close(int code, String reason) {
        synchronized (this) {
            closing = true;
        }
        session.close(code, reason, Callback.NOOP);
        // The close handshake ends with the peer's close frame, which is read only on demand.
        demand();
    }

    @Override
    public void abort() {
        session.abort();
    }

    @Override
    public String toString() {
        CoreSession current = session;
        return current == null ? "not open" : String.valueOf(current.getRemoteAddress());
    }
}
