package org.bayeux.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.Message;
import org.bayeux.api.server.LocalSession;
import org.bayeux.server.test.EngineHarness;
import org.bayeux.server.test.TestClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LocalSessionTest {
    private final EngineHarness engine = EngineHarness.start();

    @AfterEach
    void stop() {
        engine.close();
    }

    @Test
    void localSessionHandshakesSubscribesAndReceivesWithoutJson() throws Exception {
        LocalSession local = engine.server().newLocalSession("watcher");
        CompletableFuture<Message> handshake = new CompletableFuture<>();
        local.handshake(null, (channel, reply) -> handshake.complete(reply));
        assertThat(handshake.get(5, TimeUnit.SECONDS).isSuccessful()).isTrue();
        assertThat(local.isConnected()).isTrue();
        assertThat(local.getId()).startsWith("watcher");
        List<Object> received = new CopyOnWriteArrayList<>();
        CompletableFuture<Message> subscribed = new CompletableFuture<>();
        local.getChannel("/news/*").subscribe((channel, message) -> received.add(message.getData()),
                (channel, reply) -> subscribed.complete(reply));
        assertThat(subscribed.get(5, TimeUnit.SECONDS).isSuccessful()).isTrue();

        TestClient remote = engine.newClient();
        remote.handshake();
        remote.publish("/news/today", "{\"headline\":\"x\"}");
        assertThat(received).containsExactly(java.util.Map.of("headline", "x"));
    }

    @Test
    void localSessionPublishesToRemoteSubscribers() throws Exception {
        TestClient remote = engine.newClient();
        remote.handshake();
        remote.firstConnect();
        remote.subscribe("/feed");
        LocalSession local = engine.server().newLocalSession("feeder");
        local.handshake();
        CompletableFuture<Message> reply = new CompletableFuture<>();
        local.getChannel("/feed").publish("tick", (channel, message) -> reply.complete(message));
        assertThat(reply.get(5, TimeUnit.SECONDS).isSuccessful()).isTrue();
        assertThat(remote.call("[" + remote.connectMessage(",\"advice\":{\"timeout\":0}") + "]").deliveries())
                .extracting(m -> m.get("data")).containsExactly("tick");
    }

    @Test
    void localSessionNeverExpiresAndDisconnects() throws Exception {
        LocalSession local = engine.server().newLocalSession(null);
        local.handshake();
        String id = local.getId();
        assertThat(engine.server().getSession(id).isLocalSession()).isTrue();
        CompletableFuture<Message> reply = new CompletableFuture<>();
        local.disconnect((channel, message) -> reply.complete(message));
        assertThat(reply.get(5, TimeUnit.SECONDS).isSuccessful()).isTrue();
        assertThat(engine.server().getSession(id)).isNull();
    }

    @Test
    void localBatchIsSentAsOneBatch() {
        LocalSession local = engine.server().newLocalSession("batcher");
        local.handshake();
        List<Object> received = new CopyOnWriteArrayList<>();
        local.getChannel("/b").subscribe((channel, message) -> received.add(message.getData()), null);
        local.batch(() -> {
            local.getChannel("/b").publish(1, null);
            local.getChannel("/b").publish(2, null);
            assertThat(received).isEmpty();
        });
        assertThat(received).containsExactly(1, 2);
    }
}
