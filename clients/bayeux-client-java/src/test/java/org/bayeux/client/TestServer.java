package org.bayeux.client;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;

import org.bayeux.api.Promise;
import org.bayeux.api.server.LocalSession;
import org.bayeux.api.server.ServerChannel;
import org.bayeux.api.server.ServerSession;
import org.bayeux.server.BayeuxServerImpl;
import org.bayeux.server.BayeuxService;
import org.bayeux.server.config.BayeuxServerConfig;
import org.bayeux.testsupport.PausableProxy;
import org.bayeux.transport.http.TransportConfig;
import org.bayeux.transport.jetty.BayeuxEndpoint;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.ssl.SslContextFactory;

import static org.awaitility.Awaitility.await;

/**
 * Our server, for the client to meet: a real Jetty on 127.0.0.1 (port chosen by the system, kept across
 * {@link #restart()}), the endpoint at {@code /bayeux}, an echo service on {@code /service/echo}, and a local session
 * to publish from the server side. Optionally reached through a {@link PausableProxy}.
 */
final class TestServer implements AutoCloseable {
    /** Short holds keep the suite fast; long enough that nothing times out on a busy machine. */
    static final Duration TIMEOUT = Duration.ofSeconds(3);

    private final Consumer<BayeuxServerConfig.Builder> engineConfig;
    private final Consumer<TransportConfig.Builder> transportConfig;
    private final Consumer<BayeuxServerImpl> engineSetup;
    private final SslContextFactory.Server tls;
    private Server jetty;
    private int port;
    private volatile BayeuxServerImpl engine;
    private LocalSession publisher;
    private PausableProxy proxy;
    /** The HTTP requests received (WebSocket upgrades included), since the last start. */
    private final List<RecordedRequest> requests = new CopyOnWriteArrayList<>();

    /**
     * @param engineConfig changes to the engine configuration (the hold is {@link #TIMEOUT} unless changed)
     * @param transportConfig changes to the transport configuration
     * @param engineSetup what to add to each new engine (extensions, services), at each start
     */
    TestServer(Consumer<BayeuxServerConfig.Builder> engineConfig, Consumer<TransportConfig.Builder> transportConfig,
            Consumer<BayeuxServerImpl> engineSetup) throws Exception {
        this(engineConfig, transportConfig, engineSetup, null);
    }

    /**
     * @param tls the TLS settings of an https server, or null for plain http
     */
    TestServer(Consumer<BayeuxServerConfig.Builder> engineConfig, Consumer<TransportConfig.Builder> transportConfig,
            Consumer<BayeuxServerImpl> engineSetup, SslContextFactory.Server tls) throws Exception {
        this.engineConfig = engineConfig;
        this.transportConfig = transportConfig;
        this.engineSetup = engineSetup;
        this.tls = tls;
        start(0);
    }

    /**
     * Sessions expire 1 s after their last connect (swept every 100 ms); connects are held 20 s, longer than any
     * pause of the proxy, so that no client request times out meanwhile.
     */
    static void expiringQuickly(BayeuxServerConfig.Builder builder) {
        builder.timeout(Duration.ofSeconds(20)).maxInterval(Duration.ofSeconds(1)).sweepPeriod(Duration.ofMillis(100));
    }

    /** Connects are held 20 s: only a message ends them, and a test decides when. */
    static void holdingLong(BayeuxServerConfig.Builder builder) {
        builder.timeout(Duration.ofSeconds(20));
    }

    TestServer() throws Exception {
        this(engine -> { }, transport -> { }, engine -> { });
    }

    private void start(int wantedPort) throws Exception {
        requests.clear();
        BayeuxServerConfig.Builder engineBuilder = BayeuxServerConfig.builder().timeout(TIMEOUT);
        engineConfig.accept(engineBuilder);
        TransportConfig.Builder transportBuilder = TransportConfig.builder();
        transportConfig.accept(transportBuilder);
        BayeuxServerImpl newEngine = new BayeuxServerImpl(engineBuilder.build());
        jetty = new Server();
        ServerConnector connector = tls == null ? new ServerConnector(jetty) : new ServerConnector(jetty, tls);
        connector.setHost("127.0.0.1");
        connector.setPort(wantedPort);
        connector.setIdleTimeout(60_000);
        jetty.addConnector(connector);
        BayeuxEndpoint.mount(jetty, "/bayeux", newEngine, transportBuilder.build());
        jetty.setHandler(new RequestRecorder(jetty.getHandler()));
        jetty.start();
        port = connector.getLocalPort();
        new EchoService(newEngine);
        engineSetup.accept(newEngine);
        publisher = newEngine.newLocalSession("test-publisher");
        publisher.handshake();
        engine = newEngine;
    }

    /** Stops the server, forgetting every session, then starts a new engine on the same port. */
    void restart() throws Exception {
        stop();
        startAgain();
    }

    /** Stops the server: its port refuses connections until {@link #startAgain()}. */
    void stop() throws Exception {
        jetty.stop();
    }

    /** Starts a new engine, with no session, on the port of the stopped one. */
    void startAgain() throws Exception {
        start(port);
    }

    BayeuxServerImpl engine() {
        return engine;
    }

