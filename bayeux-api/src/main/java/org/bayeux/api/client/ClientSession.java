package org.bayeux.api.client;

import java.util.List;
import java.util.Map;

import org.bayeux.api.Message;
import org.bayeux.api.Session;

/**
 * A client's view of its Bayeux session: the API shared by the remote Java client and by in-process
 * {@link org.bayeux.api.server.LocalSession}s.
 */
public interface ClientSession extends Session {
    /**
     * Starts the handshake.
     *
     * @param template extra fields for the handshake message (for example {@code ext} with credentials), or null
     * @param callback called with the handshake reply, or null
     */
    void handshake(Map<String, Object> template, ClientSessionChannel.MessageListener callback);

    /** Starts the handshake with no extra fields and no callback. */
    default void handshake() {
        handshake(null, null);
    }

    /**
     * Ends the session.
     *
     * @param callback called with the disconnect reply, or null
     */
    void disconnect(ClientSessionChannel.MessageListener callback);

    @Override
    default void disconnect() {
        disconnect(null);
    }

    /**
     * @param name the channel name
     * @return this session's handle on the channel; the same handle for the same name
     * @throws IllegalArgumentException if the name is not a valid channel name
     */
    ClientSessionChannel getChannel(String name);

    /**
     * Publishes to a service channel and calls back with the server's answer.
     *
     * @param target the service channel, for example {@code /service/echo}
     * @param data the request payload
     * @param callback called once with the answer (successful or not)
     */
    void remoteCall(String target, Object data, ClientSessionChannel.MessageListener callback);

    /**
     * @param extension the extension to add; extensions run in the order added
     */
    void addExtension(Extension extension);

    /**
     * @param extension the extension to remove
     */
    void removeExtension(Extension extension);

    /** @return the extensions, in the order they run */
    List<Extension> getExtensions();

    /**
     * A client-side extension: sees, may change and may drop every message the client sends and receives.
     * Returning false drops the message. Methods run in the client's thread and must not block.
     */
    interface Extension {
        /**
         * @param session the session
         * @param message a received non-meta message
         * @return false to drop it
         */
        default boolean rcv(ClientSession session, Message.Mutable message) {
            return true;
        }

        /**
         * @param session the session
         * @param message a received meta message
         * @return false to drop it
         */
        default boolean rcvMeta(ClientSession session, Message.Mutable message) {
            return true;
        }

        /**
         * @param session the session
         * @param message a non-meta message about to be sent
         * @return false to drop it
         */
        default boolean send(ClientSession session, Message.Mutable message) {
            return true;
        }

        /**
         * @param session the session
         * @param message a meta message about to be sent
         * @return false to drop it
         */
        default boolean sendMeta(ClientSession session, Message.Mutable message) {
            return true;
        }
    }
}
