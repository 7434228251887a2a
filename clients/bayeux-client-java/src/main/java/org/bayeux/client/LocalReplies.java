package org.bayeux.client;

import org.bayeux.api.MapMessage;
import org.bayeux.api.Message;

/**
 * Replies the client makes up itself for a request that got no reply from the server (see {@link ClientErrors}); a
 * subscription that needs no message to the server is answered by the channel's shared base.
 */
final class LocalReplies {
    private LocalReplies() {
    }

    /**
     * @param request the request without a reply
     * @param error one of {@link ClientErrors}
     * @param cause what happened, or null
     * @return a failed reply to the request
     */
    static Message.Mutable failure(Message request, String error, Throwable cause) {
        MapMessage reply = replyTo(request);
        reply.setSuccessful(false);
        reply.setError(error);
        reply.put(ClientErrors.FAILURE_FIELD, cause == null ? error : cause.toString());
        return reply;
    }

    private static MapMessage replyTo(Message request) {
        MapMessage reply = MapMessage.on(request.getChannel());
        reply.setId(request.getId());
        Object subscription = request.get(Message.SUBSCRIPTION_FIELD);
        if (subscription != null) {
            reply.put(Message.SUBSCRIPTION_FIELD, subscription);
        }
        return reply;
    }
}
