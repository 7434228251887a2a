package org.bayeux.interop;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;

import org.bayeux.api.Promise;
import org.bayeux.api.server.LocalSession;
import org.bayeux.api.server.ServerChannel;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.api.server.SessionListener;
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
 * Our server as a third-party client meets it: a real Jetty on 127.0.0.1 with a port chosen by the system, the
 * Bayeux endpoint at {@code /bayeux}, an echo service on {@code /service/echo}, and a local session for publishing
 * from the server side. Optionally fronted by a {@link PausableProxy}.
 */
final class InteropServer implements AutoCloseable {
    /** The engine settings every interop test starts from; short, so that the suite stays fast. */
    static final Duration TIMEOUT = Duration.ofSeconds(5);

    final BayeuxServerImpl engine;
    /** Ended sessions: id to whether they expired (true) or were disconnected (false). */
    private final Map<String, Boolean> removed = new ConcurrentHashMap<>();
    private final Server jetty;
    private final ServerConnector connector;
    private final LocalSession publisher;
    private PausableProxy proxy;

    /**
     * @param codec "jackson" or "jetty"
     * @param engineConfig changes to the engine configuration
     * @throws Exception if Jetty cannot start
     */
    InteropServer(String codec, Consumer<BayeuxServerConfig.Builder> engineConfig) throws Exception {
        this(codec, engineConfig, TransportConfig.defaults());
    }

    /**
     * @param codec "jackson" or "jetty"
     * @param engineConfig changes to the engine configuration
     * @param transportConfig the transport configuration
     * @throws Exception if Jetty cannot start
     */
    InteropServer(String codec, Consumer<BayeuxServerConfig.Builder> engineConfig, TransportConfig transportConfig)
            throws Exception {
        BayeuxServerConfig.Builder builder = BayeuxServerConfig.builder().codec(codec).timeout(TIMEOUT);
        engineConfig.accept(builder);
        engine = new BayeuxServerImpl(builder.build());
        engine.addSessionListener(new SessionListener() {
            @Override
            public void sessionRemoved(ServerSession session, ServerMessage message, boolean expired) {
                removed.put(session.getId(), expired);
            }
        });
        jetty = new Server();
        connector = new ServerConnector(jetty);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        connector.setIdleTimeout(60_000);
        jetty.addConnector(connector);
        BayeuxEndpoint.mount(jetty, "/bayeux", engine, transportConfig);
        jetty.start();
        new EchoService(engine);
        publisher = engine.newLocalSession("interop");
        publisher.handshake();
    }

    /**
     * Delivery only in connect replies, so that a client's own publishes, each sent after the previous reply, come
     * back in order: a scenario can then take a last message as proof that nothing before it is still on its way.
     * (Piggy-backed deliveries may overtake each other; see docs/interoperability.md.)
     *
     * @param builder the engine configuration
     */
    static void inOrder(BayeuxServerConfig.Builder builder) {
        builder.metaConnectDeliveryOnly(true);
    }

    /**
     * The settings of the expiry scenarios: sessions expire 2 s after their last connect (swept every 100 ms), and
     * connects are held long enough that no client's own request timeout runs out while the proxy is paused.
     *
     * @param builder the engine configuration
     */
    static void expiringQuickly(BayeuxServerConfig.Builder builder) {
        builder.timeout(Duration.ofSeconds(20)).maxInterval(Duration.ofSeconds(2)).sweepPeriod(Duration.ofMillis(100));
    }

    /**
     * @param codec "jackson" or "jetty"
     * @throws Exception if Jetty cannot start
     */
    InteropServer(String codec) throws Exception {
        this(codec, builder -> {
        });
    }

    /** @return the endpoint URL, straight to the server */
    String url() {
        return "http://127.0.0.1:" + connector.getLocalPort() + "/bayeux";
    }

    /**
     * @return the endpoint URL through a {@link PausableProxy}, started on first use
     * @throws Exception if the proxy cannot bind
     */
    String proxiedUrl() throws Exception {
        return "http://127.0.0.1:" + proxy().port() + "/bayeux";
    }

    /**
     * @return the proxy in front of the server, started on first use
     * @throws Exception if the proxy cannot bind
     */
    PausableProxy proxy() throws Exception {
        if (proxy == null) {
            proxy = new PausableProxy(connector.getLocalPort());
        }
        return proxy;
    }

    /** @return the sessions of remote clients (not the server's own local sessions) */
    List<ServerSession> remoteSessions() {
        return engine.getSessions().stream().filter(session -> !session.isLocalSession()).collect(Collectors.toList());
    }

    /**
     * @param channel a channel name
     * @return the remote sessions subscribed to it now
     */
    List<ServerSession> subscribers(String channel) {
        ServerChannel serverChannel = engine.getChannel(channel);
        if (serverChannel == null) {
            return List.of();
        }
        return serverChannel.getSubscribers().stream().filter(session -> !session.isLocalSession())
                .collect(Collectors.toList());
    }

