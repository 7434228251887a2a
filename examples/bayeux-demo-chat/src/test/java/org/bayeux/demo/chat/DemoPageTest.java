package org.bayeux.demo.chat;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.Message;
import org.bayeux.client.BayeuxClient;
import org.bayeux.client.BayeuxClientConfig;
import org.bayeux.client.transport.ClientTransport;
import org.bayeux.server.cluster.SingleNodePresence;
import org.bayeux.server.ext.AcknowledgedMessagesExtension;
import org.bayeux.standalone.StandaloneOptions;
import org.bayeux.standalone.StandaloneServer;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The demo as a guest of the standalone server: its jar's service file names the chat, which the server starts from
 * {@code --classpath}; its page and the JavaScript client it imports are served from {@code --static}; the
 * {@code ack} extension its page asks for is installed once, by the server's {@code --extensions} or, when the host
 * did not, by the application.
 */
class DemoPageTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private final HttpClient http = new HttpClient();

    @BeforeEach
    void startClient() throws Exception {
        http.start();
    }

    @AfterEach
    void stopClient() throws Exception {
        http.stop();
    }

    @Test
    void theServerServesThePageAndRunsTheChatFromTheClassPath() throws Exception {
        try (StandaloneServer server = DemoNodes.start("--set", "timeout=5s")) {
            String base = "http://127.0.0.1:" + server.getPort();
            ContentResponse page = http.GET(base + "/");
            assertThat(page.getStatus()).isEqualTo(200);
            assertThat(page.getContentAsString()).contains("<title>Bayeux chat</title>");
            ContentResponse library = http.GET(base + "/bayeux-js-client/index.js");
            assertThat(library.getStatus()).isEqualTo(200);
            assertThat(library.getHeaders().get("Content-Type")).startsWith("text/javascript");
            assertThat(http.GET(base + "/chat.js").getStatus()).isEqualTo(200);

            assertThat(server.getApplications()).singleElement().isInstanceOf(ChatApplication.class);
            assertThat(DemoNodes.chatOf(server).chat()).isNotNull();
            assertThat(server.getEngine().presence()).as("a single node's presence")
                    .isInstanceOf(SingleNodePresence.class);
            assertThat(server.getEngine().getExtensions()).filteredOn(AcknowledgedMessagesExtension.class::isInstance)
                    .hasSize(1);

            BayeuxClient client = new BayeuxClient(BayeuxClientConfig.builder(base + "/bayeux")
                    .transports(ClientTransport.LONG_POLLING).build());
            try {
                Message shaken = client.handshakeAsync(Map.of("ext", Map.of("chat", Map.of("name", "Ann"))))
                        .get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                assertThat(shaken.isSuccessful()).isTrue();
                Message members = client.remoteCallAsync("/service/chat/members", Map.of("room", "lobby"), WAIT)
                        .get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                assertThat(members.isSuccessful()).isTrue();
            } finally {
                client.close();
            }
        }
    }

    @Test
    void theApplicationInstallsAckWhenTheHostDidNot() throws Exception {
        Path classes = DemoNodes.classes();
        assertThat(Files.exists(classes.resolve("META-INF/services/org.bayeux.server.app.BayeuxApplication")))
                .isTrue();
        try (StandaloneServer server = new StandaloneServer(StandaloneOptions
                .parse("--classpath", classes.toString()).port(0).host("127.0.0.1"))) {
            assertThat(server.getEngine().getExtensions())
                    .filteredOn(AcknowledgedMessagesExtension.class::isInstance).hasSize(1);
        }
    }
}
