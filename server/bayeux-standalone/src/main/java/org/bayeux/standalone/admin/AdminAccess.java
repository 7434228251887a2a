package org.bayeux.standalone.admin;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

import org.bayeux.api.ChannelId;
import org.bayeux.api.Promise;
import org.bayeux.api.server.Authorizer;
import org.bayeux.api.server.BayeuxServer;
import org.bayeux.api.server.SecurityPolicy;
import org.bayeux.api.server.ServerChannel;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;

/**
 * Who is an admin session: one whose handshake carried {@code ext.admin.token} equal to the configured token
 * (compared in constant time). A handshake with a wrong token is refused ({@code 403::handshake_denied}); one without
 * is left to the policy this one wraps. The statistics channel's authorizer lets only admin sessions subscribe, and no
 * remote session publish (the snapshots are delivered by the server).
 */
final class AdminAccess implements SecurityPolicy, Authorizer {
    /** The session attribute that marks an admin session (set by the server alone; clients cannot set attributes). */
    static final String ATTRIBUTE = "org.bayeux.standalone.admin";
    /** The handshake's ext field holding {@code {"token": "..."}}. */
    static final String EXT_FIELD = "admin";
    /** The reason in the error a non-admin session's subscription gets: {@code 403:admin_only:subscribe_denied}. */
    static final String NOT_ADMIN = "admin_only";
    /** The reason in the error any remote publish gets: {@code 403:server_only:publish_denied}. */
    static final String SERVER_ONLY = "server_only";

    private final byte[] token;
    private final SecurityPolicy next;
    private final LongAdder refused = new LongAdder();

    /**
     * @param token the configured token
     * @param next the policy already set (the application's), or null
     */
    AdminAccess(String token, SecurityPolicy next) {
        this.token = token.getBytes(StandardCharsets.UTF_8);
        this.next = next == null ? new SecurityPolicy() {
        } : next;
    }

    static boolean isAdmin(ServerSession session) {
        return session != null && Boolean.TRUE.equals(session.getAttribute(ATTRIBUTE));
    }

    /** @return handshakes refused for a wrong token (counted, not logged above DEBUG: anyone can send them) */
    long refusedHandshakes() {
        return refused.sum();
    }

    @Override
    public void canHandshake(BayeuxServer server, ServerSession session, ServerMessage message,
            Promise<Boolean> promise) {
        Object offered = offeredToken(message);
        if (offered == null) {
            next.canHandshake(server, session, message, promise);
            return;
        }
        if (!(offered instanceof String text)
                || !MessageDigest.isEqual(text.getBytes(StandardCharsets.UTF_8), token)) {
            refused.increment();
            promise.succeed(false);
            return;
        }
        session.setAttribute(ATTRIBUTE, Boolean.TRUE);
        forget(message);
        next.canHandshake(server, session, message, promise);
    }

    /** @return the token offered, a non-string if malformed, or null when the handshake offers none */
    private static Object offeredToken(ServerMessage message) {
        Map<String, Object> ext = message.getExt();
        if (ext == null || !ext.containsKey(EXT_FIELD)) {
            return null;
        }
        Object admin = ext.get(EXT_FIELD);
        return admin instanceof Map<?, ?> fields && fields.get("token") != null ? fields.get("token") : Boolean.FALSE;
    }

    /** Takes the token out of the handshake, so that the application's policy and listeners never see it. */
    private static void forget(ServerMessage message) {
        if (message instanceof ServerMessage.Mutable mutable) {
            try {
                mutable.getExt(true).remove(EXT_FIELD);
            } catch (UnsupportedOperationException frozen) {
                // A frozen request: the token stays in it, seen by no one but the listeners of this handshake.
            }
        }
    }

    @Override
    public void canCreate(BayeuxServer server, ServerSession session, ChannelId channel, ServerMessage message,
            Promise<Boolean> promise) {
        next.canCreate(server, session, channel, message, promise);
    }

    @Override
    public void canSubscribe(BayeuxServer server, ServerSession session, ServerChannel channel, ServerMessage message,
            Promise<Boolean> promise) {
        next.canSubscribe(server, session, channel, message, promise);
    }

    @Override
    public void canPublish(BayeuxServer server, ServerSession session, ServerChannel channel, ServerMessage message,
            Promise<Boolean> promise) {
        next.canPublish(server, session, channel, message, promise);
    }

    /** The statistics channel's authorizer: a deny wins over any application authorizer's grant on a wildcard. */
    @Override
    public Result authorize(Operation operation, ChannelId channel, ServerSession session, ServerMessage message) {
        if (operation == Operation.PUBLISH) {
            return session == null || session.isLocalSession() ? Result.grant() : Result.deny(SERVER_ONLY);
        }
        return isAdmin(session) || session != null && session.isLocalSession() ? Result.grant()
                : Result.deny(NOT_ADMIN);
    }
}
