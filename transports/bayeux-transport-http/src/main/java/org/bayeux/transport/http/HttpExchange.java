package org.bayeux.transport.http;

import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * One HTTP request and its response, as the HTTP transports need them. Jetty's core API and the Servlet API each
 * implement it, so that long-polling, callback-polling, CORS and the browser cookie are written once.
 *
 * <p>Every method is non-blocking. {@link #respond} completes the exchange and may be called from any thread,
 * once.</p>
 */
public interface HttpExchange {
    /** @return the method, upper case */
    String method();

    /**
     * @param name a header name, case-insensitive
     * @return its first value, or null
     */
    String header(String name);

    /**
     * @param name a query parameter name
     * @return its values joined in order (repeated {@code message} parameters are concatenated), or null
     */
    String queryParameter(String name);

    /**
     * @param name a cookie name
     * @return its value, or null
     */
    String cookie(String name);

    /** @return true if the request came over HTTP/2 or later, where one browser may hold many long polls */
    boolean isMultiplexed();

    /** @return true if the request came over TLS */
    boolean isSecure();

    /** @return the host name the request was sent to (its {@code Host}), as the server sees it */
    String serverName();

    /** @return the port the request was sent to, as the server sees it */
    int serverPort();

    /**
     * @return the client's IP address as the server sees it: the TCP peer, or, behind a proxy whose forwarded headers
     *         the server is configured to trust (Jetty's {@code ForwardedRequestCustomizer}), the client it names
     */
    String remoteAddress();

    /**
     * Reads the whole body, without blocking a thread while it arrives.
     *
     * @param maxBytes the largest body accepted
     * @return completed with the body once read, or exceptionally if reading failed: with
     *         {@link BodyTooLargeException} if the body is too large
     */
    CompletionStage<byte[]> readBody(int maxBytes);

    /**
     * Adds a response header.
     *
     * @param name the name
     * @param value the value
     */
    void addHeader(String name, String value);

    /**
     * Adds a {@code Set-Cookie}.
     *
     * @param name the cookie name
     * @param value its value
     * @param attributes extra attributes such as {@code SameSite}, {@code Secure}; {@code Path=/} and
     *                   {@code HttpOnly} are always set
     */
    void addCookie(String name, String value, Map<String, String> attributes);

    /**
     * Sends the response and completes the exchange.
     *
     * @param status the status
     * @param contentType the content type, or null for none
     * @param body the body
     */
    void respond(int status, String contentType, byte[] body);

    /**
     * @param listener told if the client goes away or the exchange fails before the response is complete
     */
    void onFailure(Consumer<Throwable> listener);

    /**
     * The request is now held (a long poll): from now until {@link #respond}, the exchange should notice as soon as
     * the client closes its connection and then fail, telling the {@link #onFailure} listeners. Servers that notice
     * it anyway need not do anything.
     */
    default void watchForClose() {
    }
}
