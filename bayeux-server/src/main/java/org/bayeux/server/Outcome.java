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

    private Outcome(ServerSessionImpl session, ServerMessageImpl reply, List<ServerMessage> before, boolean held) {
        this.session = session;
        this.reply = reply;
        this.before = before;
        this.held = held;
    }

    static Outcome reply(ServerSessionImpl session, ServerMessageImpl reply) {
        return new Outcome(session, reply, List.of(), false);
    }

    static Outcome reply(ServerSessionImpl session, ServerMessageImpl reply, List<ServerMessage> before) {
        return new Outcome(session, reply, before, false);
    }

    Outcome withoutReply() {
        return new Outcome(session, null, before, held);
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
