package org.bayeux.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The source tree kept to the shape {@code docs/architecture.md} draws, from the build files themselves: what
 * {@link ArchitectureTest} checks between packages, this checks between modules and folders, so that a newcomer who
 * reads only the tree can say where a piece belongs. Only dependencies a module ships with count (no {@code test}
 * scope): tests may reach anything.
 */
class ModuleTreeTest {
    private static final Path ROOT = Path.of("..", "..");
    private static final Pattern MODULE = Pattern.compile("<module>([^<]+)</module>");
    private static final Pattern DEPENDENCY = Pattern.compile("<dependency>(.*?)</dependency>", Pattern.DOTALL);

    /** The folders of the tree and, for each, the folders its modules may depend on (besides their own). */
    private static final Map<String, Set<String>> ALLOWED = new LinkedHashMap<>();

    static {
        ALLOWED.put("bayeux-api", Set.of());
        ALLOWED.put("codecs", Set.of("bayeux-api"));
        ALLOWED.put("bayeux-server", Set.of("bayeux-api", "codecs"));
        ALLOWED.put("transports", Set.of("bayeux-api", "codecs", "bayeux-server"));
        ALLOWED.put("clients", Set.of("bayeux-api", "codecs"));
        ALLOWED.put("cluster", Set.of("bayeux-api", "codecs", "bayeux-server", "clients"));
        ALLOWED.put("server", Set.of("bayeux-api", "codecs", "bayeux-server", "transports", "clients", "cluster"));
        ALLOWED.put("examples", Set.of("bayeux-api", "codecs", "bayeux-server", "transports", "clients", "cluster",
                "server"));
        ALLOWED.put("tools", Set.of("bayeux-api", "codecs", "bayeux-server", "transports", "clients", "cluster",
                "server"));
        ALLOWED.put("tests", Set.of());
    }

    private static final Map<String, Module> MODULES = new LinkedHashMap<>();
    private static Set<String> bom;

    record Module(String folder, Path dir, String artifactId, boolean published, List<String> shippedDependencies) {
        String group() {
            return folder.contains("/") ? folder.substring(0, folder.indexOf('/')) : folder;
        }
    }

    @BeforeAll
    static void readTheTree() throws IOException {
        String root = Files.readString(ROOT.resolve("pom.xml"));
        Matcher modules = MODULE.matcher(root);
        while (modules.find()) {
            String folder = modules.group(1);
            if (!folder.equals("bayeux-bom")) {
                Module module = read(folder, ROOT.resolve(folder), true);
                MODULES.put(module.artifactId(), module);
            }
        }
        // The examples outside the reactor (built against the published repository) count as examples too.
        try (Stream<Path> examples = Files.list(ROOT.resolve("examples"))) {
            for (Path dir : examples.filter(d -> Files.isRegularFile(d.resolve("pom.xml"))).toList()) {
                String folder = "examples/" + dir.getFileName();
                if (MODULES.values().stream().noneMatch(m -> m.folder().equals(folder))) {
                    Module module = read(folder, dir, false);
                    MODULES.put(module.artifactId(), module);
                }
            }
        }
        bom = new LinkedHashSet<>(artifactIds(dependencyManagement(Files.readString(
                ROOT.resolve("bayeux-bom").resolve("pom.xml")))));
        assertThat(MODULES).as("modules read from the root pom").hasSizeGreaterThan(15);
    }

    @Test
    void everyFolderIsNamedAfterItsArtifact() {
        for (Module module : MODULES.values()) {
            assertThat(module.dir().getFileName().toString()).as(module.folder()).isEqualTo(module.artifactId());
        }
    }

    @Test
    void everyModuleSitsInAFolderOfTheTree() {
        for (Module module : MODULES.values()) {
            assertThat(ALLOWED).as("%s: a folder of the tree drawn in docs/architecture.md", module.folder())
                    .containsKey(module.group());
        }
    }

