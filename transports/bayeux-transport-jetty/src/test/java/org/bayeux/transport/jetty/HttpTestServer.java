package org.bayeux.transport.jetty;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.bayeux.api.json.JsonCodec;
import org.bayeux.server.BayeuxServerImpl;
import org.bayeux.server.config.BayeuxServerConfig;
import org.bayeux.transport.http.TransportConfig;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * A real Jetty server on a loopback port chosen by the system, with the Bayeux endpoint at {@code /bayeux}, and a
 * Jetty HTTP client to talk to it.
 */
final class HttpTestServer implements AutoCloseable {
    final Server server;
    final ServerConnector connector;
    final BayeuxServerImpl engine;
    final HttpClient client;
    private final java.util.concurrent.ExecutorService senders = java.util.concurrent.Executors.newCachedThreadPool();

    HttpTestServer(String codec, Consumer<BayeuxServerConfig.Builder> engineConfig,
            Consumer<TransportConfig.Builder> transportConfig) throws Exception {
        this(codec, engineConfig, transportConfig, engine -> { });
    }

    /** As the other constructor; {@code beforeStart} sets up the engine (a session store) before it starts. */
    HttpTestServer(String codec, Consumer<BayeuxServerConfig.Builder> engineConfig,
            Consumer<TransportConfig.Builder> transportConfig, Consumer<BayeuxServerImpl> beforeStart)
            throws Exception {
        BayeuxServerConfig.Builder engineBuilder = BayeuxServerConfig.builder().codec(codec);
        engineConfig.accept(engineBuilder);
        TransportConfig.Builder transportBuilder = TransportConfig.builder();
        transportConfig.accept(transportBuilder);
        server = new Server();
        connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        connector.setIdleTimeout(60_000);
        server.addConnector(connector);
        engine = new BayeuxServerImpl(engineBuilder.build());
        beforeStart.accept(engine);
        BayeuxEndpoint.mount(server, "/bayeux", engine, transportBuilder.build());
        server.start();
        client = new HttpClient();
        client.start();
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + connector.getLocalPort() + path);
    }

    JsonCodec codec() {
        return engine.getCodec();
    }

    Request post(String path, String json) {
        return client.newRequest(uri(path)).method("POST").timeout(20, TimeUnit.SECONDS)
                .body(new StringRequestContent("application/json;charset=UTF-8", json, StandardCharsets.UTF_8));
    }

    ContentResponse send(Request request) {
        try {
            return request.send();
        } catch (Exception failure) {
            throw new AssertionError(failure);
        }
    }

    /** Sends from a test thread of its own, for requests the server is expected to hold. */
    CompletableFuture<ContentResponse> sendAsync(Request request) {
        return CompletableFuture.supplyAsync(() -> send(request), senders);
    }

    @SuppressWarnings("unchecked")
    List<Map<String, Object>> messages(ContentResponse response) {
        try {
            return (List<Map<String, Object>>) codec().parse(response.getContentAsString());
        } catch (Exception failure) {
            throw new AssertionError("Not a JSON array: " + response.getContentAsString(), failure);
        }
    }

    @Override
    public void close() throws Exception {
        stopAll();
    }

    private void stopAll() throws Exception {
        senders.shutdownNow();
        client.stop();
        server.stop();
    }
}
