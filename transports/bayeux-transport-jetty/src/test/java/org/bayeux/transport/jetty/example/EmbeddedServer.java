package org.bayeux.transport.jetty.example;

// BEGIN embedding
import java.time.Duration;

import org.bayeux.api.server.Authorizer;
import org.bayeux.api.server.LocalSession;
import org.bayeux.server.BayeuxEngine;
import org.bayeux.server.config.BayeuxServerConfig;
import org.bayeux.server.ext.AcknowledgedMessagesExtension;
import org.bayeux.transport.http.TransportConfig;
import org.bayeux.transport.jetty.BayeuxEndpoint;
import org.eclipse.jetty.server.Server;

public final class EmbeddedServer {
    public static void main(String[] args) throws Exception {
        start(8080).join();   // clients connect to http://localhost:8080/bayeux
    }

    public static Server start(int port) throws Exception {
        BayeuxEngine bayeux = BayeuxEngine.create(BayeuxServerConfig.builder()
                .timeout(Duration.ofSeconds(20))
                .build());
        bayeux.addExtension(new AcknowledgedMessagesExtension());   // guaranteed, ordered delivery
        bayeux.createChannelIfAbsent("/chat/**", channel -> channel.addAuthorizer(
                (operation, id, session, message) -> Authorizer.Result.grant()));

        Server jetty = new Server(port);
        BayeuxEndpoint.mount(jetty, "/bayeux", bayeux, TransportConfig.defaults());
        jetty.start();                                               // also starts the engine

        LocalSession bot = bayeux.newLocalSession("bot");            // an in-process client
        bot.handshake();
        bot.getChannel("/chat/lobby").subscribe(
                (channel, message) -> System.out.println(message.getData()), null);
        return jetty;
    }
}
// END embedding
