package org.bayeux.json.jetty;

/**
 * Input that {@link StrictJson} refuses. Unchecked because it must pass through the methods of Jetty's
 * {@code JSON} that {@link StrictJson} overrides, which declare no exception; {@link JettyJsonCodec} turns it into
 * a {@link org.bayeux.api.json.MalformedJsonException}.
 */
final class JsonSyntaxException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what is wrong with the input, and where
     */
    JsonSyntaxException(String message) {
        super(message);
    }
}
