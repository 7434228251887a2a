package org.bayeux.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 31's findings on secrets: {@code admin.token} was visible in {@code /proc/PID/cmdline} when set with
 * {@code --set} as the docs showed, and secret files readable by anyone were accepted silently. The token now comes
 * from {@code admin.tokenFile} (or the environment, or a private {@code --config} file), {@code --set admin.token} is
 * refused as {@code oort.secret} is, and a secret file readable or writable by group or others refuses the start
 * unless {@code --allow-readable-secret-files} turns the refusal into a warning.
 */
class StandaloneSecretFilesTest {
    private static final String TOKEN = "an-admin-token-of-at-least-32-characters-for-the-test";
    private static final String OORT_SECRET = "a-shared-secret-of-more-than-32-bytes-for-the-test";
    private static final Pattern LISTENING = Pattern.compile("Listening on http://127\\.0\\.0\\.1:(\\d+)/");

    @TempDir
    Path dir;

    private Path file(String name, String text, String permissions) throws Exception {
        Path file = dir.resolve(name);
        Files.writeString(file, text, StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(permissions));
        return file;
    }

    /** The process: the token on its command line is refused before anything starts, and never echoed. */
    @Test
    void theAdminTokenOnTheCommandLineIsRefused() throws Exception {
        Path log = dir.resolve("refused.log");
        Process process = start(log, "--set", "admin.token=" + TOKEN);
        try {
            assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("the process exited").isTrue();
            assertThat(process.exitValue()).isEqualTo(2);
            assertThat(Files.readString(log)).contains("--set admin.token: give the token in a file")
                    .contains("admin.tokenFile").doesNotContain(TOKEN).doesNotContain("Starting:");
        } finally {
            process.destroyForcibly();
        }
        assertThatThrownBy(() -> StandaloneOptions.parse(Map.of(), "--set", "admin.token=" + TOKEN))
                .hasMessageStartingWith("--set admin.token: give the token in a file").hasMessageNotContaining(TOKEN);
    }

