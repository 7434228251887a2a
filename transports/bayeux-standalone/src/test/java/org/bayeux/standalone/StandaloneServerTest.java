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
    void servesTheEndpointAndTheDemoPage() throws Exception {
        try (StandaloneServer server = new StandaloneServer(StandaloneOptions
                .parse("--demo", "--set", "timeout=5s", "--set", "allowedOrigins=http://a.example").port(0).host("127.0.0.1"))) {
            String base = "http://127.0.0.1:" + server.getPort();
            ContentResponse page = client.GET(base + "/");
            assertThat(page.getStatus()).isEqualTo(200);
            assertThat(page.getContentAsString()).contains("<title>Bayeux chat</title>");
            ContentResponse library = client.GET(base + "/bayeux-js-client/index.js");
            assertThat(library.getStatus()).isEqualTo(200);
            assertThat(library.getHeaders().get("Content-Type")).startsWith("text/javascript");
            assertThat(server.getChat()).isNotNull();
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

        StandaloneOptions options = StandaloneOptions.parse("--port", "8080", "--demo", "--port", "9000",
                "--set", "timeout=5s", "--set", "wsIdleTimeout=2m", "--extensions", "timesync,timestamp",
                "--header-timeout", "1s");
        assertThat(options.port).isEqualTo(9000);
        assertThat(options.demo).isTrue();
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
