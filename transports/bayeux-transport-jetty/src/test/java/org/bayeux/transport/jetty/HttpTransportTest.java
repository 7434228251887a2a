package org.bayeux.transport.jetty;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.InputStreamRequestContent;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.ByteBufferPool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The HTTP transports on a real Jetty server, with each JSON codec. */
class HttpTransportTest {
    private static final long TIMEOUT_MS = 1500;
    private HttpTestServer server;

    private void start(String codec) throws Exception {
        server = new HttpTestServer(codec, engine -> engine.timeout(Duration.ofMillis(TIMEOUT_MS)),
                transport -> transport.allowedOrigins("http://app.example"));
    }

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    private String handshake() {
        ContentResponse response = server.send(server.post("/bayeux/handshake", "[{\"id\":\"1\",\"channel\":"
                + "\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":[\"long-polling\"]}]"));
        assertThat(response.getStatus()).isEqualTo(200);
        return (String) server.messages(response).get(0).get("clientId");
    }

    private String connect(String clientId, String extra) {
        return "[{\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\",\"clientId\":\"" + clientId + "\""
                + extra + "}]";
    }

    @ParameterizedTest
    @ValueSource(strings = {"jackson", "jetty"})
    void c01HandshakeOverHttpAdvertisesEveryTransport(String codec) throws Exception {
        start(codec);
        ContentResponse response = server.send(server.post("/bayeux", "[{\"id\":\"1\",\"channel\":\"/meta/handshake\","
                + "\"version\":\"1.0\",\"supportedConnectionTypes\":[\"long-polling\"]}]"));
        assertThat(response.getStatus()).isEqualTo(200);
        assertThat(response.getHeaders().get(HttpHeader.CONTENT_TYPE)).isEqualToIgnoringCase("application/json;charset=UTF-8");
        assertThat(response.getHeaders().get(HttpHeader.CACHE_CONTROL)).isEqualTo("no-cache, no-store");
        Map<String, Object> reply = server.messages(response).get(0);
        assertThat(reply).containsEntry("successful", true);
        assertThat(reply.get("supportedConnectionTypes")).asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.LIST)
                .contains("long-polling", "callback-polling");
    }

