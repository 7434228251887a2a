package org.bayeux.reference.cometd;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The reference server is a working CometD server: it answers raw Bayeux over long-polling and WebSocket, and its
 * echo service answers a remote call.
 */
class CometDReferenceServerTest {
    private static final Pattern CLIENT_ID = Pattern.compile("\"clientId\"\\s*:\\s*\"([^\"]+)\"");
    private static CometDReferenceServer server;
    private static HttpClient http;

    @BeforeAll
    static void start() throws Exception {
        server = CometDReferenceServer.start();
        // CometD binds a long-polling session to its BAYEUX_BROWSER cookie, as a browser would send it.
        http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).cookieHandler(new CookieManager()).build();
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    @Test
    void servesLongPollingAndOffersEveryTransport() throws Exception {
        assertThat(server.endpoint().toString()).startsWith("http://127.0.0.1:").endsWith("/cometd");
        String handshake = post("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"supportedConnectionTypes\":[\"long-polling\"]}]");
        assertThat(handshake).contains("\"successful\":true").contains("\"websocket\"")
                .contains("\"long-polling\"").contains("\"callback-polling\"");
        String clientId = clientId(handshake);

        String echo = post("[{\"channel\":\"/service/echo\",\"id\":\"7\",\"clientId\":\"" + clientId
                + "\",\"data\":{\"text\":\"hi\"}},{\"channel\":\"/meta/connect\",\"clientId\":\"" + clientId
                + "\",\"connectionType\":\"long-polling\",\"advice\":{\"timeout\":0}}]");
        assertThat(echo).contains("\"id\":\"7\"").contains("{\"text\":\"hi\"}");
    }

    @Test
    void servesWebSocket() throws Exception {
        LinkedBlockingQueue<String> frames = new LinkedBlockingQueue<>();
        URI ws = URI.create(server.endpoint().toString().replaceFirst("^http", "ws"));
        WebSocket socket = http.newWebSocketBuilder().buildAsync(ws, new WebSocket.Listener() {
            private final StringBuilder text = new StringBuilder();

            @Override
            public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
                text.append(data);
                if (last) {
                    frames.add(text.toString());
                    text.setLength(0);
                }
                webSocket.request(1);
                return CompletableFuture.completedFuture(null);
            }
        }).get(5, TimeUnit.SECONDS);
        try {
            socket.sendText("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                    + "\"supportedConnectionTypes\":[\"websocket\"]}]", true).get(5, TimeUnit.SECONDS);
            String handshake = frames.poll(5, TimeUnit.SECONDS);
            assertThat(handshake).contains("\"successful\":true");
            String clientId = clientId(handshake);
            socket.sendText("[{\"channel\":\"/service/echo\",\"id\":\"8\",\"clientId\":\"" + clientId
                    + "\",\"data\":\"ws\"}]", true).get(5, TimeUnit.SECONDS);
            String echo = "";
            for (int frame = 0; frame < 5 && !echo.contains("\"data\":\"ws\""); frame++) {
                echo = String.valueOf(frames.poll(5, TimeUnit.SECONDS));
            }
            assertThat(echo).contains("\"id\":\"8\"").contains("\"data\":\"ws\"");
        } finally {
            socket.sendClose(WebSocket.NORMAL_CLOSURE, "").get(5, TimeUnit.SECONDS);
        }
    }

    private static String post(String body) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(server.endpoint())
                .timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response.body();
    }

    private static String clientId(String reply) {
        Matcher matcher = CLIENT_ID.matcher(reply);
        assertThat(matcher.find()).as(reply).isTrue();
        return matcher.group(1);
    }
}
