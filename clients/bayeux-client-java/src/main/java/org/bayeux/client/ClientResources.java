package org.bayeux.client;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

import org.bayeux.api.json.JsonCodec;
import org.bayeux.api.json.JsonCodecProvider;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.RandomConnectionPool;
import org.eclipse.jetty.client.transport.HttpClientTransportOverHTTP;
import org.eclipse.jetty.http.HttpCookieStore;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;
import org.eclipse.jetty.util.thread.Scheduler;
import org.eclipse.jetty.websocket.core.client.WebSocketCoreClient;

/**
 * What clients need to run and can share: Jetty's HTTP client (its connection pools, selectors and TLS set-up), the
 * WebSocket client built on it, one scheduler thread for every timer, one thread pool, and the JSON codecs. No
 * client has a thread of its own, so thousands of clients sharing one {@code ClientResources} need only the pool's
 * threads.
 *
 * <pre>{@code
 * try (ClientResources shared = ClientResources.builder().maxThreads(16).build()) {
 *     BayeuxClient a = new BayeuxClient(config, shared);
 *     BayeuxClient b = new BayeuxClient(config, shared);
 *     ...
 * }   // stop the clients first; closing the resources stops every client's connections
 * }</pre>
 *
 * <p>Cookies are never shared: each client keeps its own (see {@link BayeuxClient#getCookieStore()}), because a
 * Bayeux server tells browsers apart by cookie and would take many clients for one.</p>
 */
public final class ClientResources implements AutoCloseable {
    private static final String WHAT = "client resources";

    private final QueuedThreadPool threads;
    private final Scheduler scheduler;
    private final HttpClient httpClient;
    private final WebSocketCoreClient webSocketClient;
    private final Duration idleTimeout;
    private final Map<String, JsonCodec> codecs = new ConcurrentHashMap<>();

    private ClientResources(Builder builder) {
        threads = new QueuedThreadPool(builder.maxThreads, Math.min(2, builder.maxThreads));
        threads.setName("bayeux-client");
        threads.setDaemon(true);
        scheduler = new ScheduledExecutorScheduler("bayeux-client-scheduler", true);
        httpClient = new HttpClient();
        httpClient.setExecutor(threads);
        httpClient.setScheduler(scheduler);
        // Each client keeps its own cookies; a store shared by every client would mix their sessions.
        httpClient.setHttpCookieStore(new HttpCookieStore.Empty());
        httpClient.setMaxConnectionsPerDestination(builder.maxConnectionsPerServer);
        // The clients' held connects keep most pooled connections busy. Jetty's default pool searches for an idle
        // one from the start of the pool on every request, through all the busy ones: with thousands of clients
        // that search dominated the cost of a request. Starting at a random place finds an idle one at once.
        int maxConnections = builder.maxConnectionsPerServer;
        httpClient.getHttpClientTransport().setConnectionPoolFactory(
                destination -> new RandomConnectionPool(destination, maxConnections, 1));
        httpClient.setMaxRequestsQueuedPerDestination(builder.maxConnectionsPerServer);
        if (httpClient.getHttpClientTransport() instanceof HttpClientTransportOverHTTP http1) {
            // Jetty's per-connection cache of response header lines costs about 100 KB of heap per connection, and
            // looking lines up in it cost more than parsing the few headers a Bayeux server answers with.
            http1.setHeaderCacheSize(0);
        }
        httpClient.setConnectTimeout(builder.connectTimeout.toMillis());
        httpClient.setIdleTimeout(builder.idleTimeout.toMillis());
        httpClient.getClientConnector().setSelectors(builder.selectors);
        if (builder.bindAddress != null) {
            httpClient.setBindAddress(new InetSocketAddress(builder.bindAddress, 0));
        }
        if (builder.sslContextFactory != null) {
            httpClient.setSslContextFactory(builder.sslContextFactory);
        }
        idleTimeout = builder.idleTimeout;
        WebSocketCoreClient webSockets = null;
        try {
            // The thread pool and the scheduler are the HTTP client's beans: they start and stop with it.
            httpClient.start();
            // Jetty's core WebSocket client, not its endpoint API: see ClientSocket for why. Made only once the HTTP
            // client has started, so that it takes that client's buffers and threads; made before, it would start
            // a thread pool of its own.
            webSockets = new WebSocketCoreClient(httpClient, null);
            webSockets.start();
        } catch (Exception failure) {
            stop(webSockets, httpClient);
            throw new IllegalStateException("Cannot start the HTTP and WebSocket clients", failure);
        }
        webSocketClient = webSockets;
    }

