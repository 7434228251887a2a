package org.bayeux.backplane.redis.example;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code docs/cluster.md} shows the compiled fragments of {@link RedisDocSnippets} word for word. */
class RedisDocsTest {
    private static final Path DOC = Path.of("..", "docs", "cluster.md");
    private static final Path SNIPPETS = Path.of("src", "test", "java", "org", "bayeux", "backplane", "redis", "example",
            "RedisDocSnippets.java");
    private static final Pattern BLOCK = Pattern.compile("// BEGIN ([a-z-]+)\\n(.*?)\\n\\s*// END \\1",
            Pattern.DOTALL);

    @Test
    void theClusterGuideShowsTheCompiledRedisFragments() throws Exception {
        String doc = Files.readString(DOC);
        Matcher block = BLOCK.matcher(Files.readString(SNIPPETS));
        List<String> names = new ArrayList<>();
        while (block.find()) {
            names.add(block.group(1));
            assertThat(doc).as("docs/cluster.md shows '%s' as compiled", block.group(1))
                    .contains("```java\n" + dedent(block.group(2)) + "\n```");
        }
        assertThat(names).containsExactly("redis-embedding", "redis-presence");
    }

    private static String dedent(String block) {
        List<String> lines = block.lines().collect(Collectors.toList());
        int indent = lines.stream().filter(line -> !line.isBlank())
                .mapToInt(line -> line.length() - line.stripLeading().length()).min().orElse(0);
        return lines.stream().map(line -> line.isBlank() ? "" : line.substring(indent))
                .collect(Collectors.joining("\n"));
    }
}
