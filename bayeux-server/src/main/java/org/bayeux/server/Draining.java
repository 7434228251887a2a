package org.bayeux.server;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.bayeux.api.Message;

/**
 * Whether the engine drains ({@link BayeuxEngine#drain}), and the words it then says to clients. Remote clients are
 * told to handshake again, which the CometD JavaScript client and ours do (tested in interop-tests and the standalone
 * server's tests): behind a load balancer that has seen the node's readiness fail, the new handshake reaches another
 * node. With a store that adopts sessions, they are told instead to connect again at once ({@link #handOver}): their
 * session, released by the store, is adopted by the node the next connect reaches.
 */
final class Draining {
    /** The error of a refused handshake and of a session's last connect reply: {@code 503::draining}. */
    static final int CODE = 503;
    static final String TOKEN = "draining";

    private volatile boolean on;
    private volatile long retryMillis;
    private final CompletableFuture<Void> drained = new CompletableFuture<>();

    /**
     * @param retryMillis the interval advised to refused handshakes
     * @return true for the first call, which starts the drain
     */
    synchronized boolean begin(long retryMillis) {
        if (on) {
            return false;
        }
        this.retryMillis = retryMillis;
        on = true;
        return true;
    }

    boolean isOn() {
        return on;
    }

    /** @return completes when no remote session is left */
    CompletableFuture<Void> drained() {
        return drained;
    }

    /**
     * A handshake refused while draining: {@code reconnect:"handshake"} after the retry interval, the advice the
     * engine's other refusals give, so that clients keep trying (elsewhere, once the balancer moved them).
     *
     * @param reply the handshake's reply
     * @return the reply, refused
     */
    ServerMessageImpl refuseHandshake(ServerMessageImpl reply) {
        Outcome.fail(reply, CODE, "", TOKEN);
        reply.put(Message.ADVICE_FIELD, advice(retryMillis));
        return reply;
    }

    /**
     * A session's last connect reply: unsuccessful, with {@code reconnect:"handshake"} at once. An unsuccessful reply
     * is what makes the CometD JavaScript client follow a handshake advice (on a successful connect it throws).
     *
     * @param reply the connect's reply, whose messages go before it
     */
    static void lastConnect(ServerMessageImpl reply) {
        Outcome.fail(reply, CODE, "", TOKEN);
        reply.put(Message.ADVICE_FIELD, advice(0));
    }

    /**
     * A message naming a session this node does not have, while it drains and hands sessions over: most likely a
     * client whose session was just handed over, back on the connection it still has to this node. The node adopts
     * nothing: unsuccessful, {@code 503::draining}, and on a connect {@code reconnect:"retry"} after the retry
     * interval (the CometD clients and Faye then connect again with the same {@code clientId}, without handshaking),
     * until the node's stop closes that connection and the next one reaches the node that adopts the session.
     *
     * @param request the message
     * @return the refusal
     */
    ServerMessageImpl refuseWhileHandingOver(ServerMessageImpl request) {
        ServerMessageImpl reply = Outcome.fail(Outcome.replyTo(request), CODE, "", TOKEN);
        if (Message.META_CONNECT.equals(request.getChannel())) {
            Map<String, Object> advice = new HashMap<>(4);
            advice.put(Message.RECONNECT_FIELD, Message.RECONNECT_RETRY);
            advice.put(Message.INTERVAL_FIELD, retryMillis);
            reply.put(Message.ADVICE_FIELD, advice);
        }
        return reply;
    }

    /**
     * The answer to a connect of a session handed over to another node: successful, no messages, and the whole advice
     * with {@code reconnect:"retry"} and interval 0, which every client family takes as "connect again now" (the
     * CometD JavaScript and Java clients and Faye schedule their next connect after {@code advice.interval}).
     *
     * @param reply the connect's reply
     * @param session its session, for the rest of the advice
     */
    static void handOver(ServerMessageImpl reply, ServerSessionImpl session) {
        reply.setSuccessful(true);
        reply.remove(Message.ERROR_FIELD);
        Map<String, Object> advice = MetaHandlers.fullAdvice(session, Message.RECONNECT_RETRY);
        advice.put(Message.INTERVAL_FIELD, 0L);
        reply.put(Message.ADVICE_FIELD, advice);
    }

    private static Map<String, Object> advice(long intervalMillis) {
        Map<String, Object> advice = new HashMap<>(4);
        advice.put(Message.RECONNECT_FIELD, Message.RECONNECT_HANDSHAKE);
        advice.put(Message.INTERVAL_FIELD, intervalMillis);
        return advice;
    }
}