    /** The process with admin.tokenFile: the admin page is on, and the token is nowhere in /proc/PID/cmdline. */
    @Test
    void aTokenFileKeepsTheTokenOffTheCommandLine() throws Exception {
        Path tokenFile = file("admin.token", TOKEN + "\n", "rw-------");
        Path log = dir.resolve("running.log");
        Process process = start(log, "--set", "admin.tokenFile=" + tokenFile);
        try {
            Awaitility.await("the server listening").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                    .until(() -> LISTENING.matcher(Files.readString(log)).find() || !process.isAlive());
            Matcher listening = LISTENING.matcher(Files.readString(log));
            assertThat(listening.find()).as("started: %s", Files.readString(log)).isTrue();
            Path cmdline = Path.of("/proc", String.valueOf(process.pid()), "cmdline");
            if (Files.exists(cmdline)) {
                assertThat(new String(Files.readAllBytes(cmdline), StandardCharsets.UTF_8)).contains("admin.tokenFile")
                        .doesNotContain(TOKEN);
            }
            HttpResponse<String> page = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                    "http://127.0.0.1:" + listening.group(1) + "/admin/")).timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(page.statusCode()).as("the admin page is on").isEqualTo(200);
            assertThat(Files.readString(log)).doesNotContain(TOKEN);
        } finally {
            process.destroy(); // this process, by its PID
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }

    @Test
    void theTokenFileIsReadAndChecked() throws Exception {
        Path tokenFile = file("admin.token", TOKEN + "\r\n", "r--------");
        assertThat(StandaloneOptions.parse(Map.of(), "--set", "admin.tokenFile=" + tokenFile).operations.adminToken())
                .isEqualTo(TOKEN);
        assertThat(StandaloneOptions.parse(Map.of("BAYEUX_ADMIN_TOKEN_FILE", tokenFile.toString())).operations
                .adminToken()).isEqualTo(TOKEN);
        Path shortToken = file("short.token", "short-but-secret\n", "rw-------");
        assertThatThrownBy(() -> StandaloneOptions.parse(Map.of(), "--set", "admin.tokenFile=" + shortToken))
                .hasMessageContaining("admin.tokenFile=" + shortToken).hasMessageContaining("at least 32 characters")
                .hasMessageNotContaining("short-but-secret");
        assertThatThrownBy(() -> StandaloneOptions.parse(Map.of(), "--set", "admin.tokenFile=" + dir.resolve("absent")))
                .hasMessageContaining("admin.tokenFile=" + dir.resolve("absent"));
        assertThatThrownBy(() -> StandaloneOptions.parse(Map.of("BAYEUX_ADMIN_TOKEN", TOKEN), "--set",
                "admin.tokenFile=" + tokenFile)).hasMessageContaining("admin.token and admin.tokenFile")
                .hasMessageNotContaining(TOKEN);
    }

    @Test
    void secretFilesReadableByOthersAreRefused() throws Exception {
        Path oortSecret = file("oort.secret", OORT_SECRET, "rw-rw-rw-");
        assertThatThrownBy(() -> StandaloneOptions.parse(Map.of(), "--oort-url", "http://127.0.0.1:0/bayeux",
                "--oort-secret-file", oortSecret.toString())).hasMessageContaining("oort.secretFile " + oortSecret)
                .hasMessageContaining("rw-rw-rw-");

        Path tokenFile = file("admin.token", TOKEN + "\n", "rw-r--r--");
        assertThatThrownBy(() -> StandaloneOptions.parse(Map.of(), "--set", "admin.tokenFile=" + tokenFile))
                .hasMessageContaining("admin.tokenFile " + tokenFile).hasMessageContaining("rw-r--r--")
                .hasMessageContaining("chmod 600").hasMessageContaining("--allow-readable-secret-files");
        Path groupFile = file("group.token", TOKEN + "\n", "rw-r-----");
        assertThatThrownBy(() -> StandaloneOptions.parse(Map.of(), "--set", "admin.tokenFile=" + groupFile))
                .hasMessageContaining("rw-r-----");

        Path password = file("tls.password", "password\n", "rw-r--r--");
        assertThatThrownBy(() -> StandaloneOptions.parse(Map.of(), "--tls-keystore", dir.resolve("x.p12").toString(),
                "--tls-password-file", password.toString())).hasMessageContaining("--tls-password-file " + password)
                .hasMessageContaining("rw-r--r--");

        // A --config file is a secret file when it holds the token.
        Path config = file("bayeux.properties", "admin.token=" + TOKEN + "\n", "rw-r--r--");
        assertThatThrownBy(() -> StandaloneOptions.parse(Map.of(), "--config", config.toString()))
                .hasMessageContaining("--config " + config).hasMessageContaining("admin.token")
                .hasMessageNotContaining(TOKEN);
        Path plainConfig = file("plain.properties", "timeout=7s\n", "rw-r--r--");
        assertThat(StandaloneOptions.parse(Map.of(), "--config", plainConfig.toString()).engineConfig.timeout())
                .as("a config file without secrets may be read by anyone").isEqualTo(Duration.ofSeconds(7));
    }

    @Test
    void theRefusalCanBeTurnedIntoAWarning() throws Exception {
        Path tokenFile = file("admin.token", TOKEN + "\n", "rw-r--r--");
        assertThat(StandaloneOptions.parse(Map.of(), "--allow-readable-secret-files", "--set",
                "admin.tokenFile=" + tokenFile).operations.adminToken()).isEqualTo(TOKEN);
        Path oortSecret = file("oort.secret", OORT_SECRET, "rw-r--r--");
        assertThat(StandaloneOptions.parse(Map.of(), "--allow-readable-secret-files", "--oort-url",
                "http://127.0.0.1:0/bayeux", "--oort-secret-file", oortSecret.toString()).oortSettings).isNotNull();
    }

    private Process start(Path log, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx64m", "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                StandaloneServer.class.getName(), "--port", "0", "--host", "127.0.0.1"));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().keySet().removeIf(name -> name.startsWith(ConfigSources.ENV_PREFIX));
        return builder.start();
    }
}