    @Test
    void whatIsPublishedIsTheBomAndNamedBayeux() {
        Set<String> published = new LinkedHashSet<>();
        for (Module module : MODULES.values()) {
            if (module.published()) {
                published.add(module.artifactId());
                assertThat(module.artifactId()).as(module.folder()).startsWith("bayeux-");
                assertThat(module.group()).as("%s is published, so it is a library or the server, not an example, "
                        + "a tool or a test", module.folder()).isNotIn("examples", "tools", "tests");
            }
        }
        assertThat(published).as("published modules (those without maven.deploy.skip) against the BOM")
                .containsExactlyInAnyOrderElementsOf(bom);
    }

    @Test
    void arrowsRunDownTheTree() {
        List<String> wrong = new ArrayList<>();
        for (Module module : MODULES.values()) {
            for (String dependency : module.shippedDependencies()) {
                Module target = MODULES.get(dependency);
                if (target == null || target.group().equals(module.group())
                        && !module.group().equals("cluster")) {
                    continue;
                }
                if (!ALLOWED.get(module.group()).contains(target.group())) {
                    wrong.add(module.folder() + " -> " + target.folder());
                }
            }
        }
        assertThat(wrong).as("dependencies against the tree's arrows (cluster modules do not depend on each other)")
                .isEmpty();
    }

    @Test
    void onlyTheServerJoinsTransportsAndClusters() {
        for (Module module : MODULES.values()) {
            Set<String> groups = new LinkedHashSet<>();
            for (String dependency : module.shippedDependencies()) {
                Module target = MODULES.get(dependency);
                if (target != null) {
                    groups.add(target.group());
                }
            }
            if (groups.contains("transports") && groups.contains("cluster")) {
                assertThat(module.group()).as("%s depends on both a transport and a cluster module",
                        module.folder()).isEqualTo("server");
            }
        }
    }

    @Test
    void examplesUseOnlyPublishedArtifacts() {
        for (Module module : MODULES.values()) {
            if (module.group().equals("examples")) {
                assertThat(bom).as("%s may depend on published artifacts only", module.folder())
                        .containsAll(module.shippedDependencies().stream()
                                .filter(a -> a.startsWith("bayeux-") && !a.equals("bayeux-bom")).toList());
            }
        }
    }

    private static Module read(String folder, Path dir, boolean inReactor) throws IOException {
        String pom = Files.readString(dir.resolve("pom.xml"));
        String own = pom.replaceAll("(?s)<parent>.*?</parent>", "")
                .replaceAll("(?s)<dependencyManagement>.*?</dependencyManagement>", "")
                .replaceAll("(?s)<build>.*?</build>", "")
                .replaceAll("(?s)<profiles>.*?</profiles>", "");
        Matcher artifact = Pattern.compile("<artifactId>([^<]+)</artifactId>").matcher(own);
        assertThat(artifact.find()).as(folder).isTrue();
        List<String> shipped = new ArrayList<>();
        Matcher dependencies = DEPENDENCY.matcher(own);
        while (dependencies.find()) {
            String dependency = dependencies.group(1);
            boolean ours = dependency.contains("<groupId>org.bayeux</groupId>")
                    || dependency.contains("<groupId>${project.groupId}</groupId>");
            if (ours && !dependency.contains("<scope>test</scope>")) {
                shipped.addAll(artifactIds(dependency));
            }
        }
        boolean published = inReactor && !own.contains("<maven.deploy.skip>true</maven.deploy.skip>");
        return new Module(folder, dir, artifact.group(1), published, shipped);
    }

    private static String dependencyManagement(String pom) {
        Matcher section = Pattern.compile("(?s)<dependencyManagement>(.*?)</dependencyManagement>").matcher(pom);
        assertThat(section.find()).as("the BOM's dependencyManagement").isTrue();
        return section.group(1);
    }

    private static List<String> artifactIds(String xml) {
        List<String> ids = new ArrayList<>();
        Matcher matcher = Pattern.compile("<artifactId>([^<]+)</artifactId>").matcher(xml);
        while (matcher.find()) {
            ids.add(matcher.group(1));
        }
        return ids;
    }
}
