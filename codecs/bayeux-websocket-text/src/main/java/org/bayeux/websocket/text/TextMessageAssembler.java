package org.bayeux.websocket.text;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.eclipse.jetty.websocket.core.Frame;
import org.eclipse.jetty.websocket.core.OpCode;
import org.eclipse.jetty.websocket.core.exception.BadPayloadException;
import org.eclipse.jetty.websocket.core.exception.MessageTooLargeException;

/**
 * Joins the text frames of one WebSocket connection, as Jetty's core API delivers them, into whole messages: at most
 * {@code maxMessageBytes} long and valid UTF-8. Jetty's endpoint API does this too, but calls its endpoints through
 * method handles, which the JVM specialises per endpoint (a class spun for each connection) after 127 calls; with
 * thousands of connections receiving at the same rate, that is thousands of classes defined within a second or two.
 *
 * <p>Not thread-safe: one per connection, fed one frame at a time (Jetty delivers frames one at a time, on demand).
 * A message that fits in one frame is decoded straight from the frame's buffer, without a copy.</p>
 */
public final class TextMessageAssembler {
    private final int maxMessageBytes;
    private byte[] partial;
    private int partialLength;

    /**
     * @param maxMessageBytes the largest message, in UTF-8 bytes
     */
    public TextMessageAssembler(int maxMessageBytes) {
        if (maxMessageBytes < 1) {
            throw new IllegalArgumentException("maxMessageBytes must be at least 1, not " + maxMessageBytes);
        }
        this.maxMessageBytes = maxMessageBytes;
    }

    /**
     * Adds a text or continuation frame. The frame's payload is read before this returns, so its callback may
     * succeed right after.
     *
     * @param frame the frame
     * @return the whole message once its last frame is added; null while frames are to come
     * @throws MessageTooLargeException if the message is longer than the limit (close with its status, 1009); what
     *         was gathered is dropped
     * @throws BadPayloadException if the message is not valid UTF-8 (close with its status, 1007)
     */
    public String add(Frame frame) {
        ByteBuffer payload = frame.getPayload();
        int length = payload == null ? 0 : payload.remaining();
        if ((long) partialLength + length > maxMessageBytes) {
            partial = null;
            partialLength = 0;
            throw new MessageTooLargeException("message larger than " + maxMessageBytes + " bytes");
        }
        if (frame.isFin() && partial == null) {
            return length == 0 ? "" : decode(payload.slice());
        }
        append(payload, length);
        if (!frame.isFin()) {
            return null;
        }
        ByteBuffer whole = ByteBuffer.wrap(partial, 0, partialLength);
        partial = null;
        partialLength = 0;
        return decode(whole);
    }

    private void append(ByteBuffer payload, int length) {
        if (partial == null) {
            partial = new byte[Math.min(maxMessageBytes, Math.max(length, 1024))];
            partialLength = 0;
        } else if (partialLength + length > partial.length) {
            partial = Arrays.copyOf(partial, Math.min(maxMessageBytes, Math.max(partialLength + length,
                    partial.length * 2)));
        }
        if (length > 0) {
            payload.slice().get(partial, partialLength, length);
            partialLength += length;
        }
    }

    private static String decode(ByteBuffer utf8) {
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(utf8)
                    .toString();
        } catch (CharacterCodingException invalid) {
            throw new BadPayloadException("invalid UTF-8", invalid);
        }
    }

    /**
     * @param ping a ping frame
     * @return the pong that answers it, with a copy of its payload (the ping's buffer goes back to Jetty)
     */
    public static Frame pongFor(Frame ping) {
        ByteBuffer copy = null;
        if (ping.hasPayload()) {
            copy = ByteBuffer.allocate(ping.getPayload().remaining());
            copy.put(ping.getPayload().slice()).flip();
        }
        return new Frame(OpCode.PONG, copy);
    }
}
