package org.bayeux.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.lang.management.ManagementFactory;
import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.management.ObjectName;

import org.bayeux.client.BayeuxClient;
import org.bayeux.client.BayeuxClientConfig;
import org.bayeux.client.transport.ClientTransport;
import org.eclipse.jetty.util.ajax.JSON;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /metrics} scraped as Prometheus text after real traffic (raw HTTP long polling, whose every byte the test
 * counts, and our Java client over WebSocket): counters equal to what the test sent and received.
 */
class StandaloneMetricsTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    /** A sample line of the Prometheus text format: name, optional labels, value (no timestamps from Micrometer). */
    private static final Pattern SAMPLE = Pattern.compile(
            "([a-zA-Z_:][a-zA-Z0-9_:]*(?:\\{(?:[a-zA-Z_][a-zA-Z0-9_]*=\"(?:[^\"\\\\]|\\\\.)*\",?)*\\})?) "
                    + "(-?[0-9.]+(?:[eE][-+]?[0-9]+)?|NaN|[+-]Inf)");

    private final HttpClient http = HttpClient.newBuilder().cookieHandler(new CookieManager())
            .connectTimeout(Duration.ofSeconds(5)).build();
    private long bytesSent;
    private long bytesReceived;
    private int messagesReceived;

    @Test
    void countersMatchTheTrafficSent() throws Exception {
        try (StandaloneServer server = new StandaloneServer(StandaloneOptions.parse().port(0)
                .host("127.0.0.1"))) {
            String base = "http://127.0.0.1:" + server.getPort();
            Object[] handshake = bayeux(base, "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                    + "\"supportedConnectionTypes\":[\"long-polling\"],\"id\":\"1\"}]");
            String clientId = (String) ((Map<?, ?>) handshake[0]).get("clientId");
            assertThat(clientId).isNotNull();
            bayeux(base, "[{\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\",\"clientId\":\""
                    + clientId + "\",\"id\":\"2\",\"advice\":{\"timeout\":0}}]");
            bayeux(base, "[{\"channel\":\"/meta/subscribe\",\"subscription\":\"/room/a\",\"clientId\":\"" + clientId
                    + "\",\"id\":\"3\"}]");
            StringBuilder publishes = new StringBuilder("[");
            for (int i = 0; i < 5; i++) {
                publishes.append(i == 0 ? "" : ",").append("{\"channel\":\"/room/a\",\"data\":\"m").append(i)
                        .append("\",\"clientId\":\"").append(clientId).append("\",\"id\":\"").append(10 + i)
                        .append("\"}");
            }
            bayeux(base, publishes.append("]").toString());
            // A channel name over maxChannelNameLength (512): refused by a limit, with its Bayeux error.
            Object[] refused = bayeux(base, "[{\"channel\":\"/" + "x".repeat(600) + "\",\"data\":1,\"clientId\":\""
                    + clientId + "\",\"id\":\"20\"}]");
            assertThat(((Map<?, ?>) refused[0]).get("error")).isEqualTo("405::channel_length_limit");

            Map<String, Double> metrics = scrape(base + "/metrics");
            assertThat(metrics.get("bayeux_handshakes_total{result=\"accepted\"}")).isEqualTo(1.0);
            assertThat(metrics.get("bayeux_handshakes_total{result=\"refused\"}")).isEqualTo(0.0);
            assertThat(metrics.get("bayeux_batches_received_total")).isEqualTo(5.0);
            assertThat(metrics.get("bayeux_messages_received_total")).isEqualTo(9.0);
            assertThat(metrics.get("bayeux_received_bytes_total")).isEqualTo((double) bytesSent);
            assertThat(metrics.get("bayeux_batches_sent_total")).isEqualTo(5.0);
            assertThat(metrics.get("bayeux_messages_sent_total")).isEqualTo((double) messagesReceived);
            assertThat(metrics.get("bayeux_sent_bytes_total")).isEqualTo((double) bytesReceived);
            assertThat(metrics.get("bayeux_publishes_total")).isEqualTo(5.0);
            assertThat(metrics.get("bayeux_deliveries_total")).as("the publisher is its own subscriber").isEqualTo(5.0);
            assertThat(metrics.get("bayeux_errors_total{code=\"405\",reason=\"channel_length_limit\"}"))
                    .isEqualTo(1.0);
            assertThat(metrics.get("bayeux_limit_refusals_total{limit=\"channel_length_limit\"}")).isEqualTo(1.0);
            assertThat(metrics.get("bayeux_sessions{transport=\"long-polling\"}")).isEqualTo(1.0);
            assertThat(metrics.get("bayeux_subscriptions")).isEqualTo(1.0);
            assertThat(metrics.get("bayeux_channels")).isGreaterThanOrEqualTo(1.0);
            assertThat(metrics.get("bayeux_connects_held")).isEqualTo(0.0);
            assertThat(metrics).containsKeys("bayeux_delivery_latency_seconds_count", "bayeux_queue_bytes",
                    "bayeux_queue_depth_sessions{depth=\"0\"}", "bayeux_messages_dropped_total{reason=\"max_queue\"}",
                    "bayeux_connections_closed_total{reason=\"header_timeout\"}", "jvm_threads_live_threads",
                    "jetty_threads_busy", "jetty_threads_config_max");
            assertThat(ManagementFactory.getPlatformMBeanServer().queryNames(new ObjectName(
                    "org.bayeux:name=bayeuxHandshakes*,*"), null)).as("JMX beans in the org.bayeux domain").isNotEmpty();

            // Our Java client over WebSocket: counted as a WebSocket connection and a WebSocket session.
            BayeuxClient client = new BayeuxClient(BayeuxClientConfig.builder(base + "/bayeux")
                    .transports(ClientTransport.WEBSOCKET).build());
            try {
                assertThat(client.handshake(WAIT)).isEqualTo(BayeuxClient.State.CONNECTED);
                await("the WebSocket session's connect held").atMost(WAIT).pollInterval(Duration.ofMillis(50))
                        .until(() -> scrape(base + "/metrics").get("bayeux_connects_held") == 1.0);
                Map<String, Double> withSocket = scrape(base + "/metrics");
                assertThat(withSocket.get("bayeux_websocket_connections")).isEqualTo(1.0);
                assertThat(withSocket.get("bayeux_sessions{transport=\"websocket\"}")).isEqualTo(1.0);
                assertThat(withSocket.get("bayeux_handshakes_total{result=\"accepted\"}")).isEqualTo(2.0);
            } finally {
                client.close();
            }
            await("the WebSocket closed").atMost(WAIT).pollInterval(Duration.ofMillis(50))
                    .until(() -> scrape(base + "/metrics").get("bayeux_websocket_connections") == 0.0);
        }
    }

    @Test
    void metricsCanBeSwitchedOffOrMovedToTheAdminPort() throws Exception {
        try (StandaloneServer server = new StandaloneServer(StandaloneOptions.parse("--set",
                "metrics.enabled=false").port(0).host("127.0.0.1"))) {
            assertThat(server.getMetrics()).isNull();
            assertThat(get("http://127.0.0.1:" + server.getPort() + "/metrics").statusCode()).isEqualTo(404);
        }
        try (StandaloneServer server = new StandaloneServer(StandaloneOptions.parse("--set", "admin.port=0",
                "--set", "metrics.jmx=false").port(0).host("127.0.0.1"))) {
            assertThat(server.getAdminPort()).isPositive().isNotEqualTo(server.getPort());
            String admin = "http://127.0.0.1:" + server.getAdminPort();
            assertThat(scrape(admin + "/metrics")).containsKey("bayeux_channels");
            assertThat(get(admin + "/health/ready").statusCode()).isEqualTo(200);
            assertThat(get(admin + "/bayeux").statusCode()).as("the admin port serves no Bayeux").isEqualTo(404);
            assertThat(get("http://127.0.0.1:" + server.getPort() + "/metrics").statusCode()).isEqualTo(404);
        }
    }

    @Test
    void aBadKeyValueIsRefusedWithItsName() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> StandaloneOptions.parse("--set",
                "admin.port=70000")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(
                "admin.port=70000");
    }

    /** Posts a batch, counting the bytes both ways and the messages received. */
    private Object[] bayeux(String base, String batch) throws Exception {
        byte[] body = batch.getBytes(StandardCharsets.UTF_8);
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(base + "/bayeux"))
                .header("Content-Type", "application/json").timeout(WAIT)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        bytesSent += body.length;
        bytesReceived += response.body().getBytes(StandardCharsets.UTF_8).length;
        Object[] messages = (Object[]) new JSON().fromJSON(response.body());
        messagesReceived += messages.length;
        return messages;
    }

    private HttpResponse<String> get(String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(WAIT).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** Scrapes and parses: every line a comment or a well-formed sample; each series once. */
    private Map<String, Double> scrape(String url) throws Exception {
        HttpResponse<String> response = get(url);
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("content-type")).hasValueSatisfying(type -> assertThat(type)
                .startsWith("text/plain; version=0.0.4"));
        Map<String, Double> samples = new LinkedHashMap<>();
        for (String line : response.body().split("\n")) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            Matcher sample = SAMPLE.matcher(line);
            assertThat(sample.matches()).as("a Prometheus sample line: %s", line).isTrue();
            Double value = sample.group(2).endsWith("Inf") ? Double.POSITIVE_INFINITY
                    : Double.parseDouble(sample.group(2));
            assertThat(samples.put(sample.group(1), value)).as("series %s once", sample.group(1)).isNull();
        }
        return samples;
    }
}
