package org.bayeux.server.transport;

/**
 * A batch that cannot be processed at all: not JSON, not an array of objects, empty, or a handshake sent with other
 * messages. Transports answer it with HTTP 400, or close a WebSocket with code 1011.
 */
public class BadBatchException extends Exception {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what is wrong, safe to show to the client
     * @param cause the parser's exception, or null
     */
    public BadBatchException(String message, Throwable cause) {
        super(message, cause);
    }
}
