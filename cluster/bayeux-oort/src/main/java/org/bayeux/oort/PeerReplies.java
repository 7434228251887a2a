package org.bayeux.oort;

import java.util.Map;
import java.util.function.Predicate;

import org.bayeux.api.Message;
import org.bayeux.api.server.ServerExtension;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;

/**
 * What a node answers its peers beyond yes and no, added right after {@link OortGate} (so that it sees handshakes the
 * gate verified): a join of an incarnation this node declared left is refused with {@value Link#LEFT_ERROR}, so that
 * the peer knows to take a new incarnation; and a forward's reply says whether the forward was taken (delivered now
 * or before: successful) or refused because one before it is missing ({@value #OUT_OF_ORDER_ERROR}), from the verdict
 * the forward listener leaves on the request.
 */
final class PeerReplies implements ServerExtension {
    static final String OUT_OF_ORDER_ERROR = "409::oort_out_of_order";
    /** The answer to a forward whose MAC is not good, or that breaks a rule no genuine peer breaks. */
    static final String REFUSED_ERROR = "403::oort_forward_refused";
    /** The field of a handshake reply's {@code ext.oort} that holds the accepting node's nonce. */
    static final String ACCEPT_NONCE_FIELD = "nonce";
    /** The request field where this node leaves what it decided; its values are Java objects no JSON can make. */
    static final String VERDICT_FIELD = "org.bayeux.oort.verdict";
    /** The verdict on a join of an incarnation declared left. */
    private static final Object LEFT = new Object();

    private final Predicate<String> departed;

    /** @param departed tells whether this node declared an incarnation left */
    PeerReplies(Predicate<String> departed) {
        this.departed = departed;
    }

    @Override
    public boolean rcvMeta(ServerSession session, ServerMessage.Mutable message) {
        if (Message.META_HANDSHAKE.equals(message.getChannel())) {
            Map<String, Object> ext = message.getExt();
            if (ext != null && ext.get(JoinProof.EXT) instanceof JoinProof.Peer peer && departed.test(peer.id())) {
                message.put(VERDICT_FIELD, LEFT);
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean sendMeta(ServerSession receiver, ServerMessage.Mutable message) {
        ServerMessage request = message.getAssociated();
        if (Message.META_HANDSHAKE.equals(message.getChannel()) && request != null) {
            if (request.get(VERDICT_FIELD) == LEFT) {
                message.setSuccessful(false);
                message.setError(Link.LEFT_ERROR);
            } else if (message.isSuccessful() && request.getExt() != null
                    && request.getExt().get(JoinProof.EXT) instanceof JoinProof.Peer peer) {
                // This side's half of the link's forward key (ForwardAuth); the joining node made the other half.
                message.getExt(true).put(JoinProof.EXT, Map.of(ACCEPT_NONCE_FIELD, peer.acceptNonce()));
            }
        }
        return true;
    }

    @Override
    public boolean send(ServerSession sender, ServerSession receiver, ServerMessage.Mutable message) {
        ServerMessage request = message.getAssociated();
        if (request != null && Oort.FORWARD_CHANNEL.equals(message.getChannel())
                && request.get(VERDICT_FIELD) instanceof OriginSequences.Verdict verdict) {
            if (verdict == OriginSequences.Verdict.OUT_OF_ORDER) {
                message.setSuccessful(false);
                message.setError(OUT_OF_ORDER_ERROR);
            } else if (verdict == OriginSequences.Verdict.REFUSED) {
                message.setSuccessful(false);
                message.setError(REFUSED_ERROR);
            } else {
                message.setSuccessful(true);
                message.remove(Message.ERROR_FIELD);
            }
        }
        return true;
    }
}
