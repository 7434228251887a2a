package org.bayeux.oort;

import java.util.List;
import java.util.Map;

import org.bayeux.api.ChannelId;
import org.bayeux.api.Promise;
import org.bayeux.api.server.BayeuxServer;
import org.bayeux.api.server.SecurityPolicy;
import org.bayeux.api.server.ServerChannel;
import org.bayeux.api.server.ServerExtension;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.server.BayeuxEngine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What keeps the cluster's door: a server extension, which runs before any security policy, and a security policy
 * wrapped around the application's.
 *
 * <p>The extension checks every handshake that claims to be a node ({@code ext.oort}): a bad proof refuses it there,
 * before any application policy sees it; a good one is replaced by the verified {@link JoinProof.Peer}, an object no
 * JSON can make. It also refuses subscriptions and publishes on {@code /oort/**} and {@code /service/oort/**} from
 * any session that is not an authenticated peer, whatever policy the application sets later.</p>
 *
 * <p>The policy accepts a verified peer's handshake without asking the application's policy (a node has no user
 * credentials), marks its session and pins it to the connection it joined on; anything else goes to the
 * application's policy.</p>
 */
final class OortGate implements ServerExtension {
    private static final Logger LOG = LoggerFactory.getLogger(OortGate.class);
    /** The session attribute that holds a peer's {@link JoinProof.Peer}; only this gate sets it. */
    static final String PEER_ATTRIBUTE = "org.bayeux.oort.peer";

    private final JoinProof proof;
    private final String self;
    private final Runnable onRefusedJoin;
    /** Refused joins are an attacker's to send: one log line per period at most. */
    private final RefusalLog refusals = new RefusalLog(LOG::warn, System::nanoTime);

    OortGate(JoinProof proof, String self, Runnable onRefusedJoin) {
        this.proof = proof;
        this.self = self;
        this.onRefusedJoin = onRefusedJoin;
    }

    private static Object claimedUrl(Object claim) {
        return claim instanceof Map<?, ?> fields ? fields.get("url") : null;
    }

    /** @return true for the channels only peers may use */
    static boolean isReserved(String channel) {
        return channel != null && (channel.equals("/oort") || channel.startsWith("/oort/")
                || channel.equals("/service/oort") || channel.startsWith("/service/oort/"));
    }

    static JoinProof.Peer peerOf(ServerSession session) {
        return session == null ? null : session.getAttribute(PEER_ATTRIBUTE) instanceof JoinProof.Peer peer
                ? peer : null;
    }

    @Override
    public boolean rcvMeta(ServerSession session, ServerMessage.Mutable message) {
        String channel = message.getChannel();
        if (ChannelId.META_PREFIX.concat("handshake").equals(channel)) {
            Map<String, Object> ext = message.getExt();
            if (ext == null || !ext.containsKey(JoinProof.EXT)) {
                return true;
            }
            JoinProof.Peer peer = proof.verify(ext.get(JoinProof.EXT), self);
            if (peer == null) {
                refusals.refused(claimedUrl(ext.get(JoinProof.EXT)));
                onRefusedJoin.run();
                return false;
            }
            ext.put(JoinProof.EXT, peer);
            return true;
        }
        if (ChannelId.META_PREFIX.concat("subscribe").equals(channel) && peerOf(session) == null) {
            Object subscription = message.get("subscription");
            if (subscription instanceof String one) {
                return !isReserved(one);
            }
            if (subscription instanceof List<?> many) {
                return many.stream().noneMatch(s -> s instanceof String name && isReserved(name));
            }
        }
        return true;
    }

    @Override
    public boolean rcv(ServerSession session, ServerMessage.Mutable message) {
        return !isReserved(message.getChannel()) || peerOf(session) != null;
    }

    /** The policy installed around the application's when the node starts. */
    static final class Policy implements SecurityPolicy {
        private final SecurityPolicy application;

        /** @param application the application's policy; null allows what the protocol allows */
        Policy(SecurityPolicy application) {
            this.application = application != null ? application : new SecurityPolicy() {
            };
        }

        SecurityPolicy application() {
            return application;
        }

        @Override
        public void canHandshake(BayeuxServer server, ServerSession session, ServerMessage message,
                Promise<Boolean> promise) {
            Map<String, Object> ext = message.getExt();
            Object claim = ext == null ? null : ext.get(JoinProof.EXT);
            if (claim instanceof JoinProof.Peer peer && server instanceof BayeuxEngine engine) {
                // Only the connection that joined may act as the peer: no other socket, and no request with its
                // cookie, however the link's cookie and clientId were learnt.
                engine.pinToHandshakeCarrier(session);
                session.setAttribute(PEER_ATTRIBUTE, peer);
                promise.succeed(true);
            } else if (claim != null) {
                // A claim the gate did not verify: never hand it to the application as if it were a user.
                promise.succeed(false);
            } else {
                application.canHandshake(server, session, message, promise);
            }
        }

        @Override
        public void canCreate(BayeuxServer server, ServerSession session, ChannelId channel, ServerMessage message,
                Promise<Boolean> promise) {
            if (isReserved(channel.name())) {
                promise.succeed(session == null || peerOf(session) != null);
            } else {
                application.canCreate(server, session, channel, message, promise);
            }
        }

        @Override
        public void canSubscribe(BayeuxServer server, ServerSession session, ServerChannel channel,
                ServerMessage message, Promise<Boolean> promise) {
            if (isReserved(channel.getId())) {
                promise.succeed(peerOf(session) != null);
            } else {
                application.canSubscribe(server, session, channel, message, promise);
            }
        }

        @Override
        public void canPublish(BayeuxServer server, ServerSession session, ServerChannel channel,
                ServerMessage message, Promise<Boolean> promise) {
            if (isReserved(channel.getId())) {
                promise.succeed(peerOf(session) != null);
            } else {
                application.canPublish(server, session, channel, message, promise);
            }
        }
    }
}
