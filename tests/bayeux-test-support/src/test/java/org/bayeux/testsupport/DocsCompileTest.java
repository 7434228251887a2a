package org.bayeux.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

/**
 * No Java in the docs that the build does not compile: every {@code ```java} block of the repository's Markdown
 * ({@code README.md}, {@code docs/}, the modules' READMEs, any other) is, word for word, an example block ({@code // BEGIN name} ... {@code // END name}) of a test
 * source of some module, with the imports it needs; and every example block is shown by some doc. Which test runs
 * each example is said next to it in its source and in the doc; this test keeps a new doc snippet from being
 * pasted in untested, and a Java listing that is not meant to compile belongs in a fence of another language.
 */
class DocsCompileTest {
    private static final Path ROOT = Path.of("..", "..");

    @Test
    void everyJavaBlockOfTheDocsIsACompiledExample() throws Exception {
        Map<String, String> blocks = DocExamples.allBlocks(ROOT);
        assertThat(blocks).as("example blocks found under %s", ROOT.toAbsolutePath()).hasSizeGreaterThan(10);
        assertThat(DocExamples.docs(ROOT)).as("the Markdown files looked at")
                .contains(ROOT.resolve("README.md"), ROOT.resolve("docs").resolve("server-guide.md"));
        Set<String> compiled = new HashSet<>(blocks.values());
        Set<String> shown = new HashSet<>();
        List<String> uncovered = new ArrayList<>();
        for (Path doc : DocExamples.docs(ROOT)) {
            for (String fence : DocExamples.javaFences(doc)) {
                shown.add(fence);
                if (!compiled.contains(fence)) {
                    uncovered.add(ROOT.relativize(doc) + ": " + fence.lines().findFirst().orElse(""));
                }
            }
        }
        assertThat(uncovered).as("```java blocks that are no compiled example (word for word, imports first)")
                .isEmpty();
        assertThat(blocks.entrySet().stream().filter(block -> !shown.contains(block.getValue()))
                .map(Map.Entry::getKey)).as("example blocks no doc shows").isEmpty();
    }
}
