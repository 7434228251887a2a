package org.bayeux.websocket.text;

import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.websocket.core.CoreSession;
import org.eclipse.jetty.websocket.core.Frame;
import org.eclipse.jetty.websocket.core.FrameHandler;
import org.eclipse.jetty.websocket.core.OpCode;
import org.eclipse.jetty.websocket.core.exception.CloseException;
import org.eclipse.jetty.websocket.core.exception.MessageTooLargeException;

/**
 * One connection of Jetty's core WebSocket API that speaks text messages, as both ends of Bayeux over WebSocket do:
 * whole messages in (joined by a {@link TextMessageAssembler}), pings answered, a close handshake that waits for
 * the peer's close frame.
 *
 * <p>Reading is demand-driven: after {@link #onOpen}, and after each frame that is not the end of a message, the
 * next frame is asked for here; after a whole message, only when the subclass calls {@link #demand()}, so that a
 * slow reader slows the reading, not the memory.</p>
 */
public abstract class TextFrameHandler implements FrameHandler {
    /** The close status for a peer that sent a binary message, where text was expected. */
    public static final int CLOSE_NOT_TEXT = 1003;

    private final TextMessageAssembler assembler;
    private volatile CoreSession session;
    // Guarded by this: Jetty refuses a second demand while one is pending.
    private boolean demanding;
    private boolean closing;

    /**
     * @param maxMessageBytes the largest incoming text message, in UTF-8 bytes
     */
    protected TextFrameHandler(int maxMessageBytes) {
        this.assembler = new TextMessageAssembler(maxMessageBytes);
    }

    /** The connection is open: {@link #session()} is set; reading starts when this returns. */
    protected abstract void opened();

    /**
     * A whole message arrived. Call {@link #demand()} to read the next one, now or later.
     *
     * @param text the message
     */
    protected abstract void onText(String text);

    /** A binary message arrived, which neither end of Bayeux sends. Nothing more is read unless demanded. */
    protected abstract void onBinary();

    /**
     * A message longer than the limit arrived: by default the connection closes with 1009.
     *
     * @param tooBig what was refused
     */
    protected void onTooBig(MessageTooLargeException tooBig) {
        close(tooBig.getStatusCode(), tooBig.getMessage());
    }

    @Override
    public final void onOpen(CoreSession coreSession, Callback callback) {
        session = coreSession;
        opened();
        callback.succeeded();
        demand();
    }

    @Override
    public final void onFrame(Frame frame, Callback callback) {
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
                Frame pong = TextMessageAssembler.pongFor(frame);
                callback.succeeded();
                session.sendFrame(pong, Callback.NOOP, false);
                demand();
            }
            case OpCode.BINARY -> {
                callback.succeeded();
                onBinary();
            }
            // Jetty answers the peer's close frame once the callback succeeds, then calls onClosed.
            case OpCode.CLOSE -> callback.succeeded();
            default -> {
                // A pong, or anything else the parser let through: nothing to do.
                callback.succeeded();
                demand();
            }
        }
    }

    private void onTextFrame(Frame frame, Callback callback) {
        String text;
        try {
            text = assembler.add(frame);
        } catch (MessageTooLargeException tooBig) {
            callback.succeeded();
            onTooBig(tooBig);
            return;
        } catch (CloseException refused) {
            callback.succeeded();
            close(refused.getStatusCode(), refused.getMessage());
            return;
        }
        // The frame's buffer goes back to Jetty only now that it has been read.
        callback.succeeded();
        if (text == null) {
            demand();
        } else {
            onText(text);
        }
    }

    /**
     * Asks for the next frame, unless a demand is already pending. On a connection that Jetty has already failed
     * (it refuses demand then, before it calls {@code onError} or {@code onClosed}) the connection is aborted
     * instead: nothing more can be read from it, and the caller, often stopping or closing, must not fail for it.
     */
    protected final void demand() {
        synchronized (this) {
            if (demanding) {
                return;
            }
            demanding = true;
        }
        try {
            session.demand();
        } catch (RuntimeException failedConnection) {
            // Jetty's permessage-deflate throws IllegalStateException("Flusher is failed") here once the connection
            // failed; Jetty reports the failure to onError/onClosed itself.
            abort();
        }
    }

    /**
     * Starts the close handshake, if the connection opened and no close was started before; it ends when the peer's
     * close frame is read. Closing a connection that already failed or closed is a no-op and never throws.
     *
     * @param code the close status
     * @param reason why, for the peer
     */
    public void close(int code, String reason) {
        CoreSession current = session;
        if (current == null) {
            return;
        }
        synchronized (this) {
            if (closing) {
                return;
            }
            closing = true;
        }
        try {
            current.close(code, reason, Callback.NOOP);
        } catch (RuntimeException failedConnection) {
            abort();
            return;
        }
        demand();
    }

    /** Closes the connection at once, without a close handshake, if it opened. */
    public void abort() {
        CoreSession current = session;
        if (current != null) {
            try {
                current.abort();
            } catch (RuntimeException alreadyGone) {
                // Aborting what already ended has nothing left to do.
            }
        }
    }

    /** @return the core session, or null before the connection opened */
    protected final CoreSession session() {
        return session;
    }

    @Override
    public String toString() {
        CoreSession current = session;
        return current == null ? "not open" : String.valueOf(current.getRemoteAddress());
    }
}
