package org.bayeux.api.json;

/**
 * Input that a {@link JsonCodec} could not accept: not JSON, too deeply nested, or not of the expected shape.
 */
public class MalformedJsonException extends Exception {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what is wrong with the input
     */
    public MalformedJsonException(String message) {
        super(message);
    }

    /**
     * @param message what is wrong with the input
     * @param cause the parser's own exception
     */
    public MalformedJsonException(String message, Throwable cause) {
        super(message, cause);
    }
}
