package org.bayeux.transport.jetty;

import org.eclipse.jetty.websocket.core.Frame;
import org.eclipse.jetty.websocket.core.OpCode;
import org.eclipse.jetty.websocket.core.OutgoingEntry;
import org.eclipse.jetty.websocket.core.internal.PerMessageDeflateExtension;

/**
 * Jetty's {@code permessage-deflate}, except that a text message smaller than a minimum goes out uncompressed
 * (RFC 7692 lets the sender choose per message, by its RSV1 bit): deflating a short connect reply costs more CPU than
 * the few bytes it saves.
 *
 * <p>Only whole messages (one final text frame) are left uncompressed, which is how the transport writes them. The
 * transport writes one message at a time and waits for its completion, so a message that skips Jetty's compressing
 * flusher can never overtake one still inside it. Jetty's class lives in an internal package: a Jetty upgrade is
 * checked by {@code WebSocketDeflateTest}.</p>
 */
public final class MinimumSizeDeflateExtension extends PerMessageDeflateExtension {
    private volatile int minimumBytes;

    /** Created by Jetty's extension registry, then given its minimum by the transport's decorator. */
    public MinimumSizeDeflateExtension() {
    }

    void minimumBytes(int bytes) {
        this.minimumBytes = bytes;
    }

    @Override
    public void sendFrame(OutgoingEntry entry) {
        Frame frame = entry.getFrame();
        if (frame.getOpCode() == OpCode.TEXT && frame.isFin() && frame.getPayloadLength() < minimumBytes) {
            nextOutgoingFrame(entry);
            return;
        }
        super.sendFrame(entry);
    }
}