    @ParameterizedTest
    @ValueSource(strings = {"jackson", "jetty"})
    void c09LongPollIsReleasedByAPublish(String codec) throws Exception {
        start(codec);
        String a = handshake();
        String b = handshake();
        server.send(server.post("/bayeux/connect", connect(a, ",\"advice\":{\"timeout\":0}")));
        server.send(server.post("/bayeux", "[{\"channel\":\"/meta/subscribe\",\"subscription\":\"/chat/a\",\"clientId\":\""
                + a + "\"}]"));
        CompletableFuture<ContentResponse> held = server.sendAsync(server.post("/bayeux/connect", connect(a, "")));
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5))
                .until(() -> server.engine.isConnectHeld(server.engine.getSession(a)));
        server.send(server.post("/bayeux", "[{\"channel\":\"/chat/a\",\"data\":{\"text\":\"hi\"},\"clientId\":\"" + b + "\"}]"));
        List<Map<String, Object>> messages = server.messages(held.get(5, TimeUnit.SECONDS));
        assertThat(messages).extracting(m -> m.get("channel")).containsExactly("/chat/a", "/meta/connect");
        assertThat(messages.get(0)).containsEntry("data", Map.of("text", "hi")).doesNotContainKeys("clientId", "id");
    }

    @ParameterizedTest
    @ValueSource(strings = {"jackson", "jetty"})
    void c05BrowserCookieIsSetOnceOnHandshake(String codec) throws Exception {
        start(codec);
        ContentResponse first = server.send(server.post("/bayeux", "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"supportedConnectionTypes\":[\"long-polling\"]}]"));
        String setCookie = first.getHeaders().get(HttpHeader.SET_COOKIE);
        assertThat(setCookie).startsWith("BAYEUX_BROWSER=").contains("HttpOnly").contains("Path=/");
        ContentResponse second = server.send(server.post("/bayeux", "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"supportedConnectionTypes\":[\"long-polling\"]}]"));
        assertThat(second.getHeaders().get(HttpHeader.SET_COOKIE)).isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"jackson", "jetty"})
    void c24BadRequestsGet400(String codec) throws Exception {
        start(codec);
        assertThat(server.send(server.post("/bayeux", "{not json")).getStatus()).isEqualTo(400);
        assertThat(server.send(server.post("/bayeux", "[]")).getStatus()).isEqualTo(400);
        assertThat(server.send(server.post("/bayeux", "[42]")).getStatus()).isEqualTo(400);
        assertThat(server.send(server.post("/bayeux", "[{\"channel\":\"/meta/handshake\"},{\"channel\":\"/a\"}]"))
                .getStatus()).isEqualTo(400);
        assertThat(server.send(server.client.newRequest(server.uri("/bayeux")).method("PUT")).getStatus()).isEqualTo(400);
        assertThat(server.send(server.client.newRequest(server.uri("/bayeux")).method("GET")).getStatus()).isEqualTo(400);
    }

    @ParameterizedTest
    @ValueSource(strings = {"jackson"})
    void oversizedBodyGets413(String codec) throws Exception {
        start(codec);
        String big = "[{\"channel\":\"/a\",\"data\":\"" + "x".repeat(2 * 1024 * 1024) + "\"}]";
        assertThat(server.send(server.post("/bayeux", big)).getStatus()).isEqualTo(413);
    }

    /** A chunked body over the limit also gets a 413, and the connection stays usable for the next request. */
    @ParameterizedTest
    @ValueSource(strings = {"jackson"})
    void oversizedChunkedBodyGets413AndTheConnectionLives(String codec) throws Exception {
        start(codec);
        String big = "[{\"channel\":\"/a\",\"data\":\"" + "x".repeat(2 * 1024 * 1024) + "\"}]";
        // A content of unknown length makes the client send the body chunked.
        InputStreamRequestContent chunked = new InputStreamRequestContent("application/json",
                new ByteArrayInputStream(big.getBytes(StandardCharsets.UTF_8)),
                new ByteBufferPool.Sized(server.client.getByteBufferPool()));
        ContentResponse refused = server.send(server.client.newRequest(server.uri("/bayeux")).method("POST")
                .body(chunked).timeout(20, TimeUnit.SECONDS));

        assertThat(refused.getStatus()).isEqualTo(413);
        assertThat(refused.getHeaders().get(HttpHeader.CONNECTION)).as("the connection is kept").isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"jackson", "jetty"})
    void c22UnknownClientIsHttp200With402(String codec) throws Exception {
        start(codec);
        ContentResponse response = server.send(server.post("/bayeux/connect", connect("nobody", "")));
        assertThat(response.getStatus()).isEqualTo(200);
        assertThat(server.messages(response).get(0)).containsEntry("error", "402::session_unknown");
    }

    @ParameterizedTest
    @ValueSource(strings = {"jackson", "jetty"})
    void c26SupersededLongPollGets500(String codec) throws Exception {
        start(codec);
        String a = handshake();
        server.send(server.post("/bayeux/connect", connect(a, ",\"advice\":{\"timeout\":0}")));
        CompletableFuture<ContentResponse> older = server.sendAsync(server.post("/bayeux/connect", connect(a, "")));
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5))
                .until(() -> server.engine.isConnectHeld(server.engine.getSession(a)));
        CompletableFuture<ContentResponse> newer = server.sendAsync(server.post("/bayeux/connect", connect(a, "")));
        assertThat(older.get(5, TimeUnit.SECONDS).getStatus()).isEqualTo(500);
        assertThat(newer.get(5, TimeUnit.SECONDS).getStatus()).isEqualTo(200);
    }

    @ParameterizedTest
    @ValueSource(strings = {"jackson", "jetty"})
    void c31SecondSessionOfABrowserIsToldToPoll(String codec) throws Exception {
        start(codec);
        String a = handshake();
        String b = handshake();
        server.send(server.post("/bayeux/connect", connect(a, ",\"advice\":{\"timeout\":0}")));
        server.send(server.post("/bayeux/connect", connect(b, ",\"advice\":{\"timeout\":0}")));
        CompletableFuture<ContentResponse> heldA = server.sendAsync(server.post("/bayeux/connect", connect(a, "")));
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5))
                .until(() -> server.engine.isConnectHeld(server.engine.getSession(a)));
        long start = System.nanoTime();
        ContentResponse refused = server.send(server.post("/bayeux/connect", connect(b, "")));
        assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(TIMEOUT_MS / 2);
        Map<String, Object> reply = server.messages(refused).get(0);
        assertThat(reply).containsEntry("successful", true);
        assertThat(reply.get("advice")).asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
                .containsEntry("multiple-clients", true).containsEntry("interval", 2000L).containsEntry("reconnect", "retry");
        assertThat(heldA.get(5, TimeUnit.SECONDS).getStatus()).isEqualTo(200);
    }

    @ParameterizedTest
    @ValueSource(strings = {"jackson", "jetty"})
    void c32CallbackPollingWrapsTheReplyInTheCallback(String codec) throws Exception {
        start(codec);
        String handshake = URLEncoder.encode("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"supportedConnectionTypes\":[\"callback-polling\"]}]", StandardCharsets.UTF_8);
        ContentResponse named = server.send(server.client.newRequest(server.uri("/bayeux?jsonp=cb&message=" + handshake)));
        assertThat(named.getStatus()).isEqualTo(200);
        assertThat(named.getHeaders().get(HttpHeader.CONTENT_TYPE)).isEqualToIgnoringCase("text/javascript;charset=UTF-8");
        assertThat(named.getContentAsString()).startsWith("/**/cb([{").endsWith("]);");
        ContentResponse unnamed = server.send(server.client.newRequest(server.uri("/bayeux?message=" + handshake)));
        assertThat(unnamed.getContentAsString()).startsWith("/**/jsonpcallback([");
        ContentResponse bad = server.send(server.client.newRequest(server.uri("/bayeux?jsonp=a;b&message=" + handshake)));
        assertThat(bad.getStatus()).isEqualTo(400);
    }

    @ParameterizedTest
    @ValueSource(strings = {"jackson", "jetty"})
    void c33FormEncodedBodyIsProcessedAsJson(String codec) throws Exception {
        start(codec);
        String body = "message=" + URLEncoder.encode("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"supportedConnectionTypes\":[\"long-polling\"]}]", StandardCharsets.UTF_8);
        ContentResponse response = server.send(server.client.newRequest(server.uri("/bayeux")).method("POST")
                .body(new StringRequestContent("text/plain", body)));
        assertThat(response.getStatus()).isEqualTo(200);
        assertThat(server.messages(response).get(0)).containsEntry("successful", true);
    }

    @ParameterizedTest
    @ValueSource(strings = {"jackson", "jetty"})
    void c34CorsEchoesAllowedOriginsOnly(String codec) throws Exception {
        start(codec);
        ContentResponse preflight = server.send(server.client.newRequest(server.uri("/bayeux/handshake")).method("OPTIONS")
                .headers(h -> h.put("Origin", "http://app.example").put("Access-Control-Request-Method", "POST")
                        .put("Access-Control-Request-Headers", "Content-Type")));
        assertThat(preflight.getStatus()).isEqualTo(200);
        assertThat(preflight.getHeaders().get("Access-Control-Allow-Origin")).isEqualTo("http://app.example");
        assertThat(preflight.getHeaders().get("Access-Control-Allow-Credentials")).isEqualTo("true");
        assertThat(preflight.getHeaders().get("Access-Control-Allow-Methods")).contains("POST");
        assertThat(preflight.getHeaders().get("Access-Control-Allow-Headers")).contains("Content-Type");
        ContentResponse post = server.send(server.post("/bayeux", "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"supportedConnectionTypes\":[\"long-polling\"]}]").headers(h -> h.put("Origin", "http://app.example")));
        assertThat(post.getHeaders().get("Access-Control-Allow-Origin")).isEqualTo("http://app.example");
        assertThat(post.getHeaders().get("Access-Control-Allow-Credentials")).isEqualTo("true");
        ContentResponse other = server.send(server.post("/bayeux", "[]").headers(h -> h.put("Origin", "http://evil.example")));
        assertThat(other.getHeaders().get("Access-Control-Allow-Origin")).isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"jackson", "jetty"})
    void c35EverySubPathBehavesTheSame(String codec) throws Exception {
        start(codec);
        for (String path : List.of("/bayeux", "/bayeux/", "/bayeux/handshake", "/bayeux/connect")) {
            ContentResponse response = server.send(server.post(path, "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                    + "\"supportedConnectionTypes\":[\"long-polling\"]}]"));
            assertThat(response.getStatus()).as(path).isEqualTo(200);
            assertThat(server.messages(response).get(0)).as(path).containsEntry("successful", true);
        }
    }
}
