package org.bayeux.backplane.redis.example;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.Message;
import org.bayeux.api.server.LocalSession;
import org.bayeux.backplane.redis.RedisBackplane;
import org.bayeux.backplane.redis.RedisProcess;
import org.bayeux.server.BayeuxEngine;
import org.bayeux.testsupport.DocExamples;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/cluster.md} shows the compiled fragments of {@link RedisDocSnippets} word for word, and they work on a
 * redis-server of the test's own: a message published on the embedded engine reaches a second node through Redis,
 * and the presence fragment names the second node's subscriber.
 */
class RedisDocsTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Path DOC = Path.of("..", "..", "docs", "cluster.md");
    private static final Path SNIPPETS = Path.of("src", "test", "java", "org", "bayeux", "backplane", "redis", "example",
            "RedisDocSnippets.java");

    @Test
    void theClusterGuideShowsTheCompiledRedisFragments() throws Exception {
        Map<String, String> blocks = DocExamples.blocks(SNIPPETS);
        assertThat(blocks.keySet()).containsExactly("redis-embedding", "redis-presence");
        assertThat(DocExamples.notShown(DOC, blocks)).as("docs/cluster.md shows these as compiled").isEmpty();
    }

    @Test
    void theFragmentsRunOnRedis() throws Exception {
        try (RedisProcess redis = RedisProcess.start()) {
            BayeuxEngine embedded = RedisDocSnippets.embedding(redis.uri());
            RedisBackplane backplane = RedisBackplane.builder().uri(redis.uri()).build();
            BayeuxEngine other = BayeuxEngine.create();
            other.setCluster(backplane);
            other.start();
            try {
                await("the second node reads from Redis").atMost(WAIT).until(backplane::isConnected);
                CompletableFuture<Object> received = new CompletableFuture<>();
                LocalSession subscriber = connected(other, "subscriber");
                CompletableFuture<Message> subscribed = new CompletableFuture<>();
                subscriber.getChannel("/chat/room").subscribe(
                        (channel, message) -> received.complete(message.getData()),
                        (channel, reply) -> subscribed.complete(reply));
                assertThat(subscribed.get(WAIT.toSeconds(), TimeUnit.SECONDS).isSuccessful()).isTrue();
                CompletableFuture<Message> published = new CompletableFuture<>();
                connected(embedded, "publisher").getChannel("/chat/room").publish("through Redis",
                        (channel, reply) -> published.complete(reply));
                assertThat(published.get(WAIT.toSeconds(), TimeUnit.SECONDS).isSuccessful()).isTrue();
                assertThat(received.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo("through Redis");

                String id = subscriber.getServerSession().getId();
                await("presence names the subscriber").atMost(WAIT).until(() -> RedisDocSnippets.presence(backplane)
                        .toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS)
                        .equals(Map.of(id, backplane.nodeId())));
            } finally {
                try {
                    other.stop();
                } finally {
                    embedded.stop();
                }
            }
        }
    }

    private static LocalSession connected(BayeuxEngine engine, String name) throws Exception {
        LocalSession session = engine.newLocalSession(name);
        CompletableFuture<Message> reply = new CompletableFuture<>();
        session.handshake(null, (channel, message) -> reply.complete(message));
        assertThat(reply.get(WAIT.toSeconds(), TimeUnit.SECONDS).isSuccessful()).isTrue();
        return session;
    }
}
