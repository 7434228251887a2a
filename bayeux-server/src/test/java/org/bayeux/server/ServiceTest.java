package org.bayeux.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.Message;
import org.bayeux.api.server.BayeuxServer;
import org.bayeux.api.server.LocalSession;
import org.bayeux.server.test.EngineHarness;
import org.bayeux.server.test.TestClient;
import org.bayeux.server.test.TestResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ServiceTest {
    private final EngineHarness engine = EngineHarness.start(config -> config.timeout(Duration.ofSeconds(2)));

    @AfterEach
    void stop() {
        engine.close();
    }

    static final class EchoService extends BayeuxService {
        EchoService(BayeuxServer server) {
            super(server, "echo");
            addService("/service/echo", (requester, request) -> request.getData());
            addService("/service/fail", (requester, request) -> {
                throw new IllegalStateException("boom");
            });
        }
    }

    private TestClient connected() {
        TestClient client = engine.newClient();
        client.handshake();
        client.firstConnect();
        return client;
    }

    @Test
    void c18ServiceAnswersOnlyTheRequesterWithItsIdThenThePublishReply() {
        new EchoService(engine.server());
        TestClient a = connected();
        TestClient b = connected();
        b.subscribe("/service/echo");
        TestResponse response = a.call("[{\"id\":\"9\",\"channel\":\"/service/echo\",\"data\":{\"q\":1},\"clientId\":\""
                + a.clientId() + "\"}]");
        assertThat(response.messages()).hasSize(2);
        assertThat(response.messages().get(0)).containsEntry("id", "9").containsEntry("data", Map.of("q", 1L))
                .containsEntry("successful", true).containsEntry("channel", "/service/echo");
        assertThat(response.messages().get(1)).containsEntry("id", "9").containsEntry("successful", true)
                .doesNotContainKey("data");
        assertThat(b.call("[" + b.connectMessage(",\"advice\":{\"timeout\":0}") + "]").deliveries()).isEmpty();
    }

    @Test
    void answerWakesAHeldConnectWhenTheRequestCameOnAnotherRequest() throws Exception {
        new EchoService(engine.server());
        TestClient a = connected();
        CompletableFuture<TestResponse> held = a.connect();
        TestResponse publishResponse = a.call("[{\"id\":\"5\",\"channel\":\"/service/echo\",\"data\":\"x\",\"clientId\":\""
                + a.clientId() + "\"}]");
        assertThat(publishResponse.single("/service/echo")).containsEntry("successful", true);
        TestResponse connectResponse = held.get(1, TimeUnit.SECONDS);
        assertThat(connectResponse.messages().get(0)).containsEntry("id", "5").containsEntry("data", "x");
    }

    @Test
    void failingServiceAnswersWithAnError() {
        new EchoService(engine.server());
        TestClient a = connected();
        TestResponse response = a.call("[{\"id\":\"3\",\"channel\":\"/service/fail\",\"data\":1,\"clientId\":\""
                + a.clientId() + "\"}]");
        assertThat(response.messages().get(0)).containsEntry("id", "3").containsEntry("successful", false)
                .containsEntry("error", "500::service_failed");
    }

    @Test
    void localSessionRemoteCallGetsTheAnswer() throws Exception {
        new EchoService(engine.server());
        LocalSession local = engine.server().newLocalSession("caller");
        local.handshake();
        CompletableFuture<Message> answer = new CompletableFuture<>();
        local.remoteCall("/service/echo", List.of("ping"), (channel, message) -> answer.complete(message));
        Message message = answer.get(5, TimeUnit.SECONDS);
        assertThat(message.isSuccessful()).isTrue();
        assertThat(message.getData()).isEqualTo(List.of("ping"));
    }
}
