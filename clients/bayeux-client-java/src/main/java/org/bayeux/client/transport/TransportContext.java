package org.bayeux.client.transport;

import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import org.bayeux.api.json.JsonCodec;
import org.bayeux.client.ClientResources;

/**
 * What a transport of one client works with: the server's URL, the shared resources, the codec, the client's own
 * cookies and headers, the size limit of what it reads, and the listener it reports to.
 */
public final class TransportContext {
    private final URI url;
    private final ClientResources resources;
    private final JsonCodec codec;
    private final ClientCookies cookies;
    private final Supplier<Map<String, String>> headers;
    private final int maxIncomingMessageBytes;
    private final TransportListener listener;

    /**
     * @param url the server's endpoint, http or https
     * @param resources the HTTP and WebSocket clients, scheduler and threads
     * @param codec the JSON codec
     * @param cookies the client's cookies
     * @param headers the headers to send now, read at each request
     * @param maxIncomingMessageBytes the largest response or WebSocket message to read
     * @param listener where received messages and failures go
     */
    public TransportContext(URI url, ClientResources resources, JsonCodec codec, ClientCookies cookies,
            Supplier<Map<String, String>> headers, int maxIncomingMessageBytes, TransportListener listener) {
        this.url = url;
        this.resources = resources;
        this.codec = codec;
        this.cookies = cookies;
        this.headers = headers;
        this.maxIncomingMessageBytes = maxIncomingMessageBytes;
        this.listener = listener;
    }

    /** @return the server's endpoint */
    public URI url() {
        return url;
    }

    /** @return the shared resources */
    public ClientResources resources() {
        return resources;
    }

    /** @return the JSON codec */
    public JsonCodec codec() {
        return codec;
    }

    /** @return the headers to send with a request or upgrade made now */
    public Map<String, String> headers() {
        return headers.get();
    }

    /** @return the largest response or WebSocket message to read, in bytes */
    public int maxIncomingMessageBytes() {
        return maxIncomingMessageBytes;
    }

    /** @return the listener */
    public TransportListener listener() {
        return listener;
    }

    /** @return the value of a {@code Cookie} header for the server, or null if the client has no cookie for it */
    public String cookieHeader() {
        return cookies.header(url);
    }

    /**
     * Keeps the cookies a server set.
     *
     * @param setCookieValues the values of the response's {@code Set-Cookie} headers
     */
    public void storeCookies(List<String> setCookieValues) {
        cookies.keep(url, setCookieValues);
    }
}
