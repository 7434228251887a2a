package org.bayeux.oort.example;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.Message;
import org.bayeux.api.server.LocalSession;
import org.bayeux.oort.Oort;
import org.bayeux.server.BayeuxEngine;
import org.bayeux.testsupport.DocExamples;
import org.bayeux.transport.http.TransportConfig;
import org.bayeux.transport.jetty.BayeuxEndpoint;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code docs/cluster.md} shows the compiled fragments of {@link OortDocSnippets} word for word, and they work: a
 * node embedded as the first shows and one with Seti and replicated objects as the second mesh on loopback, and a
 * message published on the second reaches a subscriber of the first.
 */
class OortDocsTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    @TempDir
    Path dir;
    private static final Path DOC = Path.of("..", "..", "docs", "cluster.md");
    private static final Path SNIPPETS = Path.of("src", "test", "java", "org", "bayeux", "oort", "example",
            "OortDocSnippets.java");

    @Test
    void theClusterGuideShowsTheCompiledFragments() throws Exception {
        Map<String, String> blocks = DocExamples.blocks(SNIPPETS);
        assertThat(blocks.keySet()).containsExactly("oort-embedding", "oort-objects");
        assertThat(DocExamples.notShown(DOC, blocks)).as("docs/cluster.md shows these as compiled").isEmpty();
    }

    @Test
    void theFragmentsMakeTwoNodesThatMeshAndCarryAMessage() throws Exception {
        Path secretFile = dir.resolve("oort.secret");
        Files.writeString(secretFile, "0123456789abcdef0123456789abcdef-doc-secret");
        Server jettyA = bound();
        Server jettyB = bound();
        try {
            String urlA = url(jettyA);
            String urlB = url(jettyB);
            Oort a = OortDocSnippets.embedding(jettyA, urlA, urlB, secretFile);
            BayeuxEngine engineB = BayeuxEngine.create();
            BayeuxEndpoint.mount(jettyB, "/bayeux", engineB, TransportConfig.defaults());
            Oort b = OortDocSnippets.objects(engineB, jettyB, urlB, List.of(urlA), Files.readAllBytes(secretFile));
            await("the two nodes meshed").atMost(WAIT).until(() -> a.messaging().members().size() == 1
                    && b.messaging().members().size() == 1);
            assertThat(a.members()).extracting(member -> member.id()).containsExactly(b.id());

            CompletableFuture<Object> received = new CompletableFuture<>();
            LocalSession subscriber = connected(a.engine(), "subscriber");
            CompletableFuture<Message> subscribed = new CompletableFuture<>();
            subscriber.getChannel("/chat/room").subscribe((channel, message) -> received.complete(message.getData()),
                    (channel, reply) -> subscribed.complete(reply));
            assertThat(subscribed.get(WAIT.toSeconds(), TimeUnit.SECONDS).isSuccessful()).isTrue();
            // A observes /chat/**; until B has learnt that, a publish may stay on B: publish until one arrives.
            LocalSession publisher = connected(engineB, "publisher");
            await("a message from B reaches A's subscriber").atMost(WAIT).pollInterval(Duration.ofMillis(200))
                    .until(() -> {
                        publisher.getChannel("/chat/room").publish("hello from B", null);
                        return received.isDone();
                    });
            assertThat(received.get()).isEqualTo("hello from B");
        } finally {
            try {
                jettyB.stop();
            } finally {
                jettyA.stop();
            }
        }
    }

    /** A Jetty server bound to a free loopback port (so that its URL is known), not started. */
    private static Server bound() throws Exception {
        Server jetty = new Server();
        ServerConnector connector = new ServerConnector(jetty);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        jetty.addConnector(connector);
        connector.open();
        return jetty;
    }

    private static String url(Server jetty) {
        return "http://127.0.0.1:" + ((ServerConnector) jetty.getConnectors()[0]).getLocalPort() + "/bayeux";
    }

    private static LocalSession connected(BayeuxEngine engine, String name) throws Exception {
        LocalSession session = engine.newLocalSession(name);
        CompletableFuture<Message> reply = new CompletableFuture<>();
        session.handshake(null, (channel, message) -> reply.complete(message));
        assertThat(reply.get(WAIT.toSeconds(), TimeUnit.SECONDS).isSuccessful()).isTrue();
        return session;
    }
}
