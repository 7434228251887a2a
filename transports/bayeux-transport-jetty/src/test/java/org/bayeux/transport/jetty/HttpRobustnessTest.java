package org.bayeux.transport.jetty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.bayeux.transport.http.TransportConfig;
import org.eclipse.jetty.client.ContentResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Bad input and abandoned clients over HTTP: each gets its documented answer, good clients keep being served, and
 * nothing is left behind afterwards.
 */
class HttpRobustnessTest {
    private HttpTestServer server;

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void floodOfBadRequestsAndAbandonedHandshakesLeavesNothingBehind() throws Exception {
        // The flood's 300 handshakes, from one client with one cookie, go beyond maxHandshakesPerAddressPerSecond and
        // maxSessionsPerCookie (ClientLimitsTest): lifted here, so that all of them create sessions to be cleaned up.
        server = new HttpTestServer("jackson", engine -> engine.timeout(Duration.ofSeconds(2))
                .maxInterval(Duration.ofMillis(500)).sweepPeriod(Duration.ofMillis(100)),
                transport -> transport.set(TransportConfig.MAX_HANDSHAKES_PER_ADDRESS_PER_SECOND, -1)
                        .set(TransportConfig.MAX_SESSIONS_PER_COOKIE, -1));
        String good = handshake();
        server.send(server.post("/bayeux", connect(good, ",\"advice\":{\"timeout\":0}")));
        server.send(server.post("/bayeux", "[{\"channel\":\"/meta/subscribe\",\"subscription\":\"/news\",\"clientId\":\""
                + good + "\"}]"));
        CompletableFuture<ContentResponse> held = server.sendAsync(server.post("/bayeux", connect(good, "")));
        await().atMost(Duration.ofSeconds(5)).until(() -> server.engine.isConnectHeld(server.engine.getSession(good)));

        for (int i = 0; i < 300; i++) {
            handshake();
        }
        assertThat(server.send(server.post("/bayeux", "[{\"channel\":")).getStatus()).isEqualTo(400);
        assertThat(server.send(server.post("/bayeux", "[" + "[".repeat(5000) + "]".repeat(5000) + "]")).getStatus())
                .isEqualTo(400);
        String oversized = "[{\"channel\":\"/a\",\"data\":\"" + "z".repeat(1100 * 1024) + "\"}]";
        assertThat(server.send(server.post("/bayeux", oversized)).getStatus()).isEqualTo(413);
        assertThat(reply(server.send(server.post("/bayeux", "[{\"channel\":\"/a//b\",\"clientId\":\"" + good + "\"}]"))))
                .containsEntry("error", "405:/a//b:channel_invalid");
        assertThat(reply(server.send(server.post("/bayeux", "[{\"channel\":\"/news\",\"data\":1,\"clientId\":\"forged\"}]"))))
                .containsEntry("error", "402::session_unknown");
        assertThat(server.engine.getSession(good)).isNotNull();

        // The good client is still served while the abandoned sessions wait to expire.
        String publisher = handshake();
        server.send(server.post("/bayeux", "[{\"channel\":\"/news\",\"data\":\"still here\",\"clientId\":\"" + publisher
                + "\"}]"));
        List<Map<String, Object>> delivered = server.messages(held.get(5, TimeUnit.SECONDS));
        assertThat(delivered.get(0)).containsEntry("data", "still here");

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(server.engine.getSessions()).isEmpty());
        String serverPool = ((org.eclipse.jetty.util.thread.QueuedThreadPool) server.server.getThreadPool()).getName();
        server.close();
        server = null;
        // Jetty's pool and the engine's scheduler end with the server: no thread of theirs is left behind.
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(Thread.getAllStackTraces().keySet())
                .extracting(Thread::getName).noneMatch(name -> name.startsWith("bayeux-") || name.startsWith(serverPool)));
    }

    @Test
    void clientThatGoesAwayDuringALongPollStartsExpiry() throws Exception {
        server = new HttpTestServer("jackson", engine -> engine.timeout(Duration.ofSeconds(5))
                .maxInterval(Duration.ofMillis(300)).sweepPeriod(Duration.ofMillis(50)), transport -> { });
        String id = handshake();
        server.send(server.post("/bayeux", connect(id, ",\"advice\":{\"timeout\":0}")));
        CompletableFuture<ContentResponse> held = server.sendAsync(server.post("/bayeux", connect(id, "")));
        await().atMost(Duration.ofSeconds(5)).until(() -> server.engine.isConnectHeld(server.engine.getSession(id)));
        // The client disappears: its connection closes with the poll still held.
        server.client.stop();
        await().atMost(Duration.ofSeconds(10)).until(() -> server.engine.getSession(id) == null);
        assertThat(held).isCompletedExceptionally();
        server.client.start();
        assertThat(server.connector.getConnectedEndPoints()).isEmpty();
    }

    private String handshake() {
        ContentResponse response = server.send(server.post("/bayeux", "[{\"channel\":\"/meta/handshake\","
                + "\"version\":\"1.0\",\"supportedConnectionTypes\":[\"long-polling\"]}]"));
        return (String) server.messages(response).get(0).get("clientId");
    }

    private Map<String, Object> reply(ContentResponse response) {
        assertThat(response.getStatus()).isEqualTo(200);
        return server.messages(response).get(0);
    }

    private static String connect(String clientId, String extra) {
        return "[{\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\",\"clientId\":\"" + clientId + "\""
                + extra + "}]";
    }
}
