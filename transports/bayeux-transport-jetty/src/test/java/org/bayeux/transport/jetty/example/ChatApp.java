package org.bayeux.transport.jetty.example;

// BEGIN application
import org.bayeux.api.server.BayeuxServer;
import org.bayeux.server.app.ApplicationContext;
import org.bayeux.server.app.BayeuxApplication;
import org.bayeux.server.ext.AcknowledgedMessagesExtension;

public final class ChatApp implements BayeuxApplication {
    @Override
    public void start(ApplicationContext context) {
        BayeuxServer server = context.server();
        server.setSecurityPolicy(new MyPolicy());                        // a SecurityPolicy
        server.addExtension(new AcknowledgedMessagesExtension());        // extensions
        server.createChannelIfAbsent("/rooms/**", channel -> channel.addAuthorizer(new RoomAuthorizer()));
        new RoomService(server);                                         // a BayeuxService on /service/rooms
    }

    @Override
    public void stop() {                                                 // optional: release your own resources
    }
}
// END application
