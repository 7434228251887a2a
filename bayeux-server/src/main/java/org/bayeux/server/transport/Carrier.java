package org.bayeux.server.transport;

import java.util.Map;

import org.bayeux.api.server.ServerSession;

/**
 * What carries messages between the engine and one client: an HTTP request (long-polling, callback-polling), an
 * open WebSocket, or an in-process local session. Transports implement it; the engine calls it.
 *
 * <p>The transport hands a batch of incoming messages to {@link TransportEngine#handle} together with the carrier
 * it arrived on, and the engine sends the answer through {@link #send(OutgoingMessages)}: at once, or later for a held
 * {@code /meta/connect}. Nothing about HTTP or WebSocket crosses this line.</p>
 */
public interface Carrier {
    /** @return the transport name, as advertised in handshakes, for example {@code long-polling} */
    String transportName();

    /**
     * @return true if a lone {@code /meta/connect} arriving on this carrier may be held until messages arrive or
     *         the timeout passes
     */
    boolean canHoldConnect();

    /**
     * @return true if messages may be sent on this carrier while a connect is held, without completing it
     *         (WebSocket); false if the held connect's reply is the only way out (long-polling)
     */
    boolean pushesWhileHeld();

    /**
     * @return true if this carrier is one connection that carries its client's later batches too (a WebSocket), so
     *         that a session may be pinned to it ({@link TransportEngine#pinToHandshakeCarrier}); false if it carries
     *         one batch (an HTTP request)
     */
    default boolean isPersistentConnection() {
        return false;
    }

    /**
     * @return true if queued messages may ride along with replies to messages other than {@code /meta/connect}
     */
    boolean allowsPiggyback();

    /**
     * Sends messages to the client: the answer to a batch, the reply to a held connect, or pushed deliveries.
     * Must not block, and must not call back into the engine from the calling thread: the engine may call it while
     * holding a session's lock, to keep the session's messages in order.
     *
     * <p>The messages come encoded ({@link OutgoingMessages#toJson()}): a carrier writes those bytes and never
     * encodes, so a broadcast is encoded once however many carriers send it.</p>
     *
     * @param messages the messages, frozen, in order; never empty
     */
    void send(OutgoingMessages messages);

    /**
     * @return the most JSON bytes of queued messages to send at once (an HTTP response, a WebSocket frame); the
     *         rest stay queued for the next delivery. One message is always sent, however large.
     */
    default int maxResponseBytes() {
        return Integer.MAX_VALUE;
    }

    /**
     * @return the bytes handed to {@link #send(OutgoingMessages)} that the network has not yet taken (a socket's write backlog);
     *         they count against the session's {@code maxQueueBytes} together with its queue. Must not block.
     */
    default long pendingBytes() {
        return 0;
    }

    /**
     * Asks, before a push hands over more messages, whether the carrier's write backlog is already large enough: if
     * so, the messages had better wait in the session's queue, where the max-queue policy can still drop the oldest
     * of them, than in the socket's backlog, where nothing can be taken back. Called under the session's lock.
     *
     * @param resume run once when the backlog has shrunk, on a thread that holds no session's lock, if this returns
     *        true
     * @return true if the push should wait for {@code resume}; false to push now (resume is then never run)
     */
    default boolean deferPush(Runnable resume) {
        return false;
    }

    /**
     * Runs a push of a session's queued messages on this carrier, which {@link #pushesWhileHeld()}. The engine asks
     * at most once per session until the push has run, so a carrier that runs it later, on a thread of its own,
     * lets every message queued meanwhile leave in one {@link #send(OutgoingMessages)}: under load, pushes group themselves
     * instead of costing one write per message. The default runs it at once, on the calling thread.
     *
     * <p>The push must run eventually unless the carrier has died; it takes the session's lock, so it must not run
     * on a thread that holds another session's lock.</p>
     *
     * @param push the push
     */
    default void executePush(Runnable push) {
        push.run();
    }

    /**
     * A connect held on this carrier was replaced by a newer one and will get no reply from the engine. Long-polling
     * answers such a request with an HTTP error status; WebSocket sends nothing.
     */
    default void superseded() {
    }

    /**
     * Asks whether a connect of this session may be held now; HTTP transports refuse when too many sessions of the
     * same browser already hold one.
     *
     * @param session the session whose connect could be held
     * @return null to allow the hold, or advice fields to put in the connect reply, which is then sent at once
     */
    default Map<String, Object> refuseHold(ServerSession session) {
        return null;
    }

    /**
     * A connect of this session that {@link #refuseHold(ServerSession)} allowed is no longer held.
     *
     * @param session the session
     */
    default void holdEnded(ServerSession session) {
    }

    /**
     * The engine now delivers this session's messages through this carrier (on a handshake or a connect). A
     * transport that can tell when the carrier dies calls
     * {@link TransportEngine#carrierFailed(ServerSession, Carrier)} for each attached session.
     *
     * @param session the session
     */
    default void attach(ServerSession session) {
    }

    /**
     * Asks whether a message that arrived on this carrier may act as the session its {@code clientId} names. A
     * carrier that cannot prove it belongs to the session's client (HTTP: not the browser cookie the session was
     * created with; WebSocket: neither the socket that carries it nor that cookie) answers false, and the engine
     * then treats the message exactly as one naming an unknown session ({@code 402::session_unknown}), so that a
     * stolen {@code clientId} is worth nothing and a probe learns nothing.
     *
     * @param session a live remote session named by a message that arrived on this carrier
     * @return true if the message may act as the session
     */
    default boolean mayCarry(ServerSession session) {
        return true;
    }
}
