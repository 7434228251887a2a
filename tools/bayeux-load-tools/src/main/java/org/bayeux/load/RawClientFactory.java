package org.bayeux.load;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.concurrent.TimeUnit;

import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.HttpClientTransport;
import org.eclipse.jetty.client.RandomConnectionPool;
import org.eclipse.jetty.client.transport.HttpClientTransportOverHTTP;
import org.eclipse.jetty.http.HttpCookieStore;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.websocket.core.client.WebSocketCoreClient;

/**
 * {@code --client raw}: {@link RawWebSocketClient}s and {@link RawLongPollingClient}s on one Jetty
 * {@code HttpClient} and core {@code WebSocketCoreClient} per source address, {@code --threads} threads in all. Uses
 * nothing of our Java client, so that a result measured with it never depends on that client.
 */
final class RawClientFactory implements ClientFactory {
    private static final long REQUEST_TIMEOUT_MILLIS = TimeUnit.SECONDS.toMillis(30);
    /** Longer than any server holds a connect. */
    private static final long HELD_CONNECT_TIMEOUT_MILLIS = TimeUnit.MINUTES.toMillis(2);
    private final LoadOptions options;
    /** Per node (of --url): the endpoint over HTTP and over WebSocket. */
    private final URI[] httpUris;
    private final URI[] webSocketUris;
    private final HttpClient[] https;
    private final WebSocketCoreClient[] webSockets;

    RawClientFactory(LoadOptions options) {
        this.options = options;
        this.httpUris = options.urls.toArray(URI[]::new);
        this.webSocketUris = new URI[httpUris.length];
        for (int node = 0; node < httpUris.length; node++) {
            webSocketUris[node] = URI.create(httpUris[node].toString().replaceFirst("^http", "ws"));
        }
        this.https = new HttpClient[options.sourceAddresses];
        this.webSockets = new WebSocketCoreClient[options.sourceAddresses];
        try {
            for (int i = 0; i < https.length; i++) {
                HttpClientTransportOverHTTP transport = new HttpClientTransportOverHTTP();
                // Jetty's per-connection cache of response header lines costs heap per connection for nothing here.
                transport.setHeaderCacheSize(0);
                int maxConnections = Math.max(1024, 4 * options.clients);
                // Held connects keep most connections busy: start the search for an idle one at a random place.
                transport.setConnectionPoolFactory(destination -> new RandomConnectionPool(destination,
                        maxConnections, 1));
                HttpClient http = new HttpClient((HttpClientTransport) transport);
                QueuedThreadPool threads = new QueuedThreadPool(Math.max(4, options.threads / https.length));
                threads.setName("raw-client-" + i);
                threads.setDaemon(true);
                http.setExecutor(threads);
                http.setMaxConnectionsPerDestination(maxConnections);
                http.setMaxRequestsQueuedPerDestination(maxConnections);
                http.setIdleTimeout(TimeUnit.MINUTES.toMillis(2));
                // Each raw client sends its own cookies: a shared store would make every client one browser.
                http.setHttpCookieStore(new HttpCookieStore.Empty());
                if (https.length > 1) {
                    http.setBindAddress(new InetSocketAddress(
                            InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) (i + 1)}), 0));
                }
                https[i] = http;
                http.start();
                webSockets[i] = new WebSocketCoreClient(http, null);
                webSockets[i].start();
            }
        } catch (Exception failure) {
            close();
            throw new LoadRun.LoadFailure("cannot start the raw clients' HTTP and WebSocket clients: " + failure);
        }
    }

    @Override
    public LoadClient newClient(int index, String transport, LoadClient.Listener listener) {
        int shared = index % https.length;
        int node = options.nodeOf(index);
        return switch (transport) {
            case "websocket" -> new RawWebSocketClient(index, listener, webSockets[shared], webSocketUris[node],
                    REQUEST_TIMEOUT_MILLIS);
            case "long-polling" -> new RawLongPollingClient(index, listener, https[shared], httpUris[node],
                    REQUEST_TIMEOUT_MILLIS, HELD_CONNECT_TIMEOUT_MILLIS);
            default -> throw new IllegalArgumentException("no raw transport " + transport);
        };
    }

    @Override
    public void close() {
        for (int i = 0; i < https.length; i++) {
            try {
                if (webSockets[i] != null) {
                    webSockets[i].stop();
                }
                if (https[i] != null) {
                    https[i].stop();
                }
            } catch (Exception ignored) {
                // Stopping what failed to start, or at the end of the run: nothing to do about it.
            }
        }
    }
}
