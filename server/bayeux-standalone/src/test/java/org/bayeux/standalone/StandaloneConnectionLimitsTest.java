package org.bayeux.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.awaitility.Awaitility;
import org.bayeux.client.BayeuxClient;
import org.bayeux.client.BayeuxClientConfig;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.StringRequestContent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Connection-level defences of the standalone server, with raw sockets playing the hostile client: idle sockets,
 * dribbled headers and bodies closed on time, the connection limit, and what must not be closed (a held long poll,
 * a WebSocket).
 */
class StandaloneConnectionLimitsTest {
    private static final int HEADER_TIMEOUT_MS = 500;
    /** The guard sweeps a few times per timeout; a close comes within the timeout plus this. */
    private static final int SLACK_MS = 2_000;

    private final ScheduledExecutorService dribbler = Executors.newSingleThreadScheduledExecutor();
    private final HttpClient http = new HttpClient();
    private StandaloneServer server;

    @BeforeEach
    void startClient() throws Exception {
        http.start();
    }

    @AfterEach
    void stopAll() throws Exception {
        dribbler.shutdownNow();
        http.stop();
        if (server != null) {
            server.close();
        }
    }

    private void start(String... args) throws Exception {
        server = new StandaloneServer(StandaloneOptions.parse(args).port(0).host("127.0.0.1"));
    }

