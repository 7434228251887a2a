package org.bayeux.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.bayeux.server.cluster.Cluster;
import org.bayeux.server.cluster.ClusterMessage;
import org.bayeux.server.cluster.ClusterNode;
import org.junit.jupiter.api.Test;

/**
 * {@code /health/live} and {@code /health/ready} (and {@code /ready}, its alias) on a real server: not ready while it
 * starts, ready once started, not ready while a fake cluster says it cannot take publishes nor once shutting down.
 */
class StandaloneHealthTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String READY = "{\"ready\":true}";

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void notReadyWhileStartingReadyOnceStartedNotReadyWhenShuttingDown() throws Exception {
        StandaloneOptions options = StandaloneOptions.parse().port(0).host("127.0.0.1");
        List<HttpResponse<String>> duringStart = new ArrayList<>();
        // Jetty serves by now, but the server has not finished starting: what a load balancer sees then.
        options.beforeReady = port -> {
            try {
                duringStart.add(get(port, Readiness.READY_PATH));
                duringStart.add(get(port, Readiness.PATH));
                duringStart.add(get(port, Readiness.LIVE_PATH));
            } catch (Exception failure) {
                throw new IllegalStateException(failure);
            }
        };
        try (StandaloneServer server = new StandaloneServer(options)) {
            assertThat(duringStart).hasSize(3);
            assertThat(duringStart.get(0).statusCode()).isEqualTo(503);
            assertThat(duringStart.get(0).body()).isEqualTo("{\"ready\":false,\"reason\":\"starting\"}");
            assertThat(duringStart.get(1).statusCode()).as("/ready, the alias").isEqualTo(503);
            assertThat(duringStart.get(2).statusCode()).as("alive while starting").isEqualTo(200);
            assertThat(duringStart.get(2).body()).isEqualTo("{\"live\":true}");

            int port = server.getPort();
            HttpResponse<String> ready = get(port, Readiness.READY_PATH);
            assertThat(ready.statusCode()).isEqualTo(200);
            assertThat(ready.body()).isEqualTo(READY);
            assertThat(ready.headers().firstValue("content-type")).hasValue("application/json");
            assertThat(get(port, Readiness.PATH).body()).isEqualTo(READY);

            server.shuttingDown();
            HttpResponse<String> stopping = get(port, Readiness.READY_PATH);
            assertThat(stopping.statusCode()).isEqualTo(503);
            assertThat(stopping.body()).isEqualTo("{\"ready\":false,\"reason\":\"shutting_down\"}");
            assertThat(get(port, Readiness.PATH).statusCode()).isEqualTo(503);
            assertThat(get(port, Readiness.LIVE_PATH).statusCode()).as("alive while shutting down").isEqualTo(200);
        }
    }

    @Test
    void notReadyWhileTheClusterIsUnavailable() throws Exception {
        FakeCluster cluster = new FakeCluster();
        StandaloneOptions options = StandaloneOptions.parse().port(0).host("127.0.0.1");
        options.testCluster = cluster;
        try (StandaloneServer server = new StandaloneServer(options)) {
            int port = server.getPort();
            assertThat(cluster.started).isTrue();
            assertThat(get(port, Readiness.READY_PATH).statusCode()).isEqualTo(200);

            cluster.available = false;
            HttpResponse<String> outage = get(port, Readiness.READY_PATH);
            assertThat(outage.statusCode()).isEqualTo(503);
            assertThat(outage.body()).isEqualTo("{\"ready\":false,\"reason\":\"cluster_unavailable\"}");
            assertThat(get(port, Readiness.PATH).body()).isEqualTo(outage.body());
            assertThat(get(port, Readiness.LIVE_PATH).statusCode()).as("alive through an outage").isEqualTo(200);

            cluster.available = true;
            assertThat(get(port, Readiness.READY_PATH).statusCode()).isEqualTo(200);
        }
    }

    private HttpResponse<String> get(int port, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(WAIT).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** A cluster whose availability the test sets: a backplane whose store is in or out of reach. */
    private static final class FakeCluster implements Cluster {
        volatile boolean available = true;
        volatile boolean started;

        @Override
        public void start(ClusterNode node) {
            started = true;
        }

        @Override
        public void stop() {
            started = false;
        }

        @Override
        public CompletionStage<Boolean> publish(ClusterMessage message) {
            return CompletableFuture.completedFuture(available);
        }

        @Override
        public boolean isAvailable() {
            return available;
        }
    }
}
