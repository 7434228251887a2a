package org.bayeux.server.example;

import java.util.Map;
import java.util.Objects;

import org.bayeux.api.ChannelId;
import org.bayeux.api.server.Authorizer;
import org.bayeux.api.server.BayeuxServer;
import org.bayeux.api.server.SecurityPolicy;
import org.bayeux.api.server.ServerChannel;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;

/**
 * The security set-up that docs/security.md recommends for a server on the open internet, as code the build
 * compiles and {@code ProductionSecurityTest} runs. Copy it and change the channel names and the token check.
 *
 * <ul>
 *   <li>Handshakes are authenticated: a remote client sends a token in {@code ext.auth.token}; the
 *       {@link TokenVerifier} turns it into a user id, which is kept on the session; no token, no session.</li>
 *   <li>Remote sessions may create, subscribe and publish only under the public prefix ({@code /chat/} here) and
 *       send requests to {@code /service/} channels; nothing else.</li>
 *   <li>No root wildcards ({@code /*}, {@code /**}) for remote sessions: one subscription there would receive every
 *       broadcast of the server.</li>
 *   <li>Private channels {@code /users/<id>} (and below) are guarded by an {@link Authorizer} on {@code /users/**}:
 *       only the user it is named after may subscribe, and only server-side (local) sessions may publish there.
 *       The authorizer sits on the deep wildcard on purpose: it covers {@code /users/bob}, {@code /users/*} and
 *       {@code /users/**} alike, where one on {@code /users/*} would not be asked about a subscription to
 *       {@code /users/**}.</li>
 *   <li>Server-side {@code LocalSession}s are trusted: they are code of the application, and remote messages can
 *       never act as one.</li>
 * </ul>
 */
public final class ProductionSecurity implements SecurityPolicy {
    /** The session attribute holding the authenticated user id. */
    public static final String USER = "user";
    /** The prefix of the channels that every authenticated user may use. */
    public static final String PUBLIC_PREFIX = "/chat/";
    /** The parent of the private, per-user channels. */
    public static final String USERS = "/users";

    /** Turns a handshake token into a user id. */
    @FunctionalInterface
    public interface TokenVerifier {
        /**
         * @param token the token the client sent; never null
         * @return the user id, or null if the token is not valid
         */
        String userFor(String token);
    }

    private final TokenVerifier verifier;

    private ProductionSecurity(TokenVerifier verifier) {
        this.verifier = Objects.requireNonNull(verifier, "verifier");
    }

    /**
     * Installs the policy and the private channels' authorizer on a server.
     *
     * @param server the server, before clients connect
     * @param verifier checks handshake tokens
     */
    public static void install(BayeuxServer server, TokenVerifier verifier) {
        server.setSecurityPolicy(new ProductionSecurity(verifier));
        server.createChannelIfAbsent(USERS + "/**", channel -> {
            channel.setPersistent(true);
            channel.addAuthorizer(ProductionSecurity::authorizePrivate);
        });
    }

    @Override
    public boolean canHandshake(BayeuxServer server, ServerSession session, ServerMessage message) {
        if (session.isLocalSession()) {
            return true;
        }
        Map<String, Object> ext = message.getExt();
        Object auth = ext == null ? null : ext.get("auth");
        Object token = auth instanceof Map ? ((Map<?, ?>) auth).get("token") : null;
        String user = token instanceof String ? verifier.userFor((String) token) : null;
        if (user == null) {
            return false;
        }
        session.setAttribute(USER, user);
        return true;
    }

    @Override
    public boolean canCreate(BayeuxServer server, ServerSession session, ChannelId channel, ServerMessage message) {
        return session.isLocalSession() || remoteMayUse(channel);
    }

    @Override
    public boolean canSubscribe(BayeuxServer server, ServerSession session, ServerChannel channel, ServerMessage message) {
        return session.isLocalSession() || remoteMayUse(channel.getChannelId());
    }

    @Override
    public boolean canPublish(BayeuxServer server, ServerSession session, ServerChannel channel, ServerMessage message) {
        return session.isLocalSession() || remoteMayUse(channel.getChannelId());
    }

    /** Public channels, service channels and the user channels (which the authorizer then checks); no root wildcard. */
    private static boolean remoteMayUse(ChannelId channel) {
        if (channel.depth() < 2 && channel.isWildcard()) {
            return false;
        }
        String name = channel.name();
        return channel.isService() || name.startsWith(PUBLIC_PREFIX) || name.startsWith(USERS + "/");
    }

    private static Authorizer.Result authorizePrivate(Authorizer.Operation operation, ChannelId channel,
            ServerSession session, ServerMessage message) {
        if (session.isLocalSession()) {
            return Authorizer.Result.grant();
        }
        if (operation == Authorizer.Operation.PUBLISH) {
            return Authorizer.Result.deny("private_channel");
        }
        String owner = channel.depth() >= 2 ? channel.segment(1) : null;
        boolean own = owner != null && !owner.startsWith("*") && owner.equals(session.getAttribute(USER));
        return own ? Authorizer.Result.grant() : Authorizer.Result.deny("private_channel");
    }
}
