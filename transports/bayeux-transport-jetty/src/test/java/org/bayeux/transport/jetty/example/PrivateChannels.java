package org.bayeux.transport.jetty.example;

// BEGIN private-channels
import org.bayeux.api.Promise;
import org.bayeux.api.server.Authorizer;
import org.bayeux.api.server.BayeuxServer;
import org.bayeux.api.server.LocalSession;
import org.bayeux.api.server.ServerChannel;

/** Each user has a channel /users/NAME that only that user may subscribe to, and only the server publishes on. */
public final class PrivateChannels {
    private final BayeuxServer server;
    private final LocalSession sender;

    public PrivateChannels(BayeuxServer server) {
        this.server = server;
        this.sender = server.newLocalSession("notifier");
        this.sender.handshake();
        // On the deep wildcard: it is asked about /users/bob, /users/* and /users/** alike.
        server.createChannelIfAbsent("/users/**", channel -> {
            channel.setPersistent(true);
            channel.addAuthorizer((operation, id, session, message) -> {
                if (session.isLocalSession()) {
                    return Authorizer.Result.grant();
                }
                boolean own = id.name().equals("/users/" + session.getAttribute(TokenPolicy.USER));
                if (own && operation != Authorizer.Operation.PUBLISH) {
                    return Authorizer.Result.grant();   // a subscription may also create the channel
                }
                return Authorizer.Result.deny("private_channel");
            });
        });
    }

    /** Sends to every session the user has subscribed to its channel (all its tabs). */
    public void notify(String user, Object data) {
        ServerChannel channel = server.createChannelIfAbsent("/users/" + user);
        channel.publish(sender.getServerSession(), data, Promise.noop());
    }
}
// END private-channels
