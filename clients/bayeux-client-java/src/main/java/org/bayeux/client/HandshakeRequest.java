package org.bayeux.client;

import java.util.function.BiConsumer;

import org.bayeux.api.Message;

/**
 * A handshake about to be sent, as a {@link HandshakeHook} sees it: the message, to which credentials can be added
 * (usually in {@code ext}), and the HTTP headers that the client sends from now on.
 */
public final class HandshakeRequest {
    private final Message.Mutable message;
    private final boolean rehandshake;
    private final int attempt;
    private final BiConsumer<String, String> headerSetter;

    /**
     * @param message the handshake message
     * @param rehandshake whether the client had a session before
     * @param attempt the number of this attempt since the last successful handshake, from 1
     * @param headerSetter applies a header change to the client
     */
    HandshakeRequest(Message.Mutable message, boolean rehandshake, int attempt,
            BiConsumer<String, String> headerSetter) {
        this.message = message;
        this.rehandshake = rehandshake;
        this.attempt = attempt;
        this.headerSetter = headerSetter;
    }

    /** @return the handshake message; changes to it are sent */
    public Message.Mutable message() {
        return message;
    }

    /**
     * Adds credentials to the handshake's {@code ext} object.
     *
     * @param name the extension field, for example {@code auth}
     * @param value its value (a JSON value: a map, a string, a number)
     */
    public void ext(String name, Object value) {
        message.getExt(true).put(name, value);
    }

    /**
     * Sets a header sent with this handshake and every later HTTP request and WebSocket upgrade of the client,
     * replacing any value set before (in the configuration or by an earlier handshake).
     *
     * @param name the header name, for example {@code Authorization}
     * @param value the value, or null to stop sending the header
     */
    public void header(String name, String value) {
        headerSetter.accept(name, value);
    }

    /** @return true if the client had a session before, lost it, and is handshaking again */
    public boolean isRehandshake() {
        return rehandshake;
    }

    /** @return which attempt this is since the client last handshook successfully (or began), from 1 */
    public int attempt() {
        return attempt;
    }

    @Override
    public String toString() {
        return "HandshakeRequest[attempt " + attempt + (rehandshake ? ", rehandshake" : "") + "]";
    }
}
