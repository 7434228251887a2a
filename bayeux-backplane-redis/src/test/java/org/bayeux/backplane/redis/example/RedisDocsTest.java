package org.bayeux.backplane.redis.example;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;

import org.bayeux.testsupport.DocExamples;
import org.junit.jupiter.api.Test;

/** {@code docs/cluster.md} shows the compiled fragments of {@link RedisDocSnippets} word for word. */
class RedisDocsTest {
    private static final Path DOC = Path.of("..", "docs", "cluster.md");
    private static final Path SNIPPETS = Path.of("src", "test", "java", "org", "bayeux", "backplane", "redis", "example",
            "RedisDocSnippets.java");

    @Test
    void theClusterGuideShowsTheCompiledRedisFragments() throws Exception {
        Map<String, String> blocks = DocExamples.blocks(SNIPPETS);
        assertThat(blocks.keySet()).containsExactly("redis-embedding", "redis-presence");
        assertThat(DocExamples.notShown(DOC, blocks)).as("docs/cluster.md shows these as compiled").isEmpty();
    }
}
