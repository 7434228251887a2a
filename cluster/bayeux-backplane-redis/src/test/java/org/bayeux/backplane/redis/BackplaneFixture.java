package org.bayeux.backplane.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.bayeux.api.Message;
import org.bayeux.api.server.LocalSession;
import org.bayeux.client.BayeuxClient;
import org.bayeux.client.BayeuxClientConfig;
import org.bayeux.server.BayeuxEngine;
import org.bayeux.server.config.BayeuxServerConfig;
import org.bayeux.transport.http.TransportConfig;
import org.bayeux.transport.jetty.BayeuxEndpoint;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What the backplane's tests start, and stop after each test whatever happened: a redis-server of the test's own
 * (started when the test first asks for it), engines with a backplane (in this JVM, or behind Jetty on 127.0.0.1, port 0), clients
 * of ours, and anything else handed to {@link #closing}. Stopped in the reverse order of their start, Redis last.
 * Use it as {@code @RegisterExtension final BackplaneFixture fixture = new BackplaneFixture();}.
 */
final class BackplaneFixture implements AfterEachCallback {
    /** How long a backplane may take to connect, a client to handshake, a reply to come, by default. */
    static final Duration WAIT = Duration.ofSeconds(30);

    private final Deque<AutoCloseable> started = new ArrayDeque<>();
    private final Duration wait;
    private RedisProcess redis;

    /** Waits up to {@link #WAIT}. */
    BackplaneFixture() {
        this(WAIT);
    }

    /** @param wait how long a backplane may take to connect and a client to handshake (longer on a Redis Cluster) */
    BackplaneFixture(Duration wait) {
        this.wait = wait;
    }

    /** An engine serving Bayeux over HTTP and WebSocket at {@link #url}, with its backplane. */
    record Node(Server server, BayeuxEngine engine, RedisBackplane backplane, int port, String url) {
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        Exception first = null;
        while (!started.isEmpty()) {
            try {
                started.pop().close();
            } catch (Exception failure) {
                first = first == null ? failure : first;
            }
        }
        if (redis != null) {
            redis.close();
            redis = null;
        }
        if (first != null) {
            throw first;
        }
    }

    /** @return the test's redis-server, started on the first call */
    RedisProcess redis() {
        if (redis == null) {
            try {
                redis = RedisProcess.start();
            } catch (Exception failed) {
                throw new IllegalStateException("redis-server did not start", failed);
            }
        }
        return redis;
    }

    /**
     * @param resource something to close after the test, before what was started earlier
     * @param <T> its type
     * @return the resource
     */
    <T extends AutoCloseable> T closing(T resource) {
        started.push(resource);
        return resource;
    }

    /** @return a backplane on the test's Redis with a 2 s operation timeout (the machine may be loaded) */
    RedisBackplaneConfig.Builder config() {
        return RedisBackplaneConfig.builder().uri(redis().uri()).operationTimeout(Duration.ofSeconds(2));
    }

    /**
     * @param serverConfig the engine's configuration
     * @param backplane its cluster
     * @return an engine in this JVM, started, once its backplane is connected; stopped after the test
     */
    BayeuxEngine engine(BayeuxServerConfig serverConfig, RedisBackplane backplane) {
        BayeuxEngine engine = BayeuxEngine.create(serverConfig);
        engine.setCluster(backplane);
        engine.start();
        closing(engine::stop);
        await("backplane connected").atMost(wait).until(backplane::isConnected);
        return engine;
    }

    /** @return {@link #engine(BayeuxServerConfig, RedisBackplane)} with the default configuration */
    BayeuxEngine engine(RedisBackplane backplane) {
        return engine(BayeuxServerConfig.builder().build(), backplane);
    }

    /**
     * @param serverConfig the engine's configuration
     * @param backplane its cluster
     * @return an engine behind Jetty on 127.0.0.1 (a free port), at {@code /bayeux}, once its backplane is
     *         connected; stopped after the test
     */
    Node node(BayeuxServerConfig serverConfig, RedisBackplane backplane) throws Exception {
        return node(serverConfig, backplane, engine -> { });
    }

    /**
     * @param serverConfig the engine's configuration
     * @param backplane its cluster
     * @param beforeStart what else to set on the engine before it starts (a session store)
     * @return {@link #node(BayeuxServerConfig, RedisBackplane)}
     */
    Node node(BayeuxServerConfig serverConfig, RedisBackplane backplane, Consumer<BayeuxEngine> beforeStart)
            throws Exception {
        BayeuxEngine engine = BayeuxEngine.create(serverConfig);
        engine.setCluster(backplane);
        beforeStart.accept(engine);
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        BayeuxEndpoint.mount(server, "/bayeux", engine, TransportConfig.defaults());
        server.start();
        closing(server::stop);
        await("backplane connected").atMost(wait).until(backplane::isConnected);
        int port = connector.getLocalPort();
        return new Node(server, engine, backplane, port, "http://127.0.0.1:" + port + "/bayeux");
    }

    /**
     * @param url the server
     * @param transport {@code websocket} or {@code long-polling}
     * @param maxBackoff the longest wait between reconnection attempts (short: a client cut off comes back soon)
     * @return a client of ours, connected; disconnected and closed after the test
     */
    BayeuxClient client(String url, String transport, Duration maxBackoff) throws Exception {
        BayeuxClient client = new BayeuxClient(BayeuxClientConfig.builder(url).transports(transport)
                .backoff(Duration.ofMillis(50), maxBackoff).build());
        closing(() -> {
            client.disconnect(Duration.ofSeconds(1));
            client.close();
        });
        assertThat(client.handshake(wait)).isEqualTo(BayeuxClient.State.CONNECTED);
        return client;
    }

    /**
     * @param engine the engine
     * @param name the local session's name
     * @return a local session of that engine, handshaken
     */
    static LocalSession connected(BayeuxEngine engine, String name) throws Exception {
        LocalSession session = engine.newLocalSession(name);
        CompletableFuture<Message> reply = new CompletableFuture<>();
        session.handshake(null, (channel, message) -> reply.complete(message));
        assertThat(reply.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).isSuccessful()).isTrue();
        return session;
    }
}
