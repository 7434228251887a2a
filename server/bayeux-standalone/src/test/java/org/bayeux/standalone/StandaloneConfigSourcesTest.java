package org.bayeux.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where the standalone server's keys come from ({@link ConfigSources}): a {@code --config} properties file, {@code
 * BAYEUX_…} environment variables over it, {@code --set} over both, the flags over everything; a bad value refused
 * naming the key, the value and where it was set; and the generated tables of docs/configuration.md in step.
 */
class StandaloneConfigSourcesTest {
    @TempDir
    Path dir;

    private Path file(String text) throws Exception {
        Path file = dir.resolve("bayeux.properties");
        Files.writeString(file, text);
        return file;
    }

    @Test
    void theFileSetsKeysOfEveryTable() throws Exception {
        Path file = file("# a comment\ntimeout = 7s\nallowedOrigins=https://a.example\ndrainTimeout=45s\n"
                + "maxQueue=123\n");
        StandaloneOptions options = StandaloneOptions.parse(Map.of(), "--config", file.toString());
        assertThat(options.engineConfig.timeout()).isEqualTo(Duration.ofSeconds(7));
        assertThat(options.engineConfig.maxQueue()).isEqualTo(123);
        assertThat(options.transportConfig.allowedOrigins()).containsExactly("https://a.example");
        assertThat(options.shutdown.drainTimeout()).isEqualTo(Duration.ofSeconds(45));
    }

