package org.bayeux.transport.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import jakarta.servlet.UnavailableException;

import org.bayeux.api.Message;
import org.bayeux.api.json.JsonCodec;
import org.bayeux.api.json.JsonCodecProvider;
import org.bayeux.api.server.BayeuxServer;
import org.bayeux.client.BayeuxClient;
import org.bayeux.client.BayeuxClientConfig;
import org.bayeux.client.transport.ClientTransport;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.StringRequestContent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link BayeuxServlet} in a real Jetty (ee10): our Java client handshakes, subscribes and publishes through it over
 * long-polling and over the Jakarta WebSocket endpoint it registers; the engine is the context attribute the
 * application uses; bad requests and bad init parameters get their errors; without a WebSocket container, or with
 * {@code websocket=false}, only HTTP is offered. The example WAR's tests deploy it in Tomcat 11 as well.
 */
class BayeuxServletTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final String HANDSHAKE = "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
            + "\"supportedConnectionTypes\":[\"long-polling\",\"websocket\"]}]";

    private final JsonCodec json = JsonCodecProvider.find("jackson", getClass().getClassLoader()).newCodec(64);
    private final HttpClient http = new HttpClient();

    @BeforeEach
    void startHttp() throws Exception {
        http.start();
    }

    @AfterEach
    void stopHttp() throws Exception {
        http.stop();
    }

    private static BayeuxClient connected(ServletServer server, String transport) throws InterruptedException {
        BayeuxClient client = new BayeuxClient(BayeuxClientConfig.builder(server.url()).transports(transport).build());
        assertThat(client.handshake(WAIT)).isEqualTo(BayeuxClient.State.CONNECTED);
        assertThat(client.getTransportName()).isEqualTo(transport);
        return client;
    }

    @ParameterizedTest
    @ValueSource(strings = {ClientTransport.LONG_POLLING, ClientTransport.WEBSOCKET})
    void clientsHandshakeSubscribeAndPublishThroughTheServlet(String transport) throws Exception {
        try (ServletServer server = ServletServer.start(Map.of("timeout", "5s"))) {
            BayeuxClient subscriber = connected(server, transport);
            BayeuxClient publisher = connected(server, transport);
            try {
                BlockingQueue<Object> received = new LinkedBlockingQueue<>();
                Message subscribed = subscriber.getChannel("/chat/room")
                        .subscribeAsync((channel, message) -> received.add(message.getData()))
                        .get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                assertThat(subscribed.isSuccessful()).isTrue();
                Message published = publisher.getChannel("/chat/room").publishAsync(Map.of("text", "hello"))
                        .get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                assertThat(published.isSuccessful()).isTrue();
                assertThat(received.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(Map.of("text", "hello"));
                assertThat(server.servlet().getEngine().getSessions()).hasSize(2);
                assertThat(publisher.disconnect(WAIT)).isTrue();
                assertThat(subscriber.disconnect(WAIT)).isTrue();
                assertThat(server.servlet().getEngine().getSessions()).isEmpty();
            } finally {
                subscriber.close();
                publisher.close();
            }
        }
    }

    /** The application's way in: the engine as a context attribute, configured by the init parameters. */
    @Test
    void theEngineIsTheContextAttributeUntilTheServletIsDestroyed() throws Exception {
        BayeuxServer engine;
        try (ServletServer server = ServletServer.start(Map.of("timeout", "7s", "allowedOrigins", "http://a.example"))) {
            engine = (BayeuxServer) server.context().getServletContext().getAttribute(BayeuxServlet.ATTRIBUTE);
            assertThat(engine).isSameAs(server.servlet().getEngine());
            assertThat(server.servlet().getEngine().getConfig().timeout()).isEqualTo(Duration.ofSeconds(7));
            Map<String, Object> reply = post(server, "/handshake", HANDSHAKE).get(0);
            assertThat(reply).containsEntry("successful", true);
            assertThat(connectionTypes(reply)).first().isEqualTo("websocket");
            server.holder().stop();
            assertThat(server.context().getServletContext().getAttribute(BayeuxServlet.ATTRIBUTE)).isNull();
        }
    }

    @Test
    void withoutAWebSocketContainerOrWithWebSocketOffOnlyHttpIsOffered() throws Exception {
        try (ServletServer plain = ServletServer.withoutWebSocket(Map.of());
                ServletServer off = ServletServer.start(Map.of("websocket", "false"))) {
            for (ServletServer server : List.of(plain, off)) {
                Map<String, Object> reply = post(server, "/handshake", HANDSHAKE).get(0);
                assertThat(reply).containsEntry("successful", true);
                assertThat(connectionTypes(reply)).contains("long-polling")
                        .doesNotContain("websocket");
                BayeuxClient client = connected(server, ClientTransport.LONG_POLLING);
                client.close();
            }
        }
    }

    @Test
    void badRequestsAreAnswered400AndAnUnknownSessionIsTold() throws Exception {
        try (ServletServer server = ServletServer.start(Map.of())) {
            ContentResponse notJson = http.newRequest(server.url() + "/").method("POST").timeout(10, TimeUnit.SECONDS)
                    .body(new StringRequestContent("application/json", "{not json", StandardCharsets.UTF_8)).send();
            assertThat(notJson.getStatus()).isEqualTo(400);
            assertThat(notJson.getMediaType()).isEqualTo("text/plain");

            ContentResponse put = http.newRequest(server.url() + "/").method("PUT").timeout(10, TimeUnit.SECONDS)
                    .body(new StringRequestContent("application/json", HANDSHAKE, StandardCharsets.UTF_8)).send();
            assertThat(put.getStatus()).isEqualTo(400);

            Map<String, Object> unknown = post(server, "/connect", "[{\"channel\":\"/meta/connect\","
                    + "\"connectionType\":\"long-polling\",\"clientId\":\"nobody\"}]").get(0);
            assertThat(unknown).containsEntry("successful", false);
            assertThat((String) unknown.get("error")).startsWith("402::");
        }
    }

    @Test
    void anUnknownOrInvalidInitParameterMakesTheServletUnavailableNamingIt() throws Exception {
        try (ServletServer unknown = ServletServer.start(Map.of("frobnicate", "1"));
                ServletServer invalid = ServletServer.start(Map.of("timeout", "soon"))) {
            assertThat(unknown.holder().isAvailable()).isFalse();
            assertThat(unknown.holder().getUnavailableException()).isInstanceOf(UnavailableException.class)
                    .hasMessageContaining("frobnicate=1").hasMessageContaining("docs/configuration.md");
            assertThat(invalid.holder().isAvailable()).isFalse();
            assertThat(invalid.holder().getUnavailableException()).hasMessageContaining("timeout")
                    .hasMessageContaining("soon");
            ContentResponse refused = http.newRequest(unknown.url() + "/handshake").method("POST")
                    .timeout(10, TimeUnit.SECONDS)
                    .body(new StringRequestContent("application/json", HANDSHAKE, StandardCharsets.UTF_8)).send();
            assertThat(refused.getStatus()).as("no engine answers").isNotEqualTo(200);
        }
    }

    @SuppressWarnings("unchecked")
    private static List<Object> connectionTypes(Map<String, Object> handshakeReply) {
        return (List<Object>) handshakeReply.get("supportedConnectionTypes");
    }

    private List<Map<String, Object>> post(ServletServer server, String path, String body) throws Exception {
        ContentResponse response = http.newRequest(server.url() + path).method("POST").timeout(10, TimeUnit.SECONDS)
                .body(new StringRequestContent("application/json", body, StandardCharsets.UTF_8)).send();
        assertThat(response.getStatus()).as(response.getContentAsString()).isEqualTo(200);
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> messages = (List<Map<String, Object>>) json.parse(response.getContentAsString());
        return messages;
    }
}
