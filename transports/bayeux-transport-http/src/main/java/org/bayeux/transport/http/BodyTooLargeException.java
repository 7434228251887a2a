package org.bayeux.transport.http;

/**
 * A request body larger than the engine's {@code maxMessageSizeBytes}; answered with HTTP 413.
 */
public class BodyTooLargeException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * @param maxBytes the limit that was passed
     */
    public BodyTooLargeException(int maxBytes) {
        super("Body larger than " + maxBytes + " bytes");
    }
}
