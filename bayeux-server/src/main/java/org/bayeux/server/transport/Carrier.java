package org.bayeux.server.transport;

import org.bayeux.api.server.ServerSession;

/**
 * What carries messages between the engine and one client: an HTTP request (long-polling, callback-polling), an
 * open WebSocket, or an in-process local session. Transports implement it; the engine calls it.
 *
 * <p>The transport hands a batch of incoming messages to {@link TransportEngine#handle} together with the carrier
 * it arrived on, and the engine sends the answer through {@link #send(OutgoingMessages)}: at once, or later for a held
 * {@code /meta/connect}. Nothing about HTTP or WebSocket crosses this line.</p>
 *
 * <p>A carrier is what it {@link #capabilities() can do} (a record shared by every carrier of its kind), a way to
 * send, and two facets that only some transports implement: {@link #flowControl() flow control} for a carrier with a
 * write backlog (WebSocket) and a {@link #holdPolicy() hold policy} for one that caps or answers held connects
 * (long-polling). Each accessor returns the same object every time, so the delivery path allocates nothing to ask.</p>
 */
public interface Carrier {
    /**
     * @return what this carrier can do; the same instance on every call (transports share one per kind of carrier),
     *         for the engine asks on every delivery
     */
    CarrierCapabilities capabilities();

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
     * @return how this carrier paces pushes against its write backlog: {@link FlowControl#NONE} (the default) for a
     *         carrier without one, else the same instance on every call
     */
    default FlowControl flowControl() {
        return FlowControl.NONE;
    }

    /**
     * @return whether and how this carrier holds connects: {@link HoldPolicy#ALWAYS} (the default) for a carrier
     *         that allows every hold and answers nothing when one ends, else the same instance on every call
     */
    default HoldPolicy holdPolicy() {
        return HoldPolicy.ALWAYS;
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
