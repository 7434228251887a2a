package org.bayeux.oort.example;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;

import org.bayeux.testsupport.DocExamples;
import org.junit.jupiter.api.Test;

/** {@code docs/cluster.md} shows the compiled fragments of {@link OortDocSnippets} word for word. */
class OortDocsTest {
    private static final Path DOC = Path.of("..", "docs", "cluster.md");
    private static final Path SNIPPETS = Path.of("src", "test", "java", "org", "bayeux", "oort", "example",
            "OortDocSnippets.java");

    @Test
    void theClusterGuideShowsTheCompiledFragments() throws Exception {
        Map<String, String> blocks = DocExamples.blocks(SNIPPETS);
        assertThat(blocks.keySet()).containsExactly("oort-embedding", "oort-objects");
        assertThat(DocExamples.notShown(DOC, blocks)).as("docs/cluster.md shows these as compiled").isEmpty();
    }
}
