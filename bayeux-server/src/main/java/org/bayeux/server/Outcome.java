package org.bayeux.server;

import java.util.List;

import org.bayeux.api.Message;
import org.bayeux.api.server.ServerMessage;

/**
 * What processing one incoming message produced: a reply (or none, if an extension dropped it), messages that must
 * go before it (the queue a connect reply carries), and whether a connect is now held.
 */
final class Outcome {
    static final Outcome HELD = new Outcome(null, null, List.of(), true);

    final ServerSessionImpl session;
    final ServerMessageImpl reply;
    final List<ServerMessage> before;
    final boolean held;
    /** The reply leaves only once the session was written through its store ({@link ServerSessionImpl#writeThrough}). */
    final boolean writeThrough;

    private Outcome(ServerSessionImpl session, ServerMessageImpl reply, List<ServerMessage> before, boolean held) {
        this(session, reply, before, held, false);
    }

    private Outcome(ServerSessionImpl session, ServerMessageImpl reply, List<ServerMessage> before, boolean held,
            boolean writeThrough) {
        this.session = session;
        this.reply = reply;
        this.before = before;
        this.held = held;
        this.writeThrough = writeThrough;
    }

    /**
     * @param session the session the reply is for
     * @param reply a handshake's or subscription's reply
     * @param writeThrough whether the reply waits for the session to be written through its store (a store that adopts
     *                     sessions)
     * @return the outcome
     */
    static Outcome reply(ServerSessionImpl session, ServerMessageImpl reply, boolean writeThrough) {
        return new Outcome(session, reply, List.of(), false, writeThrough);
    }

    /** @return an outcome that sends nothing: a connect withheld because its session moved to another node */
    static Outcome nothing() {
        return new Outcome(null, null, List.of(), false);
    }

    static Outcome reply(ServerSessionImpl session, ServerMessageImpl reply) {
        return new Outcome(session, reply, List.of(), false);
    }

    static Outcome reply(ServerSessionImpl session, ServerMessageImpl reply, List<ServerMessage> before) {
        return new Outcome(session, reply, before, false);
    }

    Outcome withoutReply() {
        return new Outcome(session, null, before, held, writeThrough);
    }

    /**
     * @param request the request
     * @return a reply echoing the request's channel and id, associated with it
     */
    static ServerMessageImpl replyTo(ServerMessage request) {
        ServerMessageImpl reply = new ServerMessageImpl();
        Object channel = request.get(Message.CHANNEL_FIELD);
        if (channel instanceof String) {
            reply.setChannel((String) channel);
        }
        Object id = request.get(Message.ID_FIELD);
        if (id != null) {
            reply.put(Message.ID_FIELD, id);
        }
        reply.setAssociated(request);
        return reply;
    }

    /**
     * Marks a reply failed with a limit's error.
     *
     * @param reply the reply
     * @param limit the limit the request broke
     * @return the reply
     */
    static ServerMessageImpl fail(ServerMessageImpl reply, Limit limit) {
        reply.setSuccessful(false);
        reply.setError(limit.error());
        return reply;
    }

    /**
     * Marks a reply failed.
     *
     * @param reply the reply
     * @param code the three-digit code
     * @param args the arguments, may be empty
     * @param token the short error token
     * @return the reply
     */
    static ServerMessageImpl fail(ServerMessageImpl reply, int code, String args, String token) {
        reply.setSuccessful(false);
        reply.setError(code + ":" + (args == null ? "" : args) + ":" + token);
        return reply;
    }
}