    /**
     * Waits until the channel has the given number of remote subscribers: how a test knows that a client in
     * another process is ready to receive.
     *
     * @param channel a channel name
     * @param count the number of subscribers wanted
     */
    void awaitSubscribers(String channel, int count) {
        // A Faye receiver over WebSocket subscribes only once it has moved to WebSocket, which may take up to 30 s
        // of held connects on a loaded machine (lib/faye.mjs): the bound covers that, and the scenario's own 45 s.
        await("" + count + " subscriber(s) on " + channel).atMost(45, TimeUnit.SECONDS)
                .pollInterval(Duration.ofMillis(20)).until(() -> subscribers(channel).size() >= count);
    }

    /**
     * Waits until a session has ended.
     *
     * @param sessionId the session's id
     * @return true if it expired, false if it was disconnected
     */
    boolean awaitRemoved(String sessionId) {
        await("end of session " + sessionId).atMost(20, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(20))
                .until(() -> removed.containsKey(sessionId));
        return removed.get(sessionId);
    }

    /**
     * Makes the server expire a client's session as if the network between them had stopped delivering: the
     * client reaches the server through {@link #proxiedUrl()}; once its connect is held, the proxy is paused and
     * the held connect ended, the session expires after {@code maxInterval}, and the proxy resumes. The client then
     * sees its next connect refused with {@code 402::session_unknown} and {@code reconnect:"handshake"}.
     *
     * <p>Over long-polling a message ends the held connect (its reply stays in the paused proxy, and the client's
     * request stays open, as on a network that delays). Over WebSocket, where a message is pushed without ending
     * the held connect, the proxy drops the connections instead; the client's attempts to open new ones wait until
     * the proxy resumes.</p>
     *
     * <p>The engine's {@code timeout} must leave the client's own request timeout (timeout plus a network delay,
     * 1.2 × timeout for Faye) longer than the pause, which lasts {@code maxInterval} plus a sweep.</p>
     *
     * @param session the session to expire
     * @throws Exception if the proxy cannot start
     */
    void expireBehindProxy(ServerSession session) throws Exception {
        await("held connect of " + session.getId()).atMost(20, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(10))
                .until(() -> engine.isConnectHeld(session));
        PausableProxy paused = proxy();
        paused.pause();
        try {
            if ("websocket".equals(session.getTransportName())) {
                paused.dropConnections();
            } else {
                session.deliver(publisher, "/interop/nudge", Map.of("nudge", true), Promise.noop());
            }
            if (!awaitRemoved(session.getId())) {
                throw new AssertionError("Session " + session.getId() + " was disconnected, not expired");
            }
        } finally {
            paused.resume();
        }
    }

    /**
     * Loses the reply that carries a message, as a network cut would: once the session's connect is held, the proxy
     * is paused, the message is published (and written, in the held connect's reply, into the paused proxy), and
     * the proxy drops its connections with that reply before resuming. Without the {@code ack} extension the
     * message is lost; with it, the client's next connect acknowledges less than was sent and gets it again.
     *
     * @param session the receiving session, whose client goes through {@link #proxiedUrl()}
     * @param channel the channel it is subscribed to
     * @param data the message
     * @throws Exception if the proxy cannot start
     */
    void publishAndLoseTheReply(ServerSession session, String channel, Object data) throws Exception {
        await("held connect of " + session.getId()).atMost(20, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(10))
                .until(() -> engine.isConnectHeld(session));
        PausableProxy paused = proxy();
        paused.pause();
        try {
            publish(channel, data);
            await("reply to the held connect of " + session.getId()).atMost(20, TimeUnit.SECONDS)
                    .pollInterval(Duration.ofMillis(10)).until(() -> !engine.isConnectHeld(session));
            paused.dropConnections();
        } finally {
            paused.resume();
        }
    }

    /**
     * Waits for the one remote session subscribed to a channel, other than a given one.
     *
     * @param channel the channel
     * @param otherThan a session id to ignore, or null
     * @return the session
     */
    ServerSession awaitSubscriber(String channel, String otherThan) {
        return await("a new subscriber on " + channel).atMost(20, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(20))
                .until(() -> subscribers(channel).stream().filter(s -> !s.getId().equals(otherThan)).findFirst(),
                        Optional::isPresent)
                .orElseThrow();
    }

    /**
     * Publishes from the server's local session.
     *
     * @param channel the channel
     * @param data the payload
     */
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
    public void close() {
        try {
            if (proxy != null) {
                proxy.close();
            }
            jetty.stop();
        } catch (Exception failure) {
            throw new IllegalStateException("Cannot stop the server", failure);
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
