package org.bayeux.transport.servlet;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import jakarta.websocket.CloseReason;
import jakarta.websocket.Endpoint;
import jakarta.websocket.EndpointConfig;
import jakarta.websocket.MessageHandler;
import jakarta.websocket.Session;

import org.bayeux.server.internal.RateLimitedLog;
import org.bayeux.transport.websocket.SocketCarrier;
import org.bayeux.transport.websocket.SocketPeer;
import org.bayeux.transport.websocket.SocketTransport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Jakarta WebSocket connection to the Bayeux endpoint: the container's events go to a {@link SocketCarrier}, the
 * carrier's writes and closes go to the container. A new instance serves each connection
 * ({@link BayeuxWebSocketConfigurator#getEndpointInstance(Class)}).
 *
 * <p>Jakarta WebSocket has no read demand: the container delivers a session's messages one at a time, each once the
 * previous {@code onMessage} returned. Each batch is chained after the previous one, so a client's batches are
 * processed in order without a container thread waiting; a client that keeps sending while more than
 * {@value #MAX_MESSAGES_IN_FLIGHT} of its batches wait for slow callbacks is closed with 1013. Writes use
 * {@link jakarta.websocket.RemoteEndpoint.Async}, one at a time; closes, which some containers perform with a
 * blocking write, run on the transport's executor so that the engine's threads never wait on a socket.</p>
 *
 * <p>Public only because some containers look up endpoint classes' methods reflectively; applications never create
 * one.</p>
 */
public final class BayeuxWebSocketEndpoint extends Endpoint implements SocketPeer {
    private static final Logger LOG = LoggerFactory.getLogger(BayeuxWebSocketEndpoint.class);
    private static final RateLimitedLog QUIET = new RateLimitedLog(LOG);
    /** How many of a connection's batches may wait for the engine before the connection is closed. */
    static final int MAX_MESSAGES_IN_FLIGHT = 64;

    private final SocketTransport transport;
    private final Executor closer;
    private final SocketCarrier carrier;
    private final AtomicInteger inFlight = new AtomicInteger();
    /** Guarded by this: the processing of the last message received, which the next one waits for. */
    private CompletionStage<Void> processing = CompletableFuture.completedFuture(null);
    private volatile Session session;

    BayeuxWebSocketEndpoint(SocketTransport transport, Executor closer) {
        this.transport = transport;
        this.closer = closer;
        this.carrier = transport.newCarrier();
    }

    @Override
    public void onOpen(Session socket, EndpointConfig config) {
        session = socket;
        if (Boolean.TRUE.equals(config.getUserProperties().get(BayeuxWebSocketConfigurator.ORIGIN_REFUSED))) {
            LOG.debug("Refused a WebSocket from a foreign origin");
            close(CloseReason.CloseCodes.VIOLATED_POLICY.getCode(), "origin not allowed");
            return;
        }
        socket.setMaxTextMessageBufferSize(transport.maxIncomingMessageBytes());
        socket.setMaxIdleTimeout(transport.idleTimeout().toMillis());
        socket.addMessageHandler(String.class, this::onText);
        socket.addMessageHandler(ByteBuffer.class, (MessageHandler.Whole<ByteBuffer>) binary -> carrier.onBinary());
        Object browserId = config.getUserProperties().get(BayeuxWebSocketConfigurator.BROWSER_ID);
        carrier.setBrowserId(browserId instanceof String ? (String) browserId : null,
                Boolean.TRUE.equals(config.getUserProperties().get(BayeuxWebSocketConfigurator.BROWSER_ID_GIVEN)));
        carrier.opened(this);
    }

    private void onText(String text) {
        if (carrier.isEnded()) {
            return;
        }
        if (inFlight.incrementAndGet() > MAX_MESSAGES_IN_FLIGHT) {
            // The engine is waiting on slow callbacks and the client keeps sending: stop it rather than buffer.
            QUIET.info("inFlight", "{} sent more than {} messages still being processed; closing it", this,
                    MAX_MESSAGES_IN_FLIGHT);
            close(CloseReason.CloseCodes.TRY_AGAIN_LATER.getCode(), "too many messages in flight");
            return;
        }
        // Each batch starts once the previous one is processed, without holding the container's thread: when the
        // engine answers at once (the usual case) the chain runs right here, in order.
        synchronized (this) {
            processing = processing.thenCompose(ignored -> carrier.onText(text)).handle((ignored, unexpected) -> {
                inFlight.decrementAndGet();
                if (unexpected != null) {
                    // onText never completes exceptionally; this is a bug, not a client's fault.
                    QUIET.warn("processing:" + unexpected.getClass().getName(), "Processing a message from {} failed",
                            this, unexpected);
                }
                return null;
            });
        }
    }

    @Override
    public void onClose(Session socket, CloseReason closeReason) {
        carrier.onClosed(closeReason.getCloseCode().getCode(), closeReason.getReasonPhrase());
    }

    @Override
    public void onError(Session socket, Throwable failure) {
        carrier.onError(failure);
    }

    // ---- SocketPeer ------------------------------------------------------------------------------------------

    @Override
    public void sendText(String text, Consumer<Throwable> done) {
        try {
            session.getAsyncRemote().sendText(text, result -> done.accept(result.isOK() ? null : result.getException()));
        } catch (RuntimeException closedOrBusy) {
            done.accept(closedOrBusy);
        }
    }

    @Override
    public void close(int code, String reason) {
        Session current = session;
        closer.execute(() -> {
            try {
                current.close(new CloseReason(CloseReason.CloseCodes.getCloseCode(code), reason));
            } catch (Exception failure) {
                LOG.debug("Closing {} failed", this, failure);
            }
        });
    }

    @Override
    public void abort() {
        // Jakarta WebSocket cannot drop a connection without a close frame; the container gives up on it when its
        // write times out.
        close(CloseReason.CloseCodes.GOING_AWAY.getCode(), "too slow");
    }

    @Override
    public String toString() {
        Session current = session;
        return current == null ? "not open" : "jakarta:" + current.getId();
    }
}
