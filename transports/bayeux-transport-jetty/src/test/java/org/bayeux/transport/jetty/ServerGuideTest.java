package org.bayeux.transport.jetty;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.bayeux.api.server.BayeuxServer;
import org.bayeux.api.server.LocalSession;
import org.bayeux.api.server.ServerSession;
import org.bayeux.server.BayeuxEngine;
import org.bayeux.server.app.ApplicationContext;
import org.bayeux.server.config.BayeuxServerConfig;
import org.bayeux.transport.jetty.example.ChatApp;
import org.bayeux.transport.jetty.example.DocSnippets;
import org.bayeux.transport.jetty.example.EchoService;
import org.bayeux.transport.jetty.example.EmbeddedServer;
import org.bayeux.transport.jetty.example.Listeners;
import org.bayeux.transport.jetty.example.MyPolicy;
import org.bayeux.transport.jetty.example.PrivateChannels;
import org.bayeux.transport.jetty.example.StampExtension;
import org.bayeux.transport.jetty.example.TokenPolicy;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.bayeux.testsupport.DocExamples;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The server guide ({@code docs/server-guide.md}) and the README's embedding example are the compiled sources of
 * the {@code example} package, word for word between their BEGIN and END comments, and they work against a real
 * server on a loopback port.
 */
class ServerGuideTest {
    private static final Path ROOT = Path.of("..", "..");
    private static final Path EXAMPLES = Path.of("src", "test", "java", "org", "bayeux", "transport", "jetty",
            "example");
    /** The doc that shows each example; the others are in docs/server-guide.md. */
    private static final Map<String, String> DOCS = Map.of("embedding", "README.md",
            "configuration", "docs/configuration.md", "extensions", "docs/extensions.md",
            "transports", "docs/transports.md", "deployment", "docs/deployment.md",
            "json-codecs", "docs/json-codecs.md", "application", "docs/operations.md");
    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void theDocsShowTheCompiledExamples() throws Exception {
        Map<String, String> blocks = new TreeMap<>();
        try (Stream<Path> files = Files.list(EXAMPLES)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).collect(Collectors.toList())) {
                blocks.putAll(DocExamples.blocks(file));
            }
        }
        assertThat(blocks.keySet()).containsExactly("application", "configuration", "deployment", "embedding", "extension",
                "extensions", "json-codecs", "listeners", "private-channels", "security-policy", "service",
                "transports");
        for (Map.Entry<String, String> block : blocks.entrySet()) {
            String doc = DOCS.getOrDefault(block.getKey(), "docs/server-guide.md");
            assertThat(DocExamples.notShown(ROOT.resolve(doc), Map.of(block.getKey(), block.getValue())))
                    .as("%s shows example '%s' as compiled", doc, block.getKey()).isEmpty();
        }
    }

    @Test
    void theDocsFragmentsWork() throws Exception {
        BayeuxEngine configured = DocSnippets.configuration();
        try {
            assertThat(configured.getTransportNames()).isNotNull();
        } finally {
            configured.stop();
        }
        BayeuxEngine extended = DocSnippets.extensions(BayeuxServerConfig.defaults());
        try {
            assertThat(extended.getExtensions()).hasSize(3);
        } finally {
            extended.stop();
        }
        BayeuxEngine app = BayeuxEngine.create();
        try {
            app.start();
            new ChatApp().start(new ApplicationContext() {
                @Override
                public BayeuxServer server() {
                    return app;
                }

                @Override
                public <T> Optional<T> component(Class<T> type) {
                    return Optional.empty();
                }

                @Override
                public ClassLoader classLoader() {
                    return ChatApp.class.getClassLoader();
                }
            });
            assertThat(app.getSecurityPolicy()).isInstanceOf(MyPolicy.class);
            assertThat(app.getChannel("/rooms/**").getAuthorizers()).hasSize(1);
            LocalSession member = app.newLocalSession("member");
            member.handshake();
            member.getChannel("/rooms/lobby").subscribe((channel, message) -> { }, null);
            CompletableFuture<Object> rooms = new CompletableFuture<>();
            member.remoteCall("/service/rooms", Map.of(), (channel, reply) -> rooms.complete(reply.getData()));
            assertThat(rooms.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(List.of("/rooms/lobby"));
        } finally {
            app.stop();
        }
        assertThat(new DocSnippets().jsonCodecs().parse("{\"a\":[1]}")).isEqualTo(Map.of("a", List.of(1L)));
    }


    @Test
    void theReadmesEmbeddedServerServes() throws Exception {
        Server jetty = EmbeddedServer.start(0);
        HttpClient client = new HttpClient();
        try {
            client.start();
            int port = ((ServerConnector) jetty.getConnectors()[0]).getLocalPort();
            ContentResponse response = client.newRequest("http://127.0.0.1:" + port + "/bayeux").method("POST")
                    .body(new StringRequestContent("application/json",
                            "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                                    + "\"supportedConnectionTypes\":[\"long-polling\"]}]"))
                    .send();
            assertThat(response.getStatus()).isEqualTo(200);
            assertThat(response.getContentAsString()).contains("\"successful\":true");
        } finally {
            client.stop();
            jetty.stop();
        }
    }

    @Test
    void theMountingExamplesServeAndKeepOtherOriginsOut() throws Exception {
        HttpClient client = new HttpClient();
        client.start();
        try {
            for (Server jetty : List.of(DocSnippets.transports("127.0.0.1", 0),
                    DocSnippets.deployment("127.0.0.1", 0))) {
                try {
                    String url = "http://127.0.0.1:" + ((ServerConnector) jetty.getConnectors()[0]).getLocalPort()
                            + "/bayeux";
                    String handshake = "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                            + "\"supportedConnectionTypes\":[\"long-polling\"],\"ext\":{\"ack\":true}}]";
                    ContentResponse allowed = client.newRequest(url).method("POST")
                            .headers(headers -> headers.put("Origin", "https://app.example.com"))
                            .body(new StringRequestContent("application/json", handshake)).send();
                    assertThat(allowed.getStatus()).isEqualTo(200);
                    assertThat(allowed.getContentAsString()).contains("\"successful\":true");
                    ContentResponse foreign = client.newRequest(url).method("POST")
                            .headers(headers -> headers.put("Origin", "https://evil.example.com"))
                            .body(new StringRequestContent("application/json", handshake)).send();
                    assertThat(foreign.getStatus()).isEqualTo(403);
                } finally {
                    jetty.stop();
                }
            }
        } finally {
            client.stop();
        }
    }

    @Test
    void theGuidesExamplesWork() throws Exception {
        try (HttpTestServer server = new HttpTestServer("jackson", engine -> engine.maxQueue(20), transport -> { })) {
            Listeners listeners = new Listeners(server.engine);
            server.engine.setSecurityPolicy(new TokenPolicy(Map.of("t-alice", "alice", "t-bob", "bob")));
            server.engine.addExtension(new StampExtension());
            new EchoService(server.engine);
            PrivateChannels users = new PrivateChannels(server.engine);
            LocalSession feed = server.engine.newLocalSession("feed");
            feed.handshake();
            Remote alice = new Remote(server);

            // Authentication at handshake.
            assertThat(alice.call("{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                    + "\"supportedConnectionTypes\":[\"long-polling\"],\"ext\":{\"auth\":{\"token\":\"wrong\"}}}")
                    .get("error")).isEqualTo("403::handshake_denied");
            alice.clientId = (String) alice.call("{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                    + "\"supportedConnectionTypes\":[\"long-polling\"],\"ext\":{\"auth\":{\"token\":\"t-alice\"}}}")
                    .get("clientId");
            assertThat(alice.clientId).isNotNull();
            ServerSession aliceSession = server.engine.getSession(alice.clientId);
            assertThat(aliceSession.getAttribute(TokenPolicy.USER)).isEqualTo("alice");
            alice.connect();

            // The policy and the private channels' authorizer.
            for (String channel : List.of("/users/alice", "/chat/room", "/chat/typing", "/quotes/ACME",
                    "/quotes/INIT")) {
                assertThat(alice.subscribe(channel).get("successful")).as(channel).isEqualTo(true);
            }
            for (String channel : List.of("/users/bob", "/users/*", "/**", "/other")) {
                assertThat(alice.subscribe(channel).get("successful")).as(channel).isEqualTo(false);
            }

            // The extension, the service and a private notification.
            assertThat(alice.publish("/chat/room", "{\"text\":\"hi\"}").get("successful")).isEqualTo(true);
            assertThat(alice.publish("/chat/room", "{\"nope\":1}").get("error")).isEqualTo("404::message_deleted");
            alice.call("{\"channel\":\"/service/echo\",\"id\":\"7\",\"data\":{\"q\":42},\"clientId\":\""
                    + alice.clientId + "\"}");
            users.notify("alice", Map.of("note", "for alice"));
            users.notify("bob", Map.of("note", "for bob"));
            // Connects answered at once (advice timeout 0) until all three arrived, in case one is still on its way.
            await().atMost(WAIT).untilAsserted(() -> {
                alice.connect();
                assertThat(alice.inbox).contains(Map.of("/chat/room", Map.of("text", "hi", "from", "alice")),
                        Map.of("/service/echo", Map.of("echo", Map.of("q", 42L))),
                        Map.of("/users/alice", Map.of("note", "for alice")));
            });
            assertThat(alice.inbox).noneMatch(message -> message.containsKey("/users/bob"));

            // The dequeue listener sends only each stock's newest quote.
            alice.inbox.clear();
            for (int i = 1; i <= 3; i++) {
                feed.getChannel("/quotes/ACME").publish(Map.of("price", i), null);
            }
            for (int i = 1; i <= 2; i++) {
                feed.getChannel("/quotes/INIT").publish(Map.of("price", i), null);
            }
            await().atMost(WAIT).until(() -> aliceSession.getQueueSize() == 5);
            alice.connect();
            assertThat(alice.inbox).containsExactly(Map.of("/quotes/ACME", Map.of("price", 3L)),
                    Map.of("/quotes/INIT", Map.of("price", 2L)));

            // The queue listener drops typing indicators beyond 10 waiting messages.
            alice.inbox.clear();
            for (int i = 0; i < 12; i++) {
                feed.getChannel("/chat/typing").publish(Map.of("text", "typing " + i), null);
            }
            await().atMost(WAIT).until(() -> aliceSession.getQueueSize() == 10);
            alice.connect();
            assertThat(alice.inbox).hasSize(10).allMatch(message -> message.containsKey("/chat/typing"));

            // The max-queue listener (maxQueue 20 here) drops the oldest instead of ending the session.
            alice.inbox.clear();
            for (int i = 0; i < 25; i++) {
                feed.getChannel("/chat/room").publish(Map.of("text", "m" + i), null);
            }
            await().atMost(WAIT).until(() -> aliceSession.getQueueSize() == 20);
            alice.connect();
            assertThat(alice.inbox).hasSize(20).first()
                    .isEqualTo(Map.of("/chat/room", Map.of("text", "m5", "from", "server")));
            assertThat(aliceSession.getState()).isNotEqualTo(ServerSession.State.DISCONNECTED);

            // The session and subscription listeners.
            assertThat(listeners.sessions()).isEqualTo(server.engine.getSessions().size());
            assertThat(listeners.subscriptions()).isEqualTo(server.engine.getSessions().stream()
                    .mapToInt(session -> session.getSubscriptions().size()).sum());
            assertThat(server.engine.getChannel("/chat/presence").isLazy()).isTrue();
        }
    }

    /** A long-polling client speaking raw JSON; every non-meta message with data lands in {@link #inbox}. */
    private static final class Remote {
        private final HttpTestServer server;
        private final List<Map<String, Object>> inbox = new ArrayList<>();
        private String clientId;

        Remote(HttpTestServer server) {
            this.server = server;
        }

        Map<String, Object> subscribe(String channel) {
            return call("{\"channel\":\"/meta/subscribe\",\"subscription\":\"" + channel + "\",\"clientId\":\""
                    + clientId + "\"}");
        }

        Map<String, Object> publish(String channel, String data) {
            return call("{\"channel\":\"" + channel + "\",\"data\":" + data + ",\"clientId\":\"" + clientId + "\"}");
        }

        void connect() {
            call("{\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\",\"advice\":{\"timeout\":0},"
                    + "\"clientId\":\"" + clientId + "\"}");
        }

        /** @return the reply: the first message on the request's channel without data */
        Map<String, Object> call(String json) {
            String channel = (String) ((Map<?, ?>) parse(json)).get("channel");
            Map<String, Object> reply = null;
            for (Map<String, Object> message : server.messages(server.send(server.post("/bayeux", "[" + json + "]")))) {
                String on = (String) message.get("channel");
                if (message.containsKey("data") && !on.startsWith("/meta/")) {
                    inbox.add(Map.of(on, message.get("data")));
                } else if (reply == null && on.equals(channel)) {
                    reply = message;
                }
            }
            assertThat(reply).as("reply to %s", json).isNotNull();
            return reply;
        }

        private Object parse(String json) {
            try {
                return server.codec().parse(json);
            } catch (Exception failure) {
                throw new AssertionError(failure);
            }
        }
    }
}
