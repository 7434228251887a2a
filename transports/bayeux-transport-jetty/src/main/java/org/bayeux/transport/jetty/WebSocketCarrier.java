package org.bayeux.transport.jetty;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.server.BayeuxServerImpl;
import org.bayeux.server.ServerMessageImpl;
import org.bayeux.server.transport.BadBatchException;
import org.bayeux.server.transport.Carrier;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.eclipse.jetty.websocket.api.StatusCode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One WebSocket connection: the Jetty endpoint that receives its frames and the {@link Carrier} through which the
 * engine answers and pushes.
 *
 * <p>Each text message is one JSON batch. The next message is read only once the engine has processed the current
 * one, so a client's batches are handled in order and a client that floods the socket is slowed down by TCP. Every
 * {@link #send(List)} becomes one text frame, or several when a list of plain deliveries exceeds the configured
 * frame size; a list holding any reply is never split, so that under the {@code ack} extension a batch of messages
 * and the {@code /meta/connect} reply that numbers it always travel together.</p>
 *
 * <p>However the connection ends (close frame, error, idle timeout, failed write, a close of our own), the carrier
 * ends once: pending writes are dropped and the engine is told, for each session the carrier ever carried, through
 * {@link BayeuxServerImpl#carrierFailed(ServerSession, Carrier)}, so that held connects are released and expiry
 * starts. That call is handed to an executor: the engine may be calling {@link #send(List)} under a session's lock
 * on the thread where Jetty reports a failure.</p>
 *
 * <p>The class is public only because Jetty calls the listener methods of endpoints through public method handles;
 * applications never create one.</p>
 */
public final class WebSocketCarrier implements Carrier, Session.Listener {
    private static final Logger LOG = LoggerFactory.getLogger(WebSocketCarrier.class);
    /** A close frame holds at most 125 bytes, 2 of them the code; stay well below. */
    private static final int MAX_REASON_LENGTH = 100;

    private final WebSocketTransport transport;
    private final BayeuxServerImpl engine;
    // Guarded by this.
    private final List<ServerSession> attached = new ArrayList<>(1);
    private boolean ended;
    private boolean opened;
    private volatile Session socket;
    private volatile FrameWriter writer;

    WebSocketCarrier(WebSocketTransport transport) {
        this.transport = transport;
        this.engine = transport.engine();
    }

    // ---- Carrier ---------------------------------------------------------------------------------------------

    @Override
    public String transportName() {
        return WebSocketTransport.NAME;
    }

    @Override
    public boolean canHoldConnect() {
        return true;
    }

    @Override
    public boolean pushesWhileHeld() {
        return true;
    }

    @Override
    public int maxResponseBytes() {
        // The engine then never hands over more queued messages than fit one frame, connect replies included
        // (which must stay whole under ack): clients' default limit on an incoming message is 64 KiB.
        return transport.maxOutgoingFrameBytes();
    }

    @Override
    public boolean allowsPiggyback() {
        return true;
    }

    @Override
    public void send(List<ServerMessage> messages) {
        FrameWriter current = writer;
        if (current == null || messages.isEmpty()) {
            return;
        }
        if (!current.write(frames(messages))) {
            // A peer that does not read would not read a close frame either.
            LOG.info("{} has {} frames waiting to be written; dropping it as too slow", this, current.pendingFrames());
            socket.disconnect();
            end();
        }
    }

    @Override
    public void attach(ServerSession session) {
        synchronized (this) {
            if (!ended) {
                // Sessions that ended stay referenced until the socket closes; drop them as new ones come.
                attached.removeIf(old -> !old.isHandshook());
                if (!attached.contains(session)) {
                    attached.add(session);
                }
                return;
            }
        }
        // The socket died while the engine was processing a batch from it.
        transport.execute(() -> engine.carrierFailed(session, this));
    }

    /**
     * Encodes messages as text frames: one frame, unless the list holds only deliveries and is larger than the
     * frame size, in which case it is cut between messages (a message larger than the frame size gets a frame of
     * its own).
     */
    private List<String> frames(List<ServerMessage> messages) {
        byte[] whole = engine.toJson(messages);
        int maxFrame = transport.maxOutgoingFrameBytes();
        if (whole.length <= maxFrame || messages.size() == 1 || containsReply(messages)) {
            return List.of(new String(whole, StandardCharsets.UTF_8));
        }
        List<String> frames = new ArrayList<>();
        ByteArrayOutputStream frame = new ByteArrayOutputStream(maxFrame);
        for (ServerMessage message : messages) {
            byte[] single = engine.toJson(List.of(message));
            // single is "[" + message + "]": the message is everything between the brackets.
            int length = single.length - 2;
            if (frame.size() > 0 && frame.size() + 1 + length + 1 > maxFrame) {
                frames.add(closeFrame(frame));
            }
            frame.write(frame.size() == 0 ? '[' : ',');
            frame.write(single, 1, length);
        }
        frames.add(closeFrame(frame));
        return frames;
    }

    private static String closeFrame(ByteArrayOutputStream frame) {
        frame.write(']');
        String text = frame.toString(StandardCharsets.UTF_8);
        frame.reset();
        return text;
    }

    private static boolean containsReply(List<ServerMessage> messages) {
        for (ServerMessage message : messages) {
            if (message.isReply() || message.isMeta()) {
                return true;
            }
        }
        return false;
    }

    // ---- Session.Listener ------------------------------------------------------------------------------------

    @Override
    public void onWebSocketOpen(Session session) {
        socket = session;
        writer = new FrameWriter(session, transport.maxPendingFrames(), this::writeFailed);
        synchronized (this) {
            opened = true;
        }
        transport.opened();
        session.demand();
    }

    @Override
    public void onWebSocketText(String text) {
        List<ServerMessageImpl> batch;
        try {
            batch = engine.parse(text);
        } catch (BadBatchException bad) {
            LOG.debug("Closing {}: bad batch", this, bad);
            close(StatusCode.SERVER_ERROR, bad.getMessage());
            return;
        }
        CompletionStage<Void> handled;
        try {
            handled = engine.handle(batch, this);
        } catch (RuntimeException failure) {
            handled = CompletableFuture.failedFuture(failure);
        }
        handled.whenComplete((ignored, failure) -> {
            if (failure != null) {
                LOG.warn("Failed to handle a batch from {}", this, failure);
                close(StatusCode.SERVER_ERROR, "internal error");
            } else if (!isEnded()) {
                socket.demand();
            }
        });
    }

    @Override
    public void onWebSocketPartialBinary(ByteBuffer payload, boolean last, Callback callback) {
        callback.succeed();
        close(StatusCode.BAD_DATA, "binary frames are not accepted");
    }

    @Override
    public void onWebSocketError(Throwable cause) {
        LOG.debug("{} failed", this, cause);
        end();
    }

    @Override
    public void onWebSocketClose(int statusCode, String reason, Callback callback) {
        LOG.debug("{} closed: {} {}", this, statusCode, reason);
        end();
        callback.succeed();
    }

    // ---- end of life -----------------------------------------------------------------------------------------

    private void writeFailed(Throwable failure) {
        if (isEnded()) {
            // Writes fail once the socket is closing; the close frame, if any, must not be cut short.
            return;
        }
        LOG.debug("A write on {} failed", this, failure);
        socket.disconnect();
        end();
    }

    /** Closes the socket with a code and ends the carrier now, without waiting for the peer's close frame. */
    private void close(int code, String reason) {
        socket.close(code, printableAscii(reason), Callback.NOOP);
        end();
    }

    /** A close reason must fit a control frame: short, and here plain ASCII so that its length in bytes is known. */
    private static String printableAscii(String reason) {
        String text = reason == null ? "" : reason;
        StringBuilder safe = new StringBuilder(Math.min(text.length(), MAX_REASON_LENGTH));
        for (int i = 0; i < text.length() && safe.length() < MAX_REASON_LENGTH; i++) {
            char c = text.charAt(i);
            safe.append(c >= 0x20 && c < 0x7F ? c : '?');
        }
        return safe.toString();
    }

    private synchronized boolean isEnded() {
        return ended;
    }

    /** Ends the carrier, once: drops pending writes and tells the engine about every session it carried. */
    private void end() {
        List<ServerSession> sessions;
        boolean counted;
        synchronized (this) {
            if (ended) {
                return;
            }
            ended = true;
            counted = opened;
            sessions = List.copyOf(attached);
            attached.clear();
        }
        FrameWriter current = writer;
        if (current != null) {
            current.abandon();
        }
        if (counted) {
            transport.closed();
        }
        if (!sessions.isEmpty()) {
            transport.execute(() -> {
                for (ServerSession session : sessions) {
                    engine.carrierFailed(session, this);
                }
            });
        }
    }

    @Override
    public String toString() {
        Session current = socket;
        return "WebSocket[" + (current == null ? "not open" : current.getRemoteSocketAddress()) + "]";
    }
}
