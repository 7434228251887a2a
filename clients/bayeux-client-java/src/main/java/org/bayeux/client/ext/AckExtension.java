package org.bayeux.client.ext;

import java.util.Map;

import org.bayeux.api.Message;
import org.bayeux.api.client.ClientSession;

/**
 * The client side of the {@code ack} extension: with it, and the server's side, no message from the server is lost
 * when a connection is cut, and none arrives twice.
 *
 * <pre>{@code
 * client.addExtension(new AckExtension());   // before the handshake
 * }</pre>
 *
 * <p>The handshake asks for acknowledgements ({@code "ext":{"ack":true}}); if the server agrees, each connect
 * carries the batch number of the last successful connect reply this client processed, and the server deletes the
 * messages of that batch and earlier. A reply lost with its connection is therefore never acknowledged, and the
 * server sends its messages again on the next connect; a reply processed is acknowledged by the very next connect,
 * so nothing comes twice. The messages of a reply are handed to listeners before the next connect leaves. Delivery
 * is at least once from the server's point of view, exactly once as the application sees it, for as long as the
 * session lives: a re-handshake starts a new session, and what the old one had not delivered is lost.</p>
 */
public final class AckExtension implements ClientSession.Extension {
    /** The extension's field in {@code ext}. */
    public static final String ACK_FIELD = "ack";

    private volatile boolean serverAcks;
    private volatile long lastBatch;

    /** Creates the extension; add it to the client before the handshake. */
    public AckExtension() {
    }

    @Override
    public boolean sendMeta(ClientSession session, Message.Mutable message) {
        String channel = message.getChannel();
        if (Message.META_HANDSHAKE.equals(channel)) {
            message.getExt(true).put(ACK_FIELD, Boolean.TRUE);
        } else if (Message.META_CONNECT.equals(channel) && serverAcks) {
            message.getExt(true).put(ACK_FIELD, lastBatch);
        }
        return true;
    }

    @Override
    public boolean rcvMeta(ClientSession session, Message.Mutable message) {
        String channel = message.getChannel();
        Map<String, Object> ext = message.getExt();
        Object ack = ext == null ? null : ext.get(ACK_FIELD);
        if (Message.META_HANDSHAKE.equals(channel)) {
            // A new session starts numbering its batches afresh.
            lastBatch = 0;
            serverAcks = message.isSuccessful() && (Boolean.TRUE.equals(ack)
                    || ack instanceof Map && Boolean.TRUE.equals(((Map<?, ?>) ack).get("enabled")));
        } else if (Message.META_CONNECT.equals(channel) && message.isSuccessful() && ack instanceof Number) {
            lastBatch = ((Number) ack).longValue();
        }
        return true;
    }

    /** @return true if the server agreed, at the last handshake, to acknowledged delivery */
    public boolean isServerSupportingAcks() {
        return serverAcks;
    }

    @Override
    public String toString() {
        return "AckExtension[server acks: " + serverAcks + ", last batch: " + lastBatch + "]";
    }
}
