package org.bayeux.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.StringRequestContent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StandaloneServerTest {
    private final HttpClient client = new HttpClient();

    @BeforeEach
    void startClient() throws Exception {
        client.start();
    }

    @AfterEach
    void stopClient() throws Exception {
        client.stop();
    }

    @Test
    void servesTheEndpointAndNothingAtTheRootWithoutStaticFiles() throws Exception {
        try (StandaloneServer server = new StandaloneServer(StandaloneOptions
                .parse("--set", "timeout=5s", "--set", "allowedOrigins=http://a.example").port(0).host("127.0.0.1"))) {
            String base = "http://127.0.0.1:" + server.getPort();
            assertThat(client.GET(base + "/").getStatus()).as("no built-in page").isEqualTo(404);
            assertThat(server.getApplications()).as("no built-in application").isEmpty();
            ContentResponse handshake = client.newRequest(base + "/bayeux/handshake").method("POST")
                    .body(new StringRequestContent("application/json", "[{\"channel\":\"/meta/handshake\","
                            + "\"version\":\"1.0\",\"supportedConnectionTypes\":[\"long-polling\"]}]")).send();
            assertThat(handshake.getStatus()).isEqualTo(200);
            assertThat(handshake.getContentAsString()).contains("\"successful\":true");
            assertThat(server.getEngine().getConfig().timeout()).isEqualTo(Duration.ofSeconds(5));
        }
    }

    @Test
    void servesAStaticFolder(@TempDir Path folder) throws Exception {
        Files.writeString(folder.resolve("hello.txt"), "hello");
        try (StandaloneServer server = new StandaloneServer(StandaloneOptions
                .parse("--static", folder.toString()).port(0).host("127.0.0.1"))) {
            ContentResponse file = client.GET("http://127.0.0.1:" + server.getPort() + "/hello.txt");
            assertThat(file.getContentAsString()).isEqualTo("hello");
        }
    }

    /**
     * Issue 31's finding: {@code --static} listed folders and served dot-files ({@code .env}). Neither now, however the
     * path is spelled; a symbolic link out of the folder is not followed either.
     */
    @Test
    void aStaticFolderListsNothingAndHidesDotFiles(@TempDir Path folder, @TempDir Path outside) throws Exception {
        Files.writeString(folder.resolve("hello.txt"), "hello");
        Files.writeString(folder.resolve(".env"), "DB_PASSWORD=secret");
        Files.createDirectories(folder.resolve(".git"));
        Files.writeString(folder.resolve(".git/config"), "[remote]");
        Files.createDirectories(folder.resolve("sub"));
        Files.writeString(folder.resolve("sub/a.txt"), "a");
        Files.writeString(folder.resolve("sub/.htpasswd"), "admin:x");
        Files.createDirectories(folder.resolve(".well-known"));
        Files.writeString(folder.resolve(".well-known/security.txt"), "Contact: a@example.com");
        Files.writeString(outside.resolve("private.txt"), "private");
        Files.createSymbolicLink(folder.resolve("link.txt"), outside.resolve("private.txt"));
        try (StandaloneServer server = new StandaloneServer(StandaloneOptions
                .parse("--static", folder.toString()).port(0).host("127.0.0.1"))) {
            String base = "http://127.0.0.1:" + server.getPort();
            assertThat(client.GET(base + "/hello.txt").getContentAsString()).isEqualTo("hello");
            assertThat(client.GET(base + "/sub/a.txt").getContentAsString()).isEqualTo("a");
            for (String hidden : new String[] {"/.env", "/.git/config", "/sub/.htpasswd", "/%2eenv", "/sub/%2Ehtpasswd",
                "/sub/../.env", "/.well-known/../.env", "/link.txt"}) {
                ContentResponse response = client.GET(base + hidden);
                assertThat(response.getStatus()).as("GET %s", hidden).isIn(400, 404);
                assertThat(response.getContentAsString()).as("GET %s", hidden).doesNotContain("secret", "[remote]",
                        "admin:x", "private");
            }
            for (String listing : new String[] {"/", "/sub/", "/sub", "/.git/"}) {
                ContentResponse response = client.GET(base + listing);
                assertThat(response.getStatus()).as("GET %s", listing).isIn(403, 404);
                assertThat(response.getContentAsString()).as("GET %s", listing).doesNotContain("hello.txt", "a.txt",
                        "config");
            }
            assertThat(client.GET(base + "/.well-known/security.txt").getContentAsString())
                    .as("RFC 8615's folder is public by definition").isEqualTo("Contact: a@example.com");
        }
    }

    @Test
    void badArgumentsAreNamed() {
        assertThatThrownBy(() -> StandaloneOptions.parse("--port", "http")).hasMessageContaining("--port http");
        assertThatThrownBy(() -> StandaloneOptions.parse("--set", "timeout=never"))
                .hasMessageContaining("timeout=never");
        assertThatThrownBy(() -> StandaloneOptions.parse("--set", "nope=1")).hasMessageContaining("nope");
        assertThatThrownBy(() -> StandaloneOptions.parse("--static", "/no/such/folder"))
                .hasMessageContaining("not a folder");
        assertThatThrownBy(() -> StandaloneOptions.parse("--frobnicate")).hasMessageContaining("--frobnicate");
    }

    /** The command line as bin/bayeux uses it: a later option wins, --set adds up, help. */
    @Test
    void commandLineKeepsItsNamesAndDefaults() {
        StandaloneOptions defaults = StandaloneOptions.parse();
        assertThat(defaults.port).isEqualTo(8080);
        assertThat(defaults.host).isEqualTo("0.0.0.0");
        assertThat(defaults.maxConnections).isEqualTo(100_000);
        assertThat(defaults.headerTimeout).isEqualTo(Duration.ofSeconds(20));
        assertThat(defaults.minDataRate).isEqualTo(1024);
        assertThat(defaults.help).isFalse();

        StandaloneOptions options = StandaloneOptions.parse("--port", "8080", "--port", "9000",
                "--set", "timeout=5s", "--set", "wsIdleTimeout=2m", "--extensions", "timesync,timestamp",
                "--header-timeout", "1s");
        assertThat(options.port).isEqualTo(9000);
        assertThat(options.engineConfig.timeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(options.transportConfig.get(org.bayeux.transport.http.TransportConfig.WS_IDLE_TIMEOUT))
                .isEqualTo(Duration.ofMinutes(2));
        assertThat(options.extensions).containsExactly("timesync", "timestamp");
        assertThat(options.headerTimeout).isEqualTo(Duration.ofSeconds(1));

        assertThat(StandaloneOptions.parse("--help").help).isTrue();
        assertThat(StandaloneOptions.parse("-h").help).isTrue();
        assertThat(ServerCommandLine.usage()).contains("--port P", "--set KEY=VALUE", "--tls-keystore FILE",
                "--max-connections N", "--header-timeout D", "--min-data-rate N", "--forwarded");
        assertThatThrownBy(() -> StandaloneOptions.parse("--set", "wsIdleTimeout=10ms"))
                .hasMessageContaining("wsIdleTimeout=10ms");
        assertThatThrownBy(() -> StandaloneOptions.parse("--extensions", "ack,nope"))
                .hasMessageContaining("--extensions nope");
        assertThatThrownBy(() -> StandaloneOptions.parse("--port")).hasMessageContaining("--port");
    }
}
