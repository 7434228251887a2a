package org.bayeux.transport.jetty.example;

// BEGIN security-policy
import java.util.Map;

import org.bayeux.api.ChannelId;
import org.bayeux.api.server.BayeuxServer;
import org.bayeux.api.server.SecurityPolicy;
import org.bayeux.api.server.ServerChannel;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;

/**
 * Authenticates handshakes with a token in {@code ext.auth.token}, keeps the user's name on the session, and
 * lets remote clients use /chat/, /service/ and /users/ channels (the authorizer of PrivateChannels guards these),
 * and read /quotes/ channels; never root wildcards.
 */
public final class TokenPolicy implements SecurityPolicy {
    public static final String USER = "user";
    private final Map<String, String> usersByToken;

    public TokenPolicy(Map<String, String> usersByToken) {
        this.usersByToken = Map.copyOf(usersByToken);
    }

    @Override
    public boolean canHandshake(BayeuxServer server, ServerSession session, ServerMessage message) {
        if (session.isLocalSession()) {
            return true;                      // the application's own code
        }
        Map<String, Object> ext = message.getExt();
        Object auth = ext == null ? null : ext.get("auth");
        Object token = auth instanceof Map ? ((Map<?, ?>) auth).get("token") : null;
        String user = token instanceof String ? usersByToken.get(token) : null;
        if (user == null) {
            return false;                     // the client gets 403::handshake_denied
        }
        session.setAttribute(USER, user);
        return true;
    }

    @Override
    public boolean canCreate(BayeuxServer server, ServerSession session, ChannelId channel, ServerMessage message) {
        return session.isLocalSession() || readable(channel);
    }

    @Override
    public boolean canSubscribe(BayeuxServer server, ServerSession session, ServerChannel channel,
            ServerMessage message) {
        if (session.isLocalSession()) {
            return true;
        }
        boolean rootWildcard = channel.getChannelId().isWildcard() && channel.getChannelId().depth() == 1;
        return !rootWildcard && readable(channel.getChannelId());
    }

    @Override
    public boolean canPublish(BayeuxServer server, ServerSession session, ServerChannel channel,
            ServerMessage message) {
        return session.isLocalSession() || writable(channel.getChannelId());
    }

    private static boolean readable(ChannelId channel) {
        return writable(channel) || channel.name().startsWith("/quotes/");
    }

    private static boolean writable(ChannelId channel) {
        String name = channel.name();
        return name.startsWith("/chat/") || name.startsWith("/service/") || name.startsWith("/users/");
    }
}
// END security-policy
