package org.bayeux.client;

/**
 * The errors the client reports itself, in replies it makes up when no reply came from the server: a request that
 * timed out, a connection that failed, a client that is not connected. They follow the protocol's
 * {@code code:args:message} form, so that a callback reads them like a server's errors; the made-up reply has
 * {@code successful:false}, the request's {@code channel} and {@code id}, and a {@value #FAILURE_FIELD} field that
 * says what happened.
 */
public final class ClientErrors {
    /** Field {@value}: in a reply made up by the client, a description of the failure (text, for logs). */
    public static final String FAILURE_FIELD = "failure";
    /** No reply came in time: a request's network delay, or a remote call's timeout, ran out. */
    public static final String TIMEOUT = "408::timeout";
    /** The connection failed, or the server answered with an HTTP error, before the reply came. */
    public static final String TRANSPORT_FAILURE = "503::transport_failure";
    /** The client is disconnected, or became so before the message could be sent or answered. */
    public static final String NOT_CONNECTED = "409::not_connected";
    /** An extension dropped the message before it was sent (the server uses the same error for its own drops). */
    public static final String MESSAGE_DELETED = "404::message_deleted";
    /** The client already has as many unanswered messages as {@link BayeuxClientConfig#maxPendingMessages()}. */
    public static final String TOO_MANY_PENDING = "429::too_many_pending";
    /** The handshake found no transport that both the client and the server support. */
    public static final String NO_COMMON_TRANSPORT = "301::connection_types_mismatch";

    private ClientErrors() {
    }
}
