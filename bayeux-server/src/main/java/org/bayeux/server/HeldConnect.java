package org.bayeux.server;

import org.bayeux.api.Message;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.server.transport.Carrier;

/**
 * A {@code /meta/connect} that waits on its carrier for messages or for its timeout. Each hold has its own cycle
 * number, so a late timer can never complete a newer hold. Its time-out is the session's {@link HoldTimer}.
 *
 * <p>An idle client's connect is held most of the time, so what a hold keeps is what an idle session costs. The
 * reply of a connect, as {@link MetaHandlers} makes it, is the request's channel and id, {@code successful:true}
 * and perhaps an advice: the hold keeps the request (which the reply refers to as its associated message anyway)
 * and the advice, and {@link #reply()} makes the reply when the hold ends, equal to the one given. A reply of any
 * other shape is kept as it is.</p>
 */
final class HeldConnect {
    final long cycle;
    final Carrier carrier;
    private final ServerMessage request;
    private final Object advice;
    /** The reply itself, when it is not one {@link #reply()} can make again; else null. */
    private final ServerMessageImpl kept;

    HeldConnect(long cycle, ServerMessageImpl reply, Carrier carrier) {
        this.cycle = cycle;
        this.carrier = carrier;
        ServerMessage associated = reply.getAssociated();
        Object givenAdvice = reply.get(Message.ADVICE_FIELD);
        boolean remakeable = associated != null && !reply.isLazy()
                && Boolean.TRUE.equals(reply.get(Message.SUCCESSFUL_FIELD))
                && reply.get(Message.CHANNEL_FIELD) == associated.get(Message.CHANNEL_FIELD)
                && reply.get(Message.ID_FIELD) == associated.get(Message.ID_FIELD)
                && reply.size() == fields(reply, givenAdvice);
        this.request = remakeable ? associated : null;
        this.advice = remakeable ? givenAdvice : null;
        this.kept = remakeable ? null : reply;
    }

    /** @return how many fields a reply {@link #reply()} can make again has: channel, id and advice if present */
    private static int fields(ServerMessageImpl reply, Object advice) {
        return 1 + (reply.containsKey(Message.CHANNEL_FIELD) ? 1 : 0) + (reply.containsKey(Message.ID_FIELD) ? 1 : 0)
                + (advice != null ? 1 : 0);
    }

    /**
     * Called once, when the hold ends (under the session's lock).
     *
     * @return the connect's reply, not frozen
     */
    ServerMessageImpl reply() {
        if (kept != null) {
            return kept;
        }
        ServerMessageImpl reply = Outcome.replyTo(request);
        reply.setSuccessful(true);
        if (advice != null) {
            reply.put(Message.ADVICE_FIELD, advice);
        }
        return reply;
    }
}
