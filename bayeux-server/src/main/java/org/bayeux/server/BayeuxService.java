package org.bayeux.server;

import org.bayeux.api.Message;
import org.bayeux.api.Promise;
import org.bayeux.api.server.BayeuxServer;
import org.bayeux.api.server.LocalSession;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.server.internal.RateLimitedLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A base for server-side services: it owns a {@link LocalSession}, and maps service channels to handlers whose
 * result is sent back to the requesting client only, with the request's {@code id} (how a client's remote call
 * finds its answer).
 *
 * <pre>{@code
 * class EchoService extends BayeuxService {
 *     EchoService(BayeuxServer server) {
 *         super(server, "echo");
 *         addService("/service/echo", (remote, message) -> message.getData());
 *     }
 * }
 * }</pre>
 */
public abstract class BayeuxService {
    private static final Logger LOG = LoggerFactory.getLogger(BayeuxService.class);
    private static final RateLimitedLog QUIET = new RateLimitedLog(LOG);

    private final BayeuxServer server;
    private final LocalSession localSession;

    /**
     * Creates the service and handshakes its local session.
     *
     * @param server the server
     * @param name the service name, used in its session id
     */
    protected BayeuxService(BayeuxServer server, String name) {
        this.server = server;
        this.localSession = server.newLocalSession(name);
        this.localSession.handshake();
    }

    /** @return the server */
    protected BayeuxServer getServer() {
        return server;
    }

    /** @return the service's own session, to publish or deliver as the service */
    protected LocalSession getLocalSession() {
        return localSession;
    }

    /**
     * Handles requests on a channel. A handler's non-null result is sent to the requester as
     * {@code {"channel":…, "id":…, "data":result, "successful":true}}; a handler that throws sends
     * {@code successful:false} with error {@code 500::service_failed} instead.
     *
     * @param channel the channel, usually under {@code /service/}
     * @param handler the handler
     */
    protected void addService(String channel, Handler handler) {
        server.createChannelIfAbsent(channel, created -> created.setPersistent(true))
                .addMessageListener((sender, serverChannel, message) -> {
                    if (sender == null || sender == localSession.getServerSession()) {
                        return true;
                    }
                    answer(sender, message, handler);
                    return true;
                });
    }

    private void answer(ServerSession requester, ServerMessage request, Handler handler) {
        ServerMessage.Mutable answer = server.newMessage();
        answer.setChannel(request.getChannel());
        Object id = request.get(Message.ID_FIELD);
        if (id != null) {
            answer.put(Message.ID_FIELD, id);
        }
        try {
            Object result = handler.handle(requester, request);
            if (result == null) {
                return;
            }
            answer.setData(result);
            answer.setSuccessful(true);
        } catch (Exception failure) {
            // Neither the request nor the requester's id reach the log above DEBUG.
            QUIET.warn(request.getChannel() + ":" + failure.getClass().getName(),
                    "Service {} failed on a request", request.getChannel(), failure);
            LOG.debug("Service {} failed on {}", request.getChannel(), request);
            answer.setSuccessful(false);
            answer.setError("500::service_failed");
        }
        requester.deliver(localSession, answer, Promise.noop());
    }

    /**
     * Answers requests on a service channel.
     */
    @FunctionalInterface
    public interface Handler {
        /**
         * @param requester the session that sent the request
         * @param request the request
         * @return the answer's data, or null to send no answer
         * @throws Exception to send a failed answer
         */
        Object handle(ServerSession requester, ServerMessage request) throws Exception;
    }
}