    String url() {
        return (tls == null ? "http" : "https") + "://127.0.0.1:" + port + "/bayeux";
    }

    /** @return the endpoint URL through a {@link PausableProxy}, started on first use */
    String proxiedUrl() throws Exception {
        return "http://127.0.0.1:" + proxy().port() + "/bayeux";
    }

    PausableProxy proxy() throws Exception {
        if (proxy == null) {
            proxy = new PausableProxy(port);
        }
        return proxy;
    }

    /** @return the HTTP requests the server received since it last started, WebSocket upgrades included */
    List<RecordedRequest> requests() {
        return List.copyOf(requests);
    }

    /** @return the remote sessions subscribed to a channel now */
    List<ServerSession> subscribers(String channel) {
        ServerChannel serverChannel = engine.getChannel(channel);
        if (serverChannel == null) {
            return List.of();
        }
        return serverChannel.getSubscribers().stream().filter(session -> !session.isLocalSession())
                .collect(Collectors.toList());
    }

    /** @return the remote sessions */
    List<ServerSession> remoteSessions() {
        return engine.getSessions().stream().filter(session -> !session.isLocalSession()).collect(Collectors.toList());
    }

    /**
     * Makes the server expire a client's session as if the network between them had stopped delivering (the client
     * goes through {@link #proxiedUrl()}): once its connect is held, the proxy pauses; over long-polling a message
     * ends the held connect, whose reply then waits in the proxy; over WebSocket the proxy drops the connections. The
     * session expires after {@code maxInterval}, then the proxy resumes, and the client's next connect is refused
     * with {@code 402::session_unknown}. The engine's {@code timeout} must exceed the pause.
     */
    void expireBehindProxy(String clientId) throws Exception {
        awaitConnectHeld(clientId);
        ServerSession session = engine.getSession(clientId);
        PausableProxy paused = proxy();
        paused.pause();
        try {
            if ("websocket".equals(session.getTransportName())) {
                paused.dropConnections();
            } else {
                session.deliver(publisher, "/test/nudge", Map.of("nudge", true), Promise.noop());
            }
            await("expiry of " + clientId).atMost(20, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(20))
                    .until(() -> engine.getSession(clientId) == null);
        } finally {
            paused.resume();
        }
    }

    /**
     * Loses the reply that carries a message, as a network cut would: once the session's connect is held, the proxy
     * pauses, the message is published (and its reply written into the paused proxy), and the proxy drops its
     * connections, with that reply, before it resumes.
     */
    void publishAndLoseTheReply(String clientId, String channel, Object data) throws Exception {
        awaitConnectHeld(clientId);
        ServerSession session = engine.getSession(clientId);
        PausableProxy paused = proxy();
        paused.pause();
        try {
            publish(channel, data);
            await("reply to the held connect of " + clientId).atMost(20, TimeUnit.SECONDS)
                    .pollInterval(Duration.ofMillis(10)).until(() -> !engine.isConnectHeld(session));
            paused.dropConnections();
        } finally {
            paused.resume();
        }
    }

    void awaitConnectHeld(String clientId) {
        await("held connect of " + clientId).atMost(10, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(10))
                .until(() -> {
                    ServerSession session = engine.getSession(clientId);
                    return session != null && engine.isConnectHeld(session);
                });
    }

    /** Publishes from the server's local session and waits until the message is queued for its subscribers. */
    void publish(String channel, Object data) {
        CompletableFuture<Boolean> published = new CompletableFuture<>();
        engine.createChannelIfAbsent(channel).publish(publisher, data, Promise.from((queued, failure) -> {
            if (failure != null) {
                published.completeExceptionally(failure);
            } else {
                published.complete(queued);
            }
        }));
        try {
            published.get(10, TimeUnit.SECONDS);
        } catch (Exception failure) {
            throw new AssertionError("Server-side publish to " + channel + " failed", failure);
        }
    }

    @Override
    public void close() throws Exception {
        if (proxy != null) {
            proxy.close();
        }
        jetty.stop();
    }

    /** What a test checks of a request: its method, and its headers. */
    static final class RecordedRequest {
        final String method;
        final HttpFields headers;

        RecordedRequest(String method, HttpFields headers) {
            this.method = method;
            this.headers = headers;
        }

        boolean isUpgrade() {
            return headers.contains(HttpHeader.UPGRADE);
        }

        @Override
        public String toString() {
            return method + " " + headers;
        }
    }

    /** Notes each request before the endpoint sees it. */
    private final class RequestRecorder extends Handler.Wrapper {
        RequestRecorder(Handler endpoint) {
            super(endpoint);
        }

        @Override
        public boolean handle(Request request, Response response, Callback callback) throws Exception {
            requests.add(new RecordedRequest(request.getMethod(), request.getHeaders().asImmutable()));
            return super.handle(request, response, callback);
        }
    }

    /** Answers {@code /service/echo} with {@code {"echo": <request data>}}, to the requester only. */
    static final class EchoService extends BayeuxService {
        EchoService(BayeuxServerImpl server) {
            super(server, "echo");
            addService("/service/echo", (requester, request) -> Map.of("echo", request.getData()));
        }
    }
}