    private static long millisSince(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    /** Writes one byte of the text every 100 ms, until it is all written or the connection fails. */
    private ScheduledFuture<?> dribble(RawConnection connection, String text) {
        AtomicInteger next = new AtomicInteger();
        return dribbler.scheduleAtFixedRate(() -> {
            int at = next.getAndIncrement();
            if (at >= text.length()) {
                throw new IllegalStateException("all written"); // ends the schedule
            }
            try {
                connection.write(text.substring(at, at + 1));
            } catch (IOException closed) {
                throw new IllegalStateException("closed", closed); // ends the schedule
            }
        }, 0, 100, TimeUnit.MILLISECONDS);
    }

    @Test
    void anIdleTcpSocketIsClosedOnTime() throws Exception {
        start("--header-timeout", HEADER_TIMEOUT_MS + "ms");
        try (RawConnection idle = new RawConnection(server.getPort())) {
            long start = System.nanoTime();
            assertThat(idle.awaitClosedByServer(HEADER_TIMEOUT_MS + SLACK_MS)).isTrue();
            assertThat(millisSince(start)).isGreaterThanOrEqualTo(HEADER_TIMEOUT_MS - 50);
        }
        assertThat(server.getHeaderTimeouts()).isEqualTo(1);
    }

    @Test
    void aHeaderDribbledAByteAtATimeIsClosedOnTime() throws Exception {
        start("--header-timeout", HEADER_TIMEOUT_MS + "ms");
        try (RawConnection slow = new RawConnection(server.getPort())) {
            long start = System.nanoTime();
            // Each byte restarts Jetty's idle timeout; the header timeout counts from the connection's opening.
            dribble(slow, "GET /bayeux HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + "x".repeat(200) + "\r\n\r\n");
            assertThat(slow.awaitClosedByServer(HEADER_TIMEOUT_MS + SLACK_MS)).isTrue();
            assertThat(millisSince(start)).isGreaterThanOrEqualTo(HEADER_TIMEOUT_MS - 50);
        }
        assertThat(server.getHeaderTimeouts()).isEqualTo(1);
    }

    @Test
    void aKeepAliveConnectionLeftIdleAfterARequestNothingHandlesIsClosedOnTime() throws Exception {
        start("--header-timeout", HEADER_TIMEOUT_MS + "ms");
        try (RawConnection idle = new RawConnection(server.getPort())) {
            idle.write("GET /nothing-here HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
            assertThat(idle.readHead(10_000)).startsWith("HTTP/1.1 404");
            long start = System.nanoTime();
            assertThat(idle.awaitClosedByServer(HEADER_TIMEOUT_MS + SLACK_MS)).isTrue();
            assertThat(millisSince(start)).isGreaterThanOrEqualTo(HEADER_TIMEOUT_MS - 100);
        }
        assertThat(server.getHeaderTimeouts()).isEqualTo(1);
    }

    @Test
    void aBodyBelowTheMinimumRateIsClosed() throws Exception {
        start("--header-timeout", HEADER_TIMEOUT_MS + "ms", "--min-data-rate", "1000");
        try (RawConnection slow = new RawConnection(server.getPort())) {
            slow.write("POST /bayeux HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 100000\r\n\r\n[");
            long start = System.nanoTime();
            dribble(slow, "{\"channel\":\"/meta/handshake\"" + " ".repeat(500));
            assertThat(slow.awaitClosedByServer(HEADER_TIMEOUT_MS + SLACK_MS)).isTrue();
            assertThat(millisSince(start)).isGreaterThanOrEqualTo(HEADER_TIMEOUT_MS - 50);
        }
        assertThat(server.getSlowRequestBodies()).isEqualTo(1);
        assertThat(server.getHeaderTimeouts()).isZero();
    }

    @Test
    void aHeldLongPollAndAWebSocketOutliveTheHeaderTimeout() throws Exception {
        start("--header-timeout", HEADER_TIMEOUT_MS + "ms", "--set", "timeout=2s");
        String base = server.getBaseUrl() + "/bayeux";
        try (BayeuxClient webSocket = new BayeuxClient(BayeuxClientConfig.builder(base).transports("websocket")
                .build())) {
            assertThat(webSocket.handshake(Duration.ofSeconds(10))).isEqualTo(BayeuxClient.State.CONNECTED);
            String handshake = post(base, "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                    + "\"supportedConnectionTypes\":[\"long-polling\"]}]").getContentAsString();
            String clientId = handshake.replaceAll("(?s).*\"clientId\":\"([^\"]+)\".*", "$1");
            String connect = "[{\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\",\"clientId\":\""
                    + clientId + "\"}]";
            post(base, connect);
            long start = System.nanoTime();

            ContentResponse held = post(base, connect);

            assertThat(millisSince(start)).as("held for the engine's timeout").isGreaterThanOrEqualTo(1_500);
            assertThat(held.getStatus()).isEqualTo(200);
            assertThat(held.getContentAsString()).contains("\"successful\":true");
            assertThat(held.getHeaders().get("Server")).isNull();
            // Four header timeouts later, the WebSocket still carries its session.
            assertThat(webSocket.getState()).isEqualTo(BayeuxClient.State.CONNECTED);
            assertThat(webSocket.getTransportName()).isEqualTo("websocket");
        }
    }

    private ContentResponse post(String url, String json) throws Exception {
        return http.newRequest(url).method("POST").timeout(10, TimeUnit.SECONDS)
                .body(new StringRequestContent("application/json", json)).send();
    }

    @Test
    void connectionsOverTheLimitWaitUntilOneCloses() throws Exception {
        start("--max-connections", "2", "--header-timeout", "20s");
        try (RawConnection first = new RawConnection(server.getPort());
             RawConnection second = new RawConnection(server.getPort())) {
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> server.getNetworkConnectionCount() == 2);
            assertThat(server.getConnectionLimitReached()).isEqualTo(1);
            try (RawConnection third = new RawConnection(server.getPort())) {
                third.write("GET /bayeux HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
                assertThat(third.readHead(1_000)).as("not accepted while at the limit").isNull();

                first.close();

                String head = third.readHead(10_000);
                assertThat(head).as("accepted once a connection closed").startsWith("HTTP/1.1 ");
            }
        }
    }

    /**
     * Issue 31's finding: the {@code admin.port} connector was outside the connection guard, so an idle or dribbling
     * socket held it for Jetty's idle timeout (30 s), and any number of them could be opened.
     */
    @Test
    void theAdminPortIsGuardedLikeTheMainPort() throws Exception {
        start("--header-timeout", HEADER_TIMEOUT_MS + "ms", "--set", "admin.port=0");
        try (RawConnection idle = new RawConnection(server.getAdminPort())) {
            long start = System.nanoTime();
            assertThat(idle.awaitClosedByServer(HEADER_TIMEOUT_MS + SLACK_MS)).as("an idle socket closed").isTrue();
            assertThat(millisSince(start)).isGreaterThanOrEqualTo(HEADER_TIMEOUT_MS - 50);
        }
        assertThat(server.getHeaderTimeouts()).isEqualTo(1);
        try (RawConnection slow = new RawConnection(server.getAdminPort())) {
            dribble(slow, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + "x".repeat(200) + "\r\n\r\n");
            assertThat(slow.awaitClosedByServer(HEADER_TIMEOUT_MS + SLACK_MS)).as("dribbled headers closed").isTrue();
        }
        assertThat(server.getHeaderTimeouts()).isEqualTo(2);
        try (RawConnection scrape = new RawConnection(server.getAdminPort())) {
            scrape.write("GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
            String head = scrape.readHead(10_000);
            assertThat(head).startsWith("HTTP/1.1 200");
            assertThat(head).as("no server name or version").doesNotContainIgnoringCase("Server:");
        }
    }

    @Test
    void theAdminPortHasAConnectionLimitOfItsOwn() throws Exception {
        start("--max-connections", "100", "--header-timeout", "20s", "--set", "admin.port=0",
                "--set", "admin.maxConnections=2");
        try (RawConnection first = new RawConnection(server.getAdminPort());
             RawConnection second = new RawConnection(server.getAdminPort())) {
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> server.getAdminConnectionCount() == 2);
            assertThat(server.getConnectionLimitReached()).isEqualTo(1);
            try (RawConnection third = new RawConnection(server.getAdminPort())) {
                third.write("GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
                assertThat(third.readHead(1_000)).as("not accepted while at the limit").isNull();
                try (RawConnection main = new RawConnection(server.getPort())) {
                    main.write("GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
                    assertThat(main.readHead(10_000)).as("the main port has its own limit").startsWith("HTTP/1.1 200");
                }

                first.close();

                assertThat(third.readHead(10_000)).as("accepted once one closed").startsWith("HTTP/1.1 200");
            }
        }
    }

    @Test
    void connectionOptionsAreValidatedAndNamed() {
        assertThatThrownBy(() -> StandaloneOptions.parse("--max-connections", "-1"))
                .hasMessageContaining("--max-connections -1");
        assertThatThrownBy(() -> StandaloneOptions.parse("--header-timeout", "soon"))
                .hasMessageContaining("--header-timeout soon");
        assertThatThrownBy(() -> StandaloneOptions.parse("--header-timeout", "10ms"))
                .hasMessageContaining("--header-timeout 10ms").hasMessageContaining("at least 100ms");
        assertThatThrownBy(() -> StandaloneOptions.parse("--min-data-rate", "fast"))
                .hasMessageContaining("--min-data-rate fast");
    }

    @Test
    void theUrlPrintedIsOneABrowserCanOpen() {
        assertThat(StandaloneServer.browsableHost("0.0.0.0")).isEqualTo("localhost");
        assertThat(StandaloneServer.browsableHost("::")).isEqualTo("localhost");
        assertThat(StandaloneServer.browsableHost("127.0.0.1")).isEqualTo("127.0.0.1");
        assertThat(StandaloneServer.browsableHost("::1")).isEqualTo("[::1]");
        assertThat(StandaloneServer.browsableHost("chat.example.com")).isEqualTo("chat.example.com");
    }
}
