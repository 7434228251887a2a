package org.bayeux.transport.jetty;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.assertj.core.api.InstanceOfAssertFactories;
import org.bayeux.transport.http.SessionLimits;
import org.bayeux.transport.http.TransportConfig;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.http.HttpCookieStore;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.websocket.client.WebSocketClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Sessions per browser cookie and per remote address, handshakes per second per address, the CORS rules and turning
 * callback-polling off (issue 16, items 1 and 5), over real long-polling and WebSocket. The test's HTTP client keeps
 * no cookies: each test says which cookie a request carries.
 */
class ClientLimitsTest {
    private static final String HANDSHAKE = "[{\"id\":\"7\",\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
            + "\"supportedConnectionTypes\":[\"long-polling\",\"websocket\",\"callback-polling\"]}]";
    private HttpTestServer server;
    private HttpClient bare;
    private WebSocketClient webSockets;

    private void start(Consumer<TransportConfig.Builder> transport) throws Exception {
        server = new HttpTestServer("jackson", engine -> engine.timeout(Duration.ofSeconds(2)), transport);
        bare = new HttpClient();
        bare.setHttpCookieStore(new HttpCookieStore.Empty());
        bare.start();
        webSockets = new WebSocketClient(bare);
        webSockets.start();
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable closing : new AutoCloseable[] {webSockets::stop, bare::stop, server}) {
            try {
                closing.close();
            } catch (Exception | Error ignored) {
                // Not started.
            }
        }
    }

    private Request post(String json, String cookie, String origin) {
        Request request = bare.newRequest(server.uri("/bayeux")).method("POST").timeout(20, TimeUnit.SECONDS)
                .body(new StringRequestContent("application/json;charset=UTF-8", json, StandardCharsets.UTF_8));
        request.headers(h -> {
            if (cookie != null) {
                h.put(HttpHeader.COOKIE, "BAYEUX_BROWSER=" + cookie);
            }
            if (origin != null) {
                h.put(HttpHeader.ORIGIN, origin);
            }
        });
        return request;
    }

    private Map<String, Object> handshake(String cookie) {
        ContentResponse response = server.send(post(HANDSHAKE, cookie, null));
        assertThat(response.getStatus()).isEqualTo(200);
        return server.messages(response).get(0);
    }

    private SessionLimits limits() {
        return SessionLimits.of(server.engine, TransportConfig.defaults());
    }

    private static void assertRefused(Map<String, Object> reply, String error) {
        assertThat(reply).containsEntry("channel", "/meta/handshake").containsEntry("successful", false)
                .containsEntry("error", error).containsEntry("id", "7").doesNotContainKey("clientId");
        assertThat(reply.get("advice")).asInstanceOf(InstanceOfAssertFactories.MAP)
                .containsEntry("reconnect", "handshake").containsEntry("interval", 5000L);
    }

    private WsClient socket() throws Exception {
        return WsClient.open(webSockets, URI.create("ws://127.0.0.1:" + server.connector.getLocalPort() + "/bayeux"),
                server.codec());
    }

    @Test
    void sessionsPerAddressAreCappedOverEveryTransport() throws Exception {
        start(transport -> transport.set(TransportConfig.MAX_SESSIONS_PER_ADDRESS, 3));
        String first = (String) handshake(null).get("clientId");
        handshake(null);
        WsClient socket = socket();
        assertThat(socket.handshake()).containsEntry("successful", true);

        assertRefused(handshake(null), "403::too_many_sessions");
        WsClient refused = socket();
        List<Map<String, Object>> overSocket = refused.call(HANDSHAKE);
        assertRefused(overSocket.get(0), "403::too_many_sessions");
        assertThat(limits().refusedPerAddress()).isEqualTo(2);

        // Others are unaffected: an existing session goes on.
        List<Map<String, Object>> publish = server.messages(server.send(post("[{\"channel\":\"/chat/a\",\"data\":1,"
                + "\"clientId\":\"" + socket.clientId + "\"}]", null, null)));
        assertThat(publish).isNotEmpty();
        assertThat(socket.call("[{\"channel\":\"/chat/a\",\"data\":1,\"clientId\":\"" + socket.clientId + "\"}]").get(0))
                .containsEntry("successful", true);

        // A session that ends frees its place.
        server.engine.getSession(first).disconnect();
        assertThat(handshake(null)).containsEntry("successful", true);
    }

    @Test
    void sessionsPerBrowserCookieAreCapped() throws Exception {
        start(transport -> transport.set(TransportConfig.MAX_SESSIONS_PER_COOKIE, 2));
        String cookie = "browserabc123456";
        assertThat(handshake(cookie)).containsEntry("successful", true);
        String second = (String) handshake(cookie).get("clientId");
        assertThat(second).isNotNull();
        assertRefused(handshake(cookie), "403::too_many_sessions");
        assertThat(limits().refusedPerCookie()).isEqualTo(1);
        assertThat(handshake("anotherbrowser12")).containsEntry("successful", true);

        server.engine.getSession(second).disconnect();
        assertThat(handshake(cookie)).containsEntry("successful", true);
    }

    @Test
    void handshakesPerSecondPerAddressAreCapped() throws Exception {
        start(transport -> transport.set(TransportConfig.MAX_HANDSHAKES_PER_ADDRESS_PER_SECOND, 2));
        List<Map<String, Object>> replies = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            replies.add(handshake(null));
        }
        assertThat(replies.get(0)).containsEntry("successful", true);
        assertThat(replies).anySatisfy(reply -> assertRefused(reply, "403::too_many_handshakes"));
        assertThat(limits().refusedHandshakeRate()).isPositive();
    }

    // ---- CORS ------------------------------------------------------------------------------------------------

    @Test
    void anAllowListRefusesOtherOriginsWith403AndAllowsItsOwnWithCredentials() throws Exception {
        start(transport -> transport.allowedOrigins("https://app.example"));
        ContentResponse foreign = server.send(post(HANDSHAKE, null, "https://evil.example"));
        assertThat(foreign.getStatus()).isEqualTo(403);
        assertThat(foreign.getHeaders().get("Access-Control-Allow-Origin")).isNull();
        assertThat(server.engine.getSessions()).isEmpty();
        ContentResponse preflight = server.send(bare.newRequest(server.uri("/bayeux")).method("OPTIONS")
                .headers(h -> h.put(HttpHeader.ORIGIN, "https://evil.example")
                        .put("Access-Control-Request-Method", "POST")));
        assertThat(preflight.getStatus()).isEqualTo(403);

        ContentResponse allowed = server.send(post(HANDSHAKE, null, "https://app.example"));
        assertThat(allowed.getStatus()).isEqualTo(200);
        assertThat(allowed.getHeaders().get("Access-Control-Allow-Origin")).isEqualTo("https://app.example");
        assertThat(allowed.getHeaders().get("Access-Control-Allow-Credentials")).isEqualTo("true");

        String self = "http://127.0.0.1:" + server.connector.getLocalPort();
        assertThat(server.send(post(HANDSHAKE, null, self)).getStatus()).as("same origin").isEqualTo(200);
        assertThat(server.send(post(HANDSHAKE, null, null)).getStatus()).as("no Origin").isEqualTo(200);
    }

    @Test
    void withoutAnAllowListOnlyTheEndpointsOwnOriginIsServed() throws Exception {
        start(transport -> { });
        assertThat(server.send(post(HANDSHAKE, null, "https://evil.example")).getStatus()).isEqualTo(403);
        String self = "http://127.0.0.1:" + server.connector.getLocalPort();
        assertThat(server.send(post(HANDSHAKE, null, self)).getStatus()).isEqualTo(200);
    }

    @Test
    void anyOriginIsServedWithoutCredentials() throws Exception {
        start(transport -> transport.allowedOrigins("*"));
        ContentResponse response = server.send(post(HANDSHAKE, null, "https://any.example"));
        assertThat(response.getStatus()).isEqualTo(200);
        assertThat(response.getHeaders().get("Access-Control-Allow-Origin")).isEqualTo("https://any.example");
        assertThat(response.getHeaders().get("Access-Control-Allow-Credentials")).isNull();
        ContentResponse preflight = server.send(bare.newRequest(server.uri("/bayeux")).method("OPTIONS")
                .headers(h -> h.put(HttpHeader.ORIGIN, "https://any.example")
                        .put("Access-Control-Request-Method", "POST")));
        assertThat(preflight.getStatus()).isEqualTo(200);
        assertThat(preflight.getHeaders().get("Access-Control-Allow-Credentials")).isNull();
    }

    // ---- callback-polling ------------------------------------------------------------------------------------

    @Test
    void callbackPollingCanBeTurnedOffEntirely() throws Exception {
        start(transport -> transport.set(TransportConfig.CALLBACK_POLLING, false));
        ContentResponse handshake = server.send(post(HANDSHAKE, null, null));
        String cookie = handshake.getHeaders().get(HttpHeader.SET_COOKIE).split(";")[0].split("=")[1];
        Map<String, Object> reply = server.messages(handshake).get(0);
        assertThat(reply.get("supportedConnectionTypes")).asInstanceOf(InstanceOfAssertFactories.LIST)
                .contains("long-polling", "websocket").doesNotContain("callback-polling");
        String jsonp = URLEncoder.encode(HANDSHAKE, StandardCharsets.UTF_8);
        assertThat(server.send(bare.newRequest(server.uri("/bayeux?jsonp=cb&message=" + jsonp))).getStatus())
                .isEqualTo(400);
        String clientId = (String) reply.get("clientId");
        ContentResponse connect = server.send(post("[{\"channel\":\"/meta/connect\",\"connectionType\":"
                + "\"callback-polling\",\"clientId\":\"" + clientId + "\"}]", cookie, null));
        assertThat(server.messages(connect).get(0)).containsEntry("error", "301:callback-polling:connection_type_unsupported");
    }
}