    /** @return a builder with the defaults */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the HTTP client, started */
    public HttpClient httpClient() {
        return httpClient;
    }

    /** @return Jetty's core WebSocket client, started, on {@link #httpClient()} */
    public WebSocketCoreClient webSocketClient() {
        return webSocketClient;
    }

    /** @return how long a connection, HTTP or WebSocket, may stay silent before it is closed */
    public Duration idleTimeout() {
        return idleTimeout;
    }

    /** @return the scheduler that runs every client's timers; tasks on it must be short */
    public Scheduler scheduler() {
        return scheduler;
    }

    /** @return the thread pool that runs the network I/O and the clients' callbacks */
    public Executor executor() {
        return threads;
    }

    /**
     * @param name a codec name, for example {@code jackson}
     * @return the codec, made once per name and shared (codecs are thread-safe)
     * @throws IllegalArgumentException if no codec of that name is on the class path
     */
    public JsonCodec codec(String name) {
        return codecs.computeIfAbsent(name, n -> JsonCodecProvider.find(n, ClientResources.class.getClassLoader())
                .newCodec(JsonCodec.DEFAULT_MAX_NESTING_DEPTH));
    }

    /** Stops the WebSocket and HTTP clients, the scheduler and the threads; every client using them stops working. */
    @Override
    public void close() {
        stop(webSocketClient, httpClient);
    }

    private static void stop(WebSocketCoreClient webSockets, HttpClient http) {
        try {
            if (webSockets != null) {
                webSockets.stop();
            }
            http.stop();
        } catch (Exception failure) {
            throw new IllegalStateException("Cannot stop the HTTP and WebSocket clients", failure);
        }
    }

    /**
     * Collects the settings of shared resources; each is checked as it is set.
     */
    public static final class Builder {
        private int maxThreads = 32;
        private int selectors = 1;
        private int maxConnectionsPerServer = 65_536;
        private Duration connectTimeout = Duration.ofSeconds(10);
        private Duration idleTimeout = Duration.ofMinutes(5);
        private SslContextFactory.Client sslContextFactory;
        private InetAddress bindAddress;

        private Builder() {
        }

        /**
         * Makes every connection (HTTP and WebSocket) leave from this local address, for example one of 127.0.0.x
         * when many clients on one machine run out of ephemeral ports on one address.
         *
         * @param address the local address
         * @return this builder
         */
        public Builder bindAddress(InetAddress address) {
            this.bindAddress = Objects.requireNonNull(address, "address");
            return this;
        }

        /**
         * @param maxThreads the most threads of the pool that runs I/O and callbacks; at least 4
         * @return this builder
         */
        public Builder maxThreads(int maxThreads) {
            if (maxThreads < 4) {
                throw Checks.invalid(WHAT, "maxThreads", maxThreads, "an integer of at least 4");
            }
            this.maxThreads = maxThreads;
            return this;
        }

        /**
         * @param selectors how many selector threads watch the sockets; at least 1
         * @return this builder
         */
        public Builder selectors(int selectors) {
            if (selectors < 1) {
                throw Checks.invalid(WHAT, "selectors", selectors, "an integer of at least 1");
            }
            this.selectors = selectors;
            return this;
        }

        /**
         * @param count the most connections open to one server (host and port) at once, WebSocket upgrades
         *              included; each long-polling client needs two, each WebSocket client one; at least 1
         * @return this builder
         */
        public Builder maxConnectionsPerServer(int count) {
            if (count < 1) {
                throw Checks.invalid(WHAT, "maxConnectionsPerServer", count, "an integer of at least 1");
            }
            this.maxConnectionsPerServer = count;
            return this;
        }

        /**
         * @param timeout how long opening a TCP connection may take; above 0
         * @return this builder
         */
        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = Checks.positive(WHAT, "connectTimeout", timeout);
            return this;
        }

        /**
         * @param timeout how long a connection may stay silent before it is closed; it must exceed the longest
         *                time a server holds a connect (its advised timeout), otherwise held connects fail
         * @return this builder
         */
        public Builder idleTimeout(Duration timeout) {
            this.idleTimeout = Checks.positive(WHAT, "idleTimeout", timeout);
            return this;
        }

        /**
         * @param factory the TLS settings for {@code https://} and {@code wss://} servers: trust store, protocols,
         *                host name verification; without it the JVM's defaults apply
         * @return this builder
         */
        public Builder sslContextFactory(SslContextFactory.Client factory) {
            this.sslContextFactory = factory;
            return this;
        }

        /** @return the resources, started */
        public ClientResources build() {
            return new ClientResources(this);
        }
    }
}
