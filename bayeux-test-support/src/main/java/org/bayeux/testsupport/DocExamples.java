package org.bayeux.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The docs' Java examples are compiled code: each lives in a test source between {@code // BEGIN name} and
 * {@code // END name} comments, and a test checks that the doc shows it word for word as a {@code ```java} block
 * (indentation removed), so that a doc cannot drift from code that compiles and runs.
 */
public final class DocExamples {
    private static final Pattern BLOCK = Pattern.compile("// BEGIN ([a-z-]+)\\n(.*?)\\n\\s*// END \\1",
            Pattern.DOTALL);

    private DocExamples() {
    }

    /**
     * @param source a Java source file
     * @return its example blocks by name, in the file's order, each without its common indentation
     * @throws IOException if the file cannot be read
     */
    public static Map<String, String> blocks(Path source) throws IOException {
        Map<String, String> blocks = new LinkedHashMap<>();
        Matcher block = BLOCK.matcher(Files.readString(source));
        while (block.find()) {
            blocks.put(block.group(1), dedent(block.group(2)));
        }
        return blocks;
    }

    /**
     * @param doc a Markdown file
     * @param blocks example blocks by name ({@link #blocks})
     * @return the names of the blocks the doc does not show word for word as a {@code ```java} block
     * @throws IOException if the doc cannot be read
     */
    public static List<String> notShown(Path doc, Map<String, String> blocks) throws IOException {
        String text = Files.readString(doc);
        List<String> missing = new ArrayList<>();
        blocks.forEach((name, code) -> {
            if (!text.contains("```java\n" + code + "\n```")) {
                missing.add(name);
            }
        });
        return missing;
    }

    private static String dedent(String block) {
        List<String> lines = block.lines().collect(Collectors.toList());
        int indent = lines.stream().filter(line -> !line.isBlank())
                .mapToInt(line -> line.length() - line.stripLeading().length()).min().orElse(0);
        return lines.stream().map(line -> line.isBlank() ? "" : line.substring(indent))
                .collect(Collectors.joining("\n"));
    }
}
