package org.bayeux.client;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.bayeux.client.example.ClientExamples;
import org.eclipse.jetty.http.HttpHeader;
import org.bayeux.testsupport.DocExamples;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The client guide, {@code docs/java-client.md}, stays in step with the code: its examples are the compiled ones of
 * {@link ClientExamples}, word for word, and they work; its option table is {@link BayeuxClientConfig#describe()}.
 */
class ExamplesTest {
    private static final Path GUIDE = Path.of("..", "docs", "java-client.md");
    private static final Path EXAMPLES = Path.of("src", "test", "java", "org", "bayeux", "client", "example",
            "ClientExamples.java");

    @Test
    void everyExampleInTheGuideIsTheCompiledOne() throws Exception {
        Map<String, String> blocks = DocExamples.blocks(EXAMPLES);
        assertThat(blocks.keySet()).containsExactly("chat", "remote-call", "many-clients", "credentials");
        assertThat(DocExamples.notShown(GUIDE, blocks)).as("docs/java-client.md shows these as in ClientExamples")
                .isEmpty();
    }

    @Test
    void theGuidesOptionTableIsTheConfigurationsOwn() throws Exception {
        String guide = Files.readString(GUIDE);
        StringBuilder table = new StringBuilder("| Option | Type | Default | Meaning |\n|---|---|---|---|\n");
        for (List<String> row : BayeuxClientConfig.describe()) {
            table.append("| `").append(row.get(0)).append("` | ").append(row.get(1)).append(" | `")
                    .append(row.get(2)).append("` | ").append(row.get(3)).append(" |\n");
        }
        assertThat(guide).contains("<!-- BEGIN GENERATED: client options -->\n" + table
                + "<!-- END GENERATED: client options -->");
    }

    @Test
    void theExamplesWork() throws Exception {
        try (TestServer server = new TestServer()) {
            assertThat(ClientExamples.chat(server.url())).isEqualTo(Map.of("text", "hello"));

            try (BayeuxClient client = Clients.connected(BayeuxClientConfig.builder(server.url()).build())) {
                assertThat(ClientExamples.remoteCall(client)).isEqualTo(Map.of("echo", Map.of("question", 42L)));
            }

            CountDownLatch received = new CountDownLatch(20);
            try (AutoCloseable clients = ClientExamples.manyClients(server.url(), 20, received)) {
                await().atMost(Clients.WAIT).until(() -> server.subscribers("/news").size() == 20);
                server.publish("/news", Map.of("headline", "examples work"));
                assertThat(received.await(Clients.WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
            }

            BayeuxClientConfig withCredentials = ClientExamples.credentials(server.url(),
                    () -> CompletableFuture.completedFuture("t0k3n"));
            try (BayeuxClient client = Clients.connected(withCredentials)) {
                assertThat(server.requests().stream().map(request -> request.headers.get(HttpHeader.AUTHORIZATION))
                        .collect(Collectors.toList())).contains("Bearer t0k3n");
            }
        }
    }

    /** Removes the indentation the block has in the source. */
}
