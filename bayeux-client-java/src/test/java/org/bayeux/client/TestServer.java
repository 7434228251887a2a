package org.bayeux.client;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
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
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

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
    private Server jetty;
    private int port;
    private volatile BayeuxServerImpl engine;
    private LocalSession publisher;
    private PausableProxy proxy;

    /**
     * @param engineConfig changes to the engine configuration (the hold is {@link #TIMEOUT} unless changed)
     * @param transportConfig changes to the transport configuration
     * @param engineSetup what to add to each new engine (extensions, services), at each start
     */
    TestServer(Consumer<BayeuxServerConfig.Builder> engineConfig, Consumer<TransportConfig.Builder> transportConfig,
            Consumer<BayeuxServerImpl> engineSetup) throws Exception {
        this.engineConfig = engineConfig;
        this.transportConfig = transportConfig;
        this.engineSetup = engineSetup;
        start(0);
    }

    TestServer() throws Exception {
        this(engine -> { }, transport -> { }, engine -> { });
    }

    private void start(int wantedPort) throws Exception {
        BayeuxServerConfig.Builder engineBuilder = BayeuxServerConfig.builder().timeout(TIMEOUT);
        engineConfig.accept(engineBuilder);
        TransportConfig.Builder transportBuilder = TransportConfig.builder();
        transportConfig.accept(transportBuilder);
        BayeuxServerImpl newEngine = new BayeuxServerImpl(engineBuilder.build());
        jetty = new Server();
        ServerConnector connector = new ServerConnector(jetty);
        connector.setHost("127.0.0.1");
        connector.setPort(wantedPort);
        connector.setIdleTimeout(60_000);
        jetty.addConnector(connector);
        BayeuxEndpoint.mount(jetty, "/bayeux", newEngine, transportBuilder.build());
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
        jetty.stop();
        start(port);
    }

    /** Stops the server, without starting it again. */
    void stop() throws Exception {
        jetty.stop();
    }

    BayeuxServerImpl engine() {
        return engine;
    }

    String url() {
        return "http://127.0.0.1:" + port + "/bayeux";
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

    /** Answers {@code /service/echo} with {@code {"echo": <request data>}}, to the requester only. */
    static final class EchoService extends BayeuxService {
        EchoService(BayeuxServerImpl server) {
            super(server, "echo");
            addService("/service/echo", (requester, request) -> Map.of("echo", request.getData()));
        }
    }
}
