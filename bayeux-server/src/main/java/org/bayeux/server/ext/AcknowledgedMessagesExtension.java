package org.bayeux.server.ext;

import java.util.Map;

import org.bayeux.api.Message;
import org.bayeux.api.server.ServerExtension;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.server.cluster.AcknowledgedBatch;
import org.bayeux.server.cluster.AdoptedAcknowledgements;

/**
 * The {@code ack} extension: guaranteed, ordered server-to-client delivery for clients that ask for it (the CometD
 * clients' ack extension). Add it once with {@code server.addExtension(new AcknowledgedMessagesExtension())}.
 *
 * <p>A client asks with {@code "ext":{"ack":true}} in its handshake; the successful handshake reply then carries
 * {@code "ext":{"ack":true}}, and from then on the session:</p>
 * <ul>
 *   <li>receives messages only inside {@code /meta/connect} replies, on every transport (no piggy-backing, no
 *       WebSocket pushes): {@link ServerSession#setMetaConnectDeliveryOnly(boolean)} is set;</li>
 *   <li>gets a batch number {@code "ext":{"ack":b}} (1, 2, 3, ...) in every successful connect reply, and keeps
 *       every message it was sent until a later connect acknowledges a batch at least as high;</li>
 *   <li>gets every unacknowledged message again, in the original order, in each connect reply until then; a
 *       connect that acknowledges less than was sent is answered at once rather than held.</li>
 * </ul>
 *
 * <p>Unacknowledged messages count toward the session's {@link ServerSession#getMaxQueue() maxQueue}. When they
 * and the queued messages together reach it, the new message is refused and the session is disconnected as soon
 * as it can be done outside the session's lock: when the next message is offered to it, or when the client next
 * sends anything (which then gets {@code 402::session_unknown}, so the client handshakes again and knows it
 * missed messages). While nothing is unacknowledged, the server's own max-queue policy applies as usual.</p>
 *
 * <p>Sessions that do not ask for acks, and local sessions, are not affected.</p>
 */
public final class AcknowledgedMessagesExtension implements ServerExtension, AdoptedAcknowledgements {
    /** The name of the extension field in {@code ext}. */
    public static final String ACK_FIELD = "ack";

    /** Creates the extension; it keeps no state of its own, only per session. */
    public AcknowledgedMessagesExtension() {
    }

    /**
     * Negotiates acks in successful handshake replies, and turns them on for the session.
     *
     * @param receiver the new session, or null for a failed handshake
     * @param message an outgoing meta reply
     * @return always true
     */
    @Override
    public boolean sendMeta(ServerSession receiver, ServerMessage.Mutable message) {
        if (receiver == null || receiver.isLocalSession() || !Message.META_HANDSHAKE.equals(message.getChannel())
                || !message.isSuccessful() || !asksForAcks(message.getAssociated())) {
            return true;
        }
        if (!isAcknowledging(receiver)) {
            // Guards against the extension being added twice: one state per session.
            AcknowledgedSession.install(receiver);
        }
        message.getExt(true).put(ACK_FIELD, Boolean.TRUE);
        return true;
    }

    private static boolean asksForAcks(ServerMessage handshake) {
        if (handshake == null) {
            return false;
        }
        Map<String, Object> ext = handshake.getExt();
        // Only a literal true turns acks on; anything else leaves them off (BAYEUX.md section 7.1).
        return ext != null && Boolean.TRUE.equals(ext.get(ACK_FIELD));
    }

    /**
     * Turns acks on for a session this node adopted from another (failover): the engine then continues its batch
     * numbering ({@link AcknowledgedBatch#continueFrom}) before it serves anything.
     *
     * @param session the adopted session
     * @return its ack state; the one it has if it has one already
     */
    public static AcknowledgedBatch installOnAdopted(ServerSession session) {
        if (!isAcknowledging(session)) {
            AcknowledgedSession.install(session);
        }
        for (Object extension : session.getExtensions()) {
            if (extension instanceof AcknowledgedSession state) {
                return state;
            }
        }
        throw new IllegalStateException("no ack state on the session");
    }

    @Override
    public AcknowledgedBatch resumeOn(ServerSession adopted) {
        return installOnAdopted(adopted);
    }

    /**
     * @param session a session
     * @return true if the session negotiated acks with this extension
     */
    public static boolean isAcknowledging(ServerSession session) {
        return session.getExtensions().stream().anyMatch(AcknowledgedSession.class::isInstance);
    }
}
