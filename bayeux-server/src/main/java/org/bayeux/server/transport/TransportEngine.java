package org.bayeux.server.transport;

import java.util.Map;
import java.util.concurrent.CompletionStage;

import org.bayeux.api.server.ServerSession;

/**
 * The core of what a transport needs of the engine to run a client's sessions: parse a batch, handle it (handshake,
 * connect, publish, subscribe...) on a {@link Carrier}, report a carrier that died, refuse a handshake before the
 * engine sees it. A transport calls these for every message it receives.
 *
 * <p>What transports share with the engine rather than duplicate, and call at start or now and then, is apart, in
 * {@link #services()}: the configuration, the timer thread, one instance of a part per engine, the transport names to
 * advertise, and the {@link ClientBindings bindings} of sessions to their browser and carrier.</p>
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

    /**
     * @return what the transports of this engine share with it and with each other (configuration, timer, shared
     *         parts, advertised names) and the bindings of sessions to their clients; the same instance on every call
     */
    TransportServices services();
}