    @Test
    void theEnvironmentOverridesTheFileAndSetOverridesBoth() throws Exception {
        Path file = file("timeout=7s\nmaxQueue=123\ndrainTimeout=45s\n");
        Map<String, String> env = Map.of("BAYEUX_TIMEOUT", "8s", "BAYEUX_MAX_QUEUE", "456", "PATH", "/bin",
                "BAYEUX_HOME", "/opt/bayeux");
        StandaloneOptions options = StandaloneOptions.parse(env, "--config", file.toString(),
                "--set", "maxQueue=789");
        assertThat(options.engineConfig.timeout()).as("env over file").isEqualTo(Duration.ofSeconds(8));
        assertThat(options.engineConfig.maxQueue()).as("--set over env").isEqualTo(789);
        assertThat(options.shutdown.drainTimeout()).as("file alone").isEqualTo(Duration.ofSeconds(45));
        assertThat(StandaloneOptions.parse(Map.of()).engineConfig.timeout()).as("default")
                .isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void theFlagsOverrideEveryOtherSource() throws Exception {
        Path file = file("oort.url=http://127.0.0.1:1/bayeux\n");
        Path secret = dir.resolve("secret");
        Files.writeString(secret, "0123456789abcdef0123456789abcdef");
        // A secret file the server user's alone, as the standalone server requires.
        java.nio.file.Files.setPosixFilePermissions(secret, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        StandaloneOptions options = StandaloneOptions.parse(
                Map.of("BAYEUX_OORT_URL", "http://127.0.0.1:2/bayeux", "BAYEUX_OORT_SECRET_FILE", secret.toString()),
                "--config", file.toString(), "--set", "oort.url=http://127.0.0.1:3/bayeux",
                "--oort-url", "http://127.0.0.1:4/bayeux");
        assertThat(options.oortSettings.url()).isEqualTo("http://127.0.0.1:4/bayeux");
    }

    @Test
    void aBadValueInTheFileIsRefusedNamingKeyValueAndFile() throws Exception {
        Path file = file("timeout=soon\n");
        assertThatThrownBy(() -> StandaloneOptions.parse(Map.of(), "--config", file.toString()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("timeout=soon").hasMessageContaining("--config " + file);
        Path deadline = file("drainTimeout=2h\n");
        assertThatThrownBy(() -> StandaloneOptions.parse(Map.of(), "--config", deadline.toString()))
                .hasMessageContaining("drainTimeout=2h").hasMessageContaining("from 0 to 1h")
                .hasMessageContaining("--config " + deadline);
        Path unknown = file("maxQueu=5\n");
        assertThatThrownBy(() -> StandaloneOptions.parse(Map.of(), "--config", unknown.toString()))
                .hasMessage("--config " + unknown + " maxQueu: unknown option; see docs/configuration.md and "
                        + "docs/cluster.md");
        Path flag = file("port=9000\n");
        assertThatThrownBy(() -> StandaloneOptions.parse(Map.of(), "--config", flag.toString()))
                .hasMessage("--config " + flag + " port: not a key but the command-line flag --port, given on the "
                        + "command line only");
        assertThatThrownBy(() -> StandaloneOptions.parse(Map.of(), "--config", dir.resolve("none")
                .toString())).hasMessageStartingWith("--config " + dir.resolve("none") + ": cannot be read");
    }

    @Test
    void aBadValueInTheEnvironmentIsRefusedNamingTheVariable() throws Exception {
        Path file = file("drainTimeout=5s\n");
        assertThatThrownBy(() -> StandaloneOptions.parse(Map.of("BAYEUX_DRAIN_TIMEOUT", "-1s"),
                "--config", file.toString()))
                .hasMessageContaining("drainTimeout=-1s").hasMessageContaining("(set by BAYEUX_DRAIN_TIMEOUT)");
        assertThatThrownBy(() -> StandaloneOptions.parse(Map.of("BAYEUX_MAX_QUEU", "5")))
                .hasMessageStartingWith("BAYEUX_MAX_QUEU: not a configuration variable");
        assertThatThrownBy(() -> StandaloneOptions.parse(Map.of("BAYEUX_OORT_SECRET", "x")))
                .hasMessageStartingWith("BAYEUX_OORT_SECRET (oort.secret): give the secret in a file");
        assertThatThrownBy(() -> StandaloneOptions.parse(Map.of(), "--set", "drainRetryInterval=soon"))
                .hasMessageContaining("drainRetryInterval=soon").hasMessageNotContaining("set by");
    }

    /** The process itself: {@code bin/bayeux server --config FILE} with a bad value exits with 2, naming it. */
    @Test
    void theServerProcessRefusesABadValueNamingItAndExits() throws Exception {
        Path file = file("timeout=20s\ndrainTimeout=forever\n");
        ProcessResult bad = runServer(Map.of(), "--config", file.toString());
        assertThat(bad.code()).isEqualTo(2);
        assertThat(bad.output()).contains("bayeux: Invalid configuration: drainTimeout=forever")
                .contains("(set by --config " + file + ")").doesNotContain("Starting:");

        Path good = file("timeout=20s\n");
        ProcessResult env = runServer(Map.of("BAYEUX_TIMEOUT", "soon"), "--config", good.toString());
        assertThat(env.code()).isEqualTo(2);
        assertThat(env.output()).contains("timeout=soon").contains("(set by BAYEUX_TIMEOUT)");
    }

    private record ProcessResult(int code, String output) {
    }

    private ProcessResult runServer(Map<String, String> env, String... args) throws Exception {
        java.util.List<String> command = new java.util.ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx64m", "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                StandaloneServer.class.getName(), "--port", "0", "--host", "127.0.0.1"));
        command.addAll(List.of(args));
        Path output = dir.resolve("server-" + System.nanoTime() + ".log");
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile());
        builder.environment().keySet().removeIf(name -> name.startsWith(ConfigSources.ENV_PREFIX));
        builder.environment().putAll(env);
        Process process = builder.start();
        try {
            assertThat(process.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).as("exited").isTrue();
            return new ProcessResult(process.exitValue(), Files.readString(output));
        } finally {
            process.destroyForcibly(); // by its PID, if it is still there
        }
    }

    @Test
    void everyKeyHasItsOwnVariable() {
        Set<String> names = new HashSet<>();
        ConfigSources.keys().keySet().forEach(key -> assertThat(names.add(ConfigSources.envName(key)))
                .as("%s's variable %s is another key's too", key, ConfigSources.envName(key)).isTrue());
        assertThat(ConfigSources.envName("maxQueue")).isEqualTo("BAYEUX_MAX_QUEUE");
        assertThat(ConfigSources.envName("oort.secretFile")).isEqualTo("BAYEUX_OORT_SECRET_FILE");
        assertThat(ConfigSources.envName("wsMaxOutgoingFrameBytes")).isEqualTo("BAYEUX_WS_MAX_OUTGOING_FRAME_BYTES");
        assertThat(names).doesNotContainAnyElementsOf(ConfigSources.NOT_KEYS);
    }

    @Test
    void theDocumentationTablesMatchTheCode() throws Exception {
        String doc = Files.readString(Path.of("..", "..", "docs", "configuration.md"));
        for (List<String> table : List.of(List.of("standalone server options", ShutdownSettings.markdownTable()),
                List.of("how keys are set", ConfigSources.markdownTable()))) {
            String begin = "<!-- BEGIN GENERATED: " + table.get(0) + " -->";
            String end = "<!-- END GENERATED: " + table.get(0) + " -->";
            assertThat(doc).contains(begin).contains(end);
            String inDoc = doc.substring(doc.indexOf(begin) + begin.length(), doc.indexOf(end)).strip();
            assertThat(inDoc).as("docs/configuration.md is out of date; replace the table with:%n%s", table.get(1))
                    .isEqualTo(table.get(1).strip());
        }
    }
}
