package org.bayeux.client.transport;

import java.io.IOException;

/**
 * The server answered a Bayeux request with an HTTP status other than 200: the request's messages have no reply.
 */
public final class HttpStatusException extends IOException {
    /** The version of the serialized form. */
    private static final long serialVersionUID = 1L;

    /** The HTTP status. */
    private final int status;

    /**
     * @param status the HTTP status
     */
    public HttpStatusException(int status) {
        super("HTTP status " + status);
        this.status = status;
    }

    /** @return the HTTP status */
    public int status() {
        return status;
    }
}
