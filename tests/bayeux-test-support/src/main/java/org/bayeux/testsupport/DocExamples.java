package org.bayeux.testsupport;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The docs' Java examples are compiled code: each lives in a test source between {@code // BEGIN name} and
 * {@code // END name} comments, and a test checks that the doc shows it word for word as a {@code ```java} block
 * (indentation removed), so that a doc cannot drift from code that compiles and runs.
 *
 * <p>A block that is a fragment (it does not start with its own {@code import} lines) is shown after the imports it
 * needs: the source file's imports whose simple names the fragment uses, in the file's order, then a blank line. A
 * reader can paste the fence into a method and knows where every type comes from.
 */
public final class DocExamples {
    private static final Pattern BLOCK = Pattern.compile("// BEGIN ([a-z-]+)\\n(.*?)\\n\\s*// END \\1",
            Pattern.DOTALL);
    private static final Pattern IMPORT = Pattern.compile("^import (static )?([\\w.]+)\\.(\\w+);$",
            Pattern.MULTILINE);
    private static final Pattern FENCE = Pattern.compile("^```java\\n(.*?)\\n```$", Pattern.DOTALL
            | Pattern.MULTILINE);
    /** Directories that hold no sources of ours: build output, npm packages, VCS data. */
    private static final Set<String> SKIPPED = Set.of("target", "node_modules", ".git", "dist");
    private static final Pattern WORD = Pattern.compile("\\b\\w+\\b");

    private DocExamples() {
    }

    /**
     * @param source a Java source file
     * @return its example blocks by name, in the file's order, each without its common indentation and, if it is a
     *         fragment, after the imports it needs: the text a doc shows between its {@code ```java} fences
     * @throws IOException if the file cannot be read
     */
    public static Map<String, String> blocks(Path source) throws IOException {
        String text = Files.readString(source);
        Map<String, String> blocks = new LinkedHashMap<>();
        Matcher block = BLOCK.matcher(text);
        while (block.find()) {
            String code = dedent(block.group(2));
            blocks.put(block.group(1), code.startsWith("import ") ? code : withImports(text, code));
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

    /**
     * @param doc a Markdown file
     * @return the bodies of its {@code ```java} blocks, in order
     * @throws IOException if the doc cannot be read
     */
    public static List<String> javaFences(Path doc) throws IOException {
        List<String> fences = new ArrayList<>();
        Matcher fence = FENCE.matcher(Files.readString(doc));
        while (fence.find()) {
            fences.add(fence.group(1));
        }
        return fences;
    }

    /**
     * Every example block of the repository's test sources ({@code src/test/java} of every module, compiled by the
     * build), as {@link #blocks} gives them.
     *
     * @param root the repository's root
     * @return the blocks, keyed by {@code path#name}
     * @throws IOException if a file cannot be read
     */
    public static Map<String, String> allBlocks(Path root) throws IOException {
        List<Path> sources = new ArrayList<>();
        walk(root, file -> {
            String path = root.relativize(file).toString().replace('\\', '/');
            if (path.endsWith(".java") && (path.startsWith("src/test/java/") || path.contains("/src/test/java/"))) {
                sources.add(file);
            }
        });
        Collections.sort(sources);
        Map<String, String> all = new LinkedHashMap<>();
        for (Path source : sources) {
            for (Map.Entry<String, String> block : blocks(source).entrySet()) {
                all.put(root.relativize(source).toString().replace('\\', '/') + "#" + block.getKey(),
                        block.getValue());
            }
        }
        return all;
    }

    /**
     * @param root the repository's root
     * @return every Markdown file of the repository: {@code README.md}, {@code docs/}, the modules' READMEs and any
     *         other (build output, npm packages and VCS data left out), sorted
     * @throws IOException if the files cannot be listed
     */
    public static List<Path> docs(Path root) throws IOException {
        List<Path> docs = new ArrayList<>();
        walk(root, file -> {
            if (file.toString().endsWith(".md")) {
                docs.add(file);
            }
        });
        Collections.sort(docs);
        return docs;
    }

    private static void walk(Path root, java.util.function.Consumer<Path> visitor) throws IOException {
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) {
                String name = dir.getFileName() == null ? "" : dir.getFileName().toString();
                return SKIPPED.contains(name) ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
                visitor.accept(file);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    private static String withImports(String source, String code) {
        Set<String> words = new HashSet<>();
        Matcher word = WORD.matcher(code);
        while (word.find()) {
            words.add(word.group());
        }
        StringBuilder imports = new StringBuilder();
        Matcher imported = IMPORT.matcher(source);
        while (imported.find()) {
            if (words.contains(imported.group(3))) {
                imports.append(imported.group()).append('\n');
            }
        }
        return imports.length() == 0 ? code : imports + "\n" + code;
    }

    private static String dedent(String block) {
        List<String> lines = block.lines().collect(Collectors.toList());
        int indent = lines.stream().filter(line -> !line.isBlank())
                .mapToInt(line -> line.length() - line.stripLeading().length()).min().orElse(0);
        return lines.stream().map(line -> line.isBlank() ? "" : line.substring(indent))
                .collect(Collectors.joining("\n"));
    }
}
