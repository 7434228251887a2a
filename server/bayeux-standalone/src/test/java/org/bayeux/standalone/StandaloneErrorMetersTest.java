package org.bayeux.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.eclipse.jetty.util.ajax.JSON;
import org.junit.jupiter.api.Test;

/**
 * Issue 31's finding: one request without a handshake, carrying 64 invalid channel names, filled the table of error
 * meters (one meter per distinct error string, and each name made one), so that later errors, a {@code 402}, showed as
 * {@code other}. Error meters are keyed by code and reason token only, the engine's own tokens registered from the
 * start: nothing a client sends becomes a meter.
 */
class StandaloneErrorMetersTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void invalidChannelNamesCannotBlindTheErrorMeters() throws Exception {
        try (StandaloneServer server = new StandaloneServer(StandaloneOptions.parse().port(0).host("127.0.0.1"))) {
            String base = "http://127.0.0.1:" + server.getPort();
            StringBuilder flood = new StringBuilder("[");
            for (int i = 0; i < 64; i++) {
                flood.append(i == 0 ? "" : ",").append("{\"channel\":\"no-slash-").append(i)
                        .append("\",\"data\":1,\"id\":\"").append(i).append("\"}");
            }
            Object[] refused = post(base, flood.append("]").toString());
            assertThat(refused).hasSize(64);
            assertThat(((Map<?, ?>) refused[0]).get("error")).isEqualTo("405:no-slash-0:channel_invalid");

            Object[] unknown = post(base, "[{\"channel\":\"/room/a\",\"data\":1,\"clientId\":\"nobody\",\"id\":\"x\"}]");
            assertThat(((Map<?, ?>) unknown[0]).get("error")).isEqualTo("402::session_unknown");

            String metrics = get(base + "/metrics");
            List<String> errorLines = metrics.lines().filter(line -> line.startsWith("bayeux_errors_total{")).toList();
            assertThat(errorLines).as("every error meter").noneMatch(line -> line.contains("no-slash"));
            assertThat(errorLines).contains("bayeux_errors_total{code=\"405\",reason=\"channel_invalid\"} 64.0",
                    "bayeux_errors_total{code=\"402\",reason=\"session_unknown\"} 1.0");
            assertThat(errorLines).as("the engine's own errors, registered before they happen").contains(
                    "bayeux_errors_total{code=\"503\",reason=\"draining\"} 0.0",
                    "bayeux_errors_total{code=\"403\",reason=\"publish_denied\"} 0.0");
            assertThat(errorLines).noneMatch(line -> line.contains("reason=\"other\"") && !line.endsWith(" 0.0"));
        }
    }

    private Object[] post(String base, String batch) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(base + "/bayeux"))
                .header("Content-Type", "application/json").timeout(WAIT)
                .POST(HttpRequest.BodyPublishers.ofString(batch)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        return (Object[]) new JSON().fromJSON(response.body());
    }

    private String get(String url) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(WAIT).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        return response.body();
    }
}
