package org.bayeux.client;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.bayeux.client.example.ClientExamples;
import org.bayeux.client.ext.AckExtension;
import org.bayeux.server.ext.AcknowledgedMessagesExtension;
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
    private static final Path GUIDE = Path.of("..", "..", "docs", "java-client.md");
    private static final Path EXAMPLES = Path.of("src", "test", "java", "org", "bayeux", "client", "example",
            "ClientExamples.java");

    @Test
    void everyExampleInTheGuideIsTheCompiledOne() throws Exception {
        Map<String, String> blocks = DocExamples.blocks(EXAMPLES);
        assertThat(blocks.keySet()).containsExactly("chat", "remote-call", "many-clients", "credentials", "ack");
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

    @Test
    void theAckExampleGetsAcknowledgedDelivery() throws Exception {
        try (TestServer server = new TestServer(TestServer::holdingLong, transports -> { },
                engine -> engine.addExtension(new AcknowledgedMessagesExtension()));
                BayeuxClient client = ClientExamples.acknowledged(server.url())) {
            assertThat(client.getState()).isEqualTo(BayeuxClient.State.CONNECTED);
            AckExtension ack = client.getExtensions().stream().filter(AckExtension.class::isInstance)
                    .map(AckExtension.class::cast).findFirst().orElseThrow();
            assertThat(ack.isServerSupportingAcks()).isTrue();
            List<Object> received = new CopyOnWriteArrayList<>();
            CountDownLatch all = new CountDownLatch(3);
            client.getChannel("/ack/example").subscribeAsync((channel, message) -> {
                received.add(message.getData());
                all.countDown();
            }).get(Clients.WAIT.toMillis(), TimeUnit.MILLISECONDS);
            for (int n = 0; n < 3; n++) {
                server.publish("/ack/example", Map.of("n", n));
            }
            assertThat(all.await(Clients.WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
            assertThat(received).containsExactly(Map.of("n", 0L), Map.of("n", 1L), Map.of("n", 2L));
        }
    }

    /** Removes the indentation the block has in the source. */
}
