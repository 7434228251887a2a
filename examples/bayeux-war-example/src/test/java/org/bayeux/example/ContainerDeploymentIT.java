package org.bayeux.example;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.json.JsonCodec;
import org.bayeux.api.json.JsonCodecProvider;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.StringRequestContent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The example WAR deployed in a real container, and real HTTP clients talking to its Bayeux servlet.
 */
class ContainerDeploymentIT {
    private static final Path WAR = Path.of(System.getProperty("bayeux.war", "target/bayeux-war-example.war"));
    private final JsonCodec json = JsonCodecProvider.find("jackson", getClass().getClassLoader()).newCodec(64);
    private final ExecutorService senders = Executors.newCachedThreadPool();
    private HttpClient client;
    private Container container;

    @BeforeEach
    void startClient() throws Exception {
        client = new HttpClient();
        client.start();
    }

    @AfterEach
    void stop() throws Exception {
        senders.shutdownNow();
        client.stop();
        if (container != null) {
            container.close();
        }
    }

    private List<Map<String, Object>> post(String path, String body) throws Exception {
        ContentResponse response = client.newRequest("http://127.0.0.1:" + container.port() + "/app/bayeux" + path)
                .method("POST").timeout(10, TimeUnit.SECONDS)
                .body(new StringRequestContent("application/json", body, StandardCharsets.UTF_8)).send();
        assertThat(response.getStatus()).as(response.getContentAsString()).isEqualTo(200);
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> messages = (List<Map<String, Object>>) json.parse(response.getContentAsString());
        return messages;
    }

    private String handshake() throws Exception {
        Map<String, Object> reply = post("/handshake", "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"supportedConnectionTypes\":[\"long-polling\"]}]").get(0);
        assertThat(reply).containsEntry("successful", true);
        return (String) reply.get("clientId");
    }

    private static String connect(String clientId, String extra) {
        return "[{\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\",\"clientId\":\"" + clientId + "\""
                + extra + "}]";
    }

    @ParameterizedTest
    @ValueSource(strings = {"jetty", "tomcat"})
    void longPollingClientsTalkThroughTheDeployedServlet(String name) throws Exception {
        container = Container.start(name, WAR);
        String a = handshake();
        String b = handshake();
        post("/connect", connect(a, ",\"advice\":{\"timeout\":0}"));
        assertThat(post("/", "[{\"channel\":\"/meta/subscribe\",\"subscription\":\"/chat/*\",\"clientId\":\"" + a + "\"}]")
                .get(0)).containsEntry("successful", true);
        CompletableFuture<List<Map<String, Object>>> held = CompletableFuture.supplyAsync(() -> {
            try {
                return post("/connect", connect(a, ""));
            } catch (Exception failure) {
                throw new IllegalStateException(failure);
            }
        }, senders);
        // The held poll may not have reached the server yet: if so, the message is queued and its poll returns it.
        assertThat(post("/", "[{\"channel\":\"/chat/room\",\"data\":\"hello\",\"clientId\":\"" + b + "\"}]").get(0))
                .containsEntry("successful", true);
        List<Map<String, Object>> delivered = held.get(10, TimeUnit.SECONDS);
        assertThat(delivered).extracting(m -> m.get("channel")).containsExactly("/chat/room", "/meta/connect");
        assertThat(delivered.get(0)).containsEntry("data", "hello");
    }

    @ParameterizedTest
    @ValueSource(strings = {"jetty", "tomcat"})
    void serviceInstalledByTheApplicationAnswers(String name) throws Exception {
        container = Container.start(name, WAR);
        String a = handshake();
        List<Map<String, Object>> response = post("/", "[{\"id\":\"7\",\"channel\":\"/service/echo\",\"data\":{\"q\":1},"
                + "\"clientId\":\"" + a + "\"}]");
        assertThat(response).hasSize(2);
        assertThat(response.get(0)).containsEntry("id", "7").containsEntry("data", Map.of("q", 1L));
        assertThat(response.get(1)).containsEntry("successful", true);
    }

    @ParameterizedTest
    @ValueSource(strings = {"jetty", "tomcat"})
    void badRequestsAndCallbackPollingBehaveAsOnJettyCore(String name) throws Exception {
        container = Container.start(name, WAR);
        String base = "http://127.0.0.1:" + container.port() + "/app/bayeux";
        assertThat(client.newRequest(base).method("POST").body(new StringRequestContent("application/json", "[42]"))
                .send().getStatus()).isEqualTo(400);
        assertThat(client.newRequest(base).method("PUT").send().getStatus()).isEqualTo(400);
        String message = java.net.URLEncoder.encode("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"supportedConnectionTypes\":[\"callback-polling\"]}]", StandardCharsets.UTF_8);
        ContentResponse jsonp = client.GET(base + "?jsonp=cb&message=" + message);
        assertThat(jsonp.getStatus()).isEqualTo(200);
        assertThat(jsonp.getContentAsString()).startsWith("/**/cb([");
        String big = "[{\"channel\":\"/a\",\"data\":\"" + "x".repeat(2 * 1024 * 1024) + "\"}]";
        assertThat(client.newRequest(base).method("POST").body(new StringRequestContent("application/json", big))
                .send().getStatus()).isEqualTo(413);
    }
}
