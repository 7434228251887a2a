package org.bayeux.server.example;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.bayeux.api.Message;
import org.bayeux.api.server.BayeuxServer;
import org.bayeux.api.server.LocalSession;
import org.bayeux.server.test.EngineHarness;
import org.bayeux.server.test.TestClient;
import org.bayeux.server.test.TestResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Runs the recommended production set-up of docs/security.md ({@link ProductionSecurity}) as a hostile client would. */
class ProductionSecurityTest {
    private final EngineHarness engine = EngineHarness.start();
    /** The application's token check, as docs/security.md calls it: {@code token-<user>} is valid for that user. */
    private final Tokens tokens = token -> token.startsWith("token-") ? token.substring(6) : null;

    ProductionSecurityTest() {
        BayeuxServer server = engine.server();
        // BEGIN production-security
        ProductionSecurity.install(server, token -> tokens.userFor(token));   // your token check: a user id, or null
        // END production-security
    }

    /** Stands for the application's own token store. */
    @FunctionalInterface
    private interface Tokens {
        String userFor(String token);
    }

    @AfterEach
    void stop() {
        engine.close();
    }

    private TestClient user(String name) {
        TestClient client = engine.newClient();
        assertThat(client.handshake(",\"ext\":{\"auth\":{\"token\":\"token-" + name + "\"}}").get("successful"))
                .isEqualTo(true);
        client.firstConnect();
        return client;
    }

    private static List<Object> delivered(TestClient client) {
        return client.call("[" + client.connectMessage(",\"advice\":{\"timeout\":0}") + "]").deliveries().stream()
                .map(m -> m.get("data")).collect(Collectors.toList());
    }

    @Test
    void handshakeWithoutAValidTokenIsRefused() {
        Map<String, Object> none = engine.newClient().handshake();
        Map<String, Object> bad = engine.newClient().handshake(",\"ext\":{\"auth\":{\"token\":\"forged\"}}");
        Map<String, Object> notText = engine.newClient().handshake(",\"ext\":{\"auth\":{\"token\":42}}");
        for (Map<String, Object> reply : List.of(none, bad, notText)) {
            assertThat(reply.get("successful")).isEqualTo(false);
            assertThat(reply.get("error")).isEqualTo("403::handshake_denied");
        }
        assertThat(engine.server().getSessions()).isEmpty();
    }

    @Test
    void remoteSessionsGetNoRootWildcardAndNoChannelOutsideThePublicOnes() {
        TestClient ann = user("ann");
        assertThat(ann.subscribe("/**").get("successful")).isEqualTo(false);
        assertThat(ann.subscribe("/*").get("successful")).isEqualTo(false);
        assertThat(ann.subscribe("/admin/log").get("successful")).isEqualTo(false);
        assertThat(ann.publish("/admin/log", "\"x\"").single("/admin/log").get("successful")).isEqualTo(false);
        assertThat(ann.subscribe("/chat/**").get("successful")).isEqualTo(true);
        TestResponse published = ann.publish("/chat/lobby", "\"hello\"");
        assertThat(published.on("/chat/lobby")).anySatisfy(reply -> assertThat(reply.get("successful")).isEqualTo(true));
        List<Object> received = new ArrayList<>(published.deliveries().stream().map(m -> m.get("data")).toList());
        received.addAll(delivered(ann));
        assertThat(received).containsExactly("hello");
    }

    @Test
    void privateChannelsReachOnlyTheirOwnerAndOnlyTheServerPublishesThere() throws Exception {
        TestClient ann = user("ann");
        TestClient bob = user("bob");
        assertThat(ann.subscribe("/users/ann").get("successful")).isEqualTo(true);
        for (String other : List.of("/users/bob", "/users/*", "/users/**", "/users/*/x")) {
            assertThat(ann.subscribe(other).get("successful")).as(other).isEqualTo(false);
        }
        assertThat(bob.publish("/users/ann", "\"spoof\"").single("/users/ann").get("successful")).isEqualTo(false);

        LocalSession server = engine.server().newLocalSession("notifier");
        CompletableFuture<Message> handshake = new CompletableFuture<>();
        server.handshake(null, (channel, reply) -> handshake.complete(reply));
        assertThat(handshake.get(5, TimeUnit.SECONDS).isSuccessful()).isTrue();
        CompletableFuture<Message> published = new CompletableFuture<>();
        server.getChannel("/users/ann").publish("for ann only", (channel, reply) -> published.complete(reply));
        assertThat(published.get(5, TimeUnit.SECONDS).isSuccessful()).isTrue();
        assertThat(delivered(ann)).containsExactly("for ann only");
        assertThat(delivered(bob)).isEmpty();
    }
}
