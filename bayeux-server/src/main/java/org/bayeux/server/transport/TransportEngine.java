package org.bayeux.server.transport;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledFuture;
import java.util.function.Supplier;

import org.bayeux.api.server.ServerSession;
import org.bayeux.server.config.BayeuxServerConfig;

/**
 * What a transport needs of the engine, and all it may use: parse a batch, handle it on a {@link Carrier}, report a
 * carrier that died. The rest is what transports share with the engine rather than duplicate: its configuration, its
 * timer thread, one instance of a part per server, the transport names to advertise, and the browser a session was
 * created from (which only transports can see and only the engine outlives).
 *
 * <p>Answers travel the other way, through {@link Carrier#send(OutgoingMessages)}, already encoded.</p>
 */
public interface TransportEngine {
    /**
     * Parses a batch received as text.
     *
     * @param json the body or frame text
     * @return the batch
     * @throws BadBatchException if the batch cannot be processed at all
     */
    IncomingBatch parse(String json) throws BadBatchException;

    /**
     * Parses a batch received as UTF-8 bytes.
     *
     * @param utf8 the bytes
     * @param offset where the batch starts
     * @param length its length in bytes
     * @return the batch
     * @throws BadBatchException if the batch cannot be processed at all
     */
    IncomingBatch parse(byte[] utf8, int offset, int length) throws BadBatchException;

    /**
     * Processes a batch and sends its answer through the carrier: at once, or later if the batch is a connect that is
     * held.
     *
     * @param batch a batch from {@link #parse(String)} of this engine
     * @param carrier what the batch arrived on
     * @return completed when the batch has been processed (not necessarily answered)
     */
    CompletionStage<Void> handle(IncomingBatch batch, Carrier carrier);

    /**
     * Tells the engine a carrier died: the session's held connect is dropped and its expiry starts.
     *
     * @param session a session {@link Carrier#attach attached} to the carrier
     * @param carrier the carrier
     */
    void carrierFailed(ServerSession session, Carrier carrier);

    /**
     * The answer to a handshake the transport refuses before the engine sees it (too many sessions from one browser,
     * for example): unsuccessful, with the given error and advice, answering the handshake's id.
     *
     * @param handshake a batch that {@link IncomingBatch#isHandshake() is a handshake}
     * @param error the Bayeux error, for example {@code 403::too_many_sessions}
     * @param advice the advice to give
     * @return the reply, encoded, to send on the carrier the handshake arrived on
     */
    OutgoingMessages refuseHandshake(IncomingBatch handshake, String error, Map<String, Object> advice);

    /** @return the engine's configuration (message sizes, timeouts and queue limits apply to transports too) */
    BayeuxServerConfig getConfig();

    /**
     * Runs a short task later on the engine's timer thread, for transports' timers: one thread for every timer rather
     * than one per socket. The task must be quick and must not block.
     *
     * @param task the task
     * @param delay how long from now
     * @return the scheduled task, or null if the engine has stopped
     */
    ScheduledFuture<?> schedule(Runnable task, Duration delay);

    /**
     * The one instance of a part that every transport of this engine shares (the session caps of the HTTP and
     * WebSocket transports, for example), made by the first transport that asks. It lives as long as the engine, so
     * the transports of two engines in one JVM never share state.
     *
     * @param type the part's class, its key
     * @param factory makes the part on the first call
     * @param <T> the part's type
     * @return this engine's instance
     */
    <T> T transportPart(Class<T> type, Supplier<? extends T> factory);

    /**
     * @param names the transports to advertise in handshake replies and to accept in connects, in order
     */
    void setTransportNames(List<String> names);

    /**
     * Records the browser a session was created from, for later {@link Carrier#mayCarry} checks. Only the first call
     * for a session counts: a session never changes browser.
     *
     * @param session a session the transport just created (its handshake's {@link Carrier#attach})
     * @param browserId the browser's id (its cookie value), or null if it has none
     */
    void bindToBrowser(ServerSession session, String browserId);

    /**
     * @param session a session
     * @return the browser it was created from ({@link #bindToBrowser}), or null
     */
    String browserOf(ServerSession session);

    /**
     * Records that the session's client presented, on a request or a WebSocket upgrade, the browser cookie the
     * session is bound to ({@link #bindToBrowser}). A cookie the server set on a response proves nothing until the
     * client sends it back: only then may a transport insist on it for every later message.
     *
     * @param session the session
     */
    void browserCookieShown(ServerSession session);

    /**
     * @param session a session
     * @return true once its client has presented its browser cookie ({@link #browserCookieShown})
     */
    boolean hasShownBrowserCookie(ServerSession session);

    /**
     * Pins a session to the carrier of its handshake: from then on a message naming it is accepted only from that
     * carrier (one WebSocket), and answered from any other, whatever cookie it shows, exactly as one naming an unknown
     * session ({@code 402::session_unknown}). To be called while the handshake is being decided (a handshake
     * extension or {@code SecurityPolicy.canHandshake}); the pin takes hold when the handshake succeeds, and outlives
     * nothing: when that carrier ends, the session can only expire, and its client must handshake again. A session
     * handshaken over HTTP, where each request is a carrier of its own ({@link CarrierCapabilities#persistentConnection()}
     * false), is instead bound strictly to the browser cookie of its handshake, whatever the binding mode, and carried
     * by no socket.
     *
     * @param session the session being handshaken
     */
    void pinToHandshakeCarrier(ServerSession session);

    /**
     * @param session a session
     * @return true if it was {@link #pinToHandshakeCarrier pinned}: transports then let no other carrier take it
     */
    boolean isPinned(ServerSession session);
}
