package org.bayeux.transport.jetty.example;

// BEGIN service
import java.util.Map;

import org.bayeux.api.server.BayeuxServer;
import org.bayeux.server.BayeuxService;

/** Answers {@code /service/echo} requests, and announces every room's first message on /chat/news. */
public final class EchoService extends BayeuxService {
    public EchoService(BayeuxServer server) {
        super(server, "echo");
        // The answer goes to the requester only, with the request's id: a client's remoteCall gets it back.
        addService("/service/echo", (requester, request) -> Map.of("echo", request.getData()));
        // A handler that returns null sends no answer: here the service republishes as itself.
        addService("/service/announce", (requester, request) -> {
            getLocalSession().getChannel("/chat/news").publish(request.getData(), null);
            return null;
        });
    }
}
// END service
