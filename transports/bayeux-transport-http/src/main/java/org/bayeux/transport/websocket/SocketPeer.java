package org.bayeux.transport.websocket;

import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * The little a {@link SocketCarrier} needs from one open WebSocket, whatever the server API behind it (Jetty's core
 * WebSocket, Jakarta WebSocket). Implementations adapt a container's session; none of the calls may block.
 */
public interface SocketPeer {
    /**
     * Starts sending one text message. The carrier never starts a send before the previous one completed.
     *
     * @param text the whole message
     * @param done told once when the send completes: {@code null} on success, the failure otherwise; may be called
     *        on the calling thread, before this method returns
     */
    void sendText(String text, Consumer<Throwable> done);

    /**
     * Starts sending one text message given as UTF-8 bytes, as the engine encodes it. The default decodes it for
     * {@link #sendText(String, Consumer)}, for APIs that take only strings (Jakarta WebSocket); Jetty's core API
     * sends the bytes as they are.
     *
     * @param utf8 the whole message, UTF-8 encoded; not changed by the caller afterwards
     * @param done as for {@link #sendText(String, Consumer)}
     */
    default void sendText(byte[] utf8, Consumer<Throwable> done) {
        sendText(new String(utf8, StandardCharsets.UTF_8), done);
    }

    /**
     * Starts a close handshake with a code and a short printable ASCII reason, without waiting for it to finish.
     *
     * @param code the close code, for example 1011
     * @param reason the reason, at most 100 printable ASCII characters
     */
    void close(int code, String reason);

    /** Drops the connection without a close handshake, for a peer that stopped reading. */
    void abort();
}
