package org.bayeux.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.Message;
import org.bayeux.backplane.redis.RedisProcess;
import org.bayeux.client.BayeuxClient;
import org.bayeux.client.BayeuxClientConfig;
import org.bayeux.client.transport.ClientTransport;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /ready}: 200 while the node can take publishes, 503 naming the backplane while its redis-server (the
 * test's own) is {@code kill -9}ed, 200 again once it is back.
 */
class StandaloneReadinessTest {
    private static final Logger LOG = LoggerFactory.getLogger(StandaloneReadinessTest.class);
    private static final Duration WAIT = Duration.ofSeconds(30);
    /** How soon after Redis dies readiness must say so: the socket closes at once, so this is mostly load. */
    private static final Duration DOWN_WITHIN = Duration.ofSeconds(10);
    private static final String READY = "{\"ready\":true}";
    private static final String NOT_READY = "{\"ready\":false,\"reason\":\"backplane_unavailable\"}";

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void aSingleNodeIsReadyAndOnlyGetAndHeadAreAnswered() throws Exception {
        try (StandaloneServer server = new StandaloneServer(StandaloneOptions.parse().port(0)
                .host("127.0.0.1"))) {
            HttpResponse<String> get = send(server, "GET");
            assertThat(get.statusCode()).isEqualTo(200);
            assertThat(get.body()).isEqualTo(READY);
            assertThat(get.headers().firstValue("content-type")).hasValue("application/json");
            assertThat(get.headers().firstValue("cache-control")).hasValue("no-store");
            HttpResponse<String> head = send(server, "HEAD");
            assertThat(head.statusCode()).isEqualTo(200);
            assertThat(head.body()).isEmpty();
            assertThat(send(server, "POST").statusCode()).isEqualTo(405);
        }
    }

    @Test
    void readyWithRedisNotReadyWhileItIsKilledAndReadyAgainAfterItsRestart() throws Exception {
        try (RedisProcess redis = RedisProcess.start();
                StandaloneServer server = new StandaloneServer(StandaloneOptions.parse("--backplane",
                        redis.uri(), "--set", "operationTimeout=500ms", "--set", "timeout=5s").port(0)
                        .host("127.0.0.1"))) {
            await("ready with Redis up").atMost(WAIT).pollInterval(Duration.ofMillis(50))
                    .until(() -> send(server, "GET").statusCode() == 200);
            assertThat(send(server, "GET").body()).isEqualTo(READY);
            BayeuxClient client = new BayeuxClient(BayeuxClientConfig.builder("http://127.0.0.1:" + server.getPort()
                    + "/bayeux").transports(ClientTransport.LONG_POLLING).build());
            try {
                assertThat(client.handshake(WAIT)).isEqualTo(BayeuxClient.State.CONNECTED);
                assertThat(publish(client).isSuccessful()).as("ready means publishes are taken").isTrue();

                long killed = System.nanoTime();
                redis.kill();
                await("503 after Redis was killed").atMost(DOWN_WITHIN).pollInterval(Duration.ofMillis(20))
                        .until(() -> send(server, "GET").statusCode() == 503);
                LOG.info("readiness said 503 {} ms after kill -9", (System.nanoTime() - killed) / 1_000_000);
                assertThat(send(server, "GET").body()).isEqualTo(NOT_READY);
                Message refused = publish(client);
                assertThat(refused.isSuccessful()).isFalse();
                assertThat(refused.get(Message.ERROR_FIELD)).isEqualTo("503::backplane_unavailable");
                assertThat(send(server, "GET").statusCode()).as("still down while Redis is").isEqualTo(503);

                redis.restart();
                await("ready again after Redis restarted").atMost(WAIT).pollInterval(Duration.ofMillis(50))
                        .until(() -> send(server, "GET").statusCode() == 200);
                assertThat(send(server, "GET").body()).isEqualTo(READY);
                await("publishes taken again").atMost(WAIT).pollInterval(Duration.ofMillis(100))
                        .until(() -> publish(client).isSuccessful());
            } finally {
                client.close();
            }
        }
    }

    private HttpResponse<String> send(StandaloneServer server, String method) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.getPort()
                + Readiness.PATH)).method(method, HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(10))
                .build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private static Message publish(BayeuxClient client) throws Exception {
        return client.getChannel("/chat/room").publishAsync("hello").get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }
}
