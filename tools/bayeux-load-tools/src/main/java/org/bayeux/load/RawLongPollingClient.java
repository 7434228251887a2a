package org.bayeux.load;

import java.net.URI;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import org.eclipse.jetty.client.BufferingResponseListener;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;

/**
 * The raw client over long-polling, on Jetty's {@code HttpClient} shared by all clients: one POST per message array,
 * the connect held by the server on its own request. Each client keeps its own cookies (the server's browser cookie
 * from the handshake), as separate browsers would; the shared client stores none.
 */
final class RawLongPollingClient extends RawClient {
    private static final int MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
    private static final String JSON = "application/json;charset=UTF-8";
    private final HttpClient http;
    private final URI uri;
    private final long requestTimeoutMillis;
    private final long connectTimeoutMillis;
    private volatile String cookie;

    RawLongPollingClient(int index, Listener listener, HttpClient http, URI uri, long requestTimeoutMillis,
            long connectTimeoutMillis) {
        super(index, listener, "long-polling");
        this.http = http;
        this.uri = uri;
        this.requestTimeoutMillis = requestTimeoutMillis;
        this.connectTimeoutMillis = connectTimeoutMillis;
    }

    @Override
    void open() {
        post(handshakeMessage(), requestTimeoutMillis, true);
    }

    @Override
    void send(String json) {
        post(json, requestTimeoutMillis, false);
    }

    @Override
    void sendConnect(String json) {
        post(json, connectTimeoutMillis, false);
    }

    private void post(String json, long timeoutMillis, boolean handshake) {
        Request request = http.newRequest(uri).method(HttpMethod.POST).timeout(timeoutMillis, TimeUnit.MILLISECONDS)
                .body(new StringRequestContent(JSON, json));
        String current = cookie;
        if (current != null) {
            request.headers(headers -> headers.put(HttpHeader.COOKIE, current));
        }
        request.send(new BufferingResponseListener(MAX_RESPONSE_BYTES) {
            @Override
            public void onComplete(org.eclipse.jetty.client.Result result) {
                if (result.isFailed()) {
                    failed("request failed: " + result.getFailure());
                    return;
                }
                int status = result.getResponse().getStatus();
                if (status != 200) {
                    failed("HTTP " + status);
                    return;
                }
                if (handshake) {
                    cookie = cookieHeader(result.getResponse().getHeaders().getValuesList(HttpHeader.SET_COOKIE));
                }
                received(ByteBuffer.wrap(getContent()));
            }
        });
    }

    @Override
    void release() {
        // Nothing of its own: the connections are the shared client's.
    }
}
