package org.bayeux.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.bayeux.server.test.EngineHarness;
import org.bayeux.server.test.TestClient;
import org.bayeux.server.test.TestResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ConnectTest {
    private static final long TIMEOUT_MS = 1000;
    private static final long MAX_INTERVAL_MS = 1500;

    private final EngineHarness engine = EngineHarness.start(config -> config
            .timeout(Duration.ofMillis(TIMEOUT_MS))
            .maxInterval(Duration.ofMillis(MAX_INTERVAL_MS))
            .sweepPeriod(Duration.ofMillis(100)));

    @AfterEach
    void stop() {
        engine.close();
    }

    private TestClient connected() {
        TestClient client = engine.newClient();
        client.handshake();
        client.firstConnect();
        return client;
    }

    @Test
    void c06FirstConnectWithZeroTimeoutIsAnsweredAtOnce() {
        TestClient client = engine.newClient();
        client.handshake();
        Map<String, Object> reply = client.call("[" + client.connectMessage(",\"advice\":{\"timeout\":0}") + "]")
                .single("/meta/connect");
        assertThat(reply).containsEntry("successful", true);
        assertThat(reply.get("advice")).isEqualTo(Map.of("reconnect", "retry", "interval", 0L, "timeout", TIMEOUT_MS,
                "maxInterval", MAX_INTERVAL_MS));
    }

    @Test
    void c07FirstConnectWithoutAdviceIsNotHeld() throws Exception {
        TestClient client = engine.newClient();
        client.handshake();
        CompletableFuture<TestResponse> reply = client.connect();
        // Well under the hold timeout: the first connect is never held.
        assertThat(reply.get(TIMEOUT_MS / 2, TimeUnit.MILLISECONDS).single("/meta/connect"))
                .containsEntry("successful", true);
    }

    @Test
    void c08SecondConnectIsHeldForTheTimeout() {
        TestClient client = connected();
        long start = System.nanoTime();
        TestResponse response = client.call("[" + client.connectMessage("") + "]");
        long elapsedMs = (System.nanoTime() - start) / 1_000_000;
        assertThat(response.single("/meta/connect")).containsEntry("successful", true);
        assertThat(elapsedMs).isBetween(TIMEOUT_MS - 50, TIMEOUT_MS + 500);
    }

    /** Clients keep the advice they were given: a connect reply repeats it only when it changed. */
    @Test
    void connectRepliesCarryTheAdviceOnlyWhenItChangedOrWasAskedFor() throws Exception {
        TestClient client = connected();
        client.subscribe("/chat/a");

        CompletableFuture<TestResponse> held = client.connect();
        client.publish("/chat/a", "1");
        Map<String, Object> released = held.get(5, TimeUnit.SECONDS).single("/meta/connect");
        assertThat(released).containsEntry("successful", true).doesNotContainKey("advice");

        engine.server().getSession(client.clientId()).setInterval(Duration.ofMillis(250));
        held = client.connect();
        client.publish("/chat/a", "2");
        assertThat(held.get(5, TimeUnit.SECONDS).single("/meta/connect").get("advice")).isEqualTo(Map.of(
                "reconnect", "retry", "interval", 250L, "timeout", TIMEOUT_MS, "maxInterval", MAX_INTERVAL_MS));

        Map<String, Object> asked = client.call("[" + client.connectMessage(",\"advice\":{\"timeout\":0}") + "]")
                .single("/meta/connect");
        assertThat(asked.get("advice")).asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
                .containsEntry("timeout", TIMEOUT_MS).containsEntry("interval", 250L);
    }

    @Test
    void c22ConnectWithUnknownClientIdAdvisesHandshake() {
        TestClient client = engine.newClient();
        client.clientId("nosuchclient");
        TestResponse response = client.call("[" + client.connectMessage("") + "]");
        assertThat(response.status()).isEqualTo(TestResponse.OK);
        assertThat(response.single("/meta/connect")).containsEntry("successful", false)
                .containsEntry("error", "402::session_unknown")
                .containsEntry("advice", Map.of("reconnect", "handshake", "interval", 0L));
    }

    @Test
    void c26NewerConnectSupersedesTheHeldOne() throws Exception {
        TestClient client = connected();
        // The in-memory transport processes a batch in the calling thread: when connect() returns, it is held.
        CompletableFuture<TestResponse> older = client.connect();
        assertThat(older).isNotDone();
        CompletableFuture<TestResponse> newer = client.connect();
        assertThat(older.get(5, TimeUnit.SECONDS).status()).isEqualTo(TestResponse.SUPERSEDED);
        assertThat(newer).isNotDone();
        assertThat(newer.get(5, TimeUnit.SECONDS).single("/meta/connect")).containsEntry("successful", true);
    }

    @Test
    void c27DisconnectReleasesTheHeldConnectWithNoReconnect() throws Exception {
        TestClient client = connected();
        CompletableFuture<TestResponse> held = client.connect();
        Map<String, Object> disconnect = client.disconnect().single("/meta/disconnect");
        assertThat(disconnect).containsEntry("successful", true);
        Map<String, Object> released = held.get(5, TimeUnit.SECONDS).single("/meta/connect");
        assertThat(released).containsEntry("successful", true);
        assertThat(released.get("advice")).asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
                .containsEntry("reconnect", "none").containsKeys("interval", "timeout");
        assertThat(client.call("[" + client.connectMessage("") + "]").single("/meta/connect"))
                .containsEntry("error", "402::session_unknown");
    }

    /**
     * A connect read after its session's own disconnect is refused whatever its id, even one that looks like it was
     * sent before the disconnect: ids are opaque strings, and the session no longer exists.
     */
    @Test
    void connectReadAfterItsSessionsDisconnectIsRefusedWhateverItsId() {
        TestClient client = connected();
        String sentFirst = client.connectMessage("");
        assertThat(client.disconnect().single("/meta/disconnect")).containsEntry("successful", true);

        Map<String, Object> late = client.call("[" + sentFirst + "]").single("/meta/connect");

        assertThat(late).containsEntry("successful", false).containsEntry("error", "402::session_unknown")
                .containsEntry("advice", Map.of("reconnect", "handshake", "interval", 0L));
        String clientId = ",\"clientId\":\"" + client.clientId() + "\"";
        for (String id : new String[] {"0", "1", "a", "d-1", "99999999999999"}) {
            assertThat(client.call("[{\"id\":\"" + id + "\",\"channel\":\"/meta/connect\","
                    + "\"connectionType\":\"long-polling\"" + clientId + "}]").single("/meta/connect"))
                    .as("connect with id %s", id).containsEntry("error", "402::session_unknown");
        }
    }

    @Test
    void c28SilentSessionExpiresAfterMaxInterval() {
        TestClient client = connected();
        long connectedAt = System.nanoTime();
        String id = client.clientId();
        assertThat(engine.server().getSession(id)).isNotNull();
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
                .until(() -> engine.server().getSession(id) == null);
        long aliveMs = (System.nanoTime() - connectedAt) / 1_000_000;
        assertThat(aliveMs).isGreaterThanOrEqualTo(MAX_INTERVAL_MS);
        assertThat(client.publish("/chat/a", "1").single("/chat/a")).containsEntry("error", "402::session_unknown")
                .doesNotContainKey("advice");
    }

    @Test
    void c28SessionAliveBeforeMaxInterval() {
        TestClient client = connected();
        Map<String, Object> reply = client.subscribe("/chat/a");
        assertThat(reply).containsEntry("successful", true);
    }

    @Test
    void c29HeldConnectLongerThanMaxIntervalKeepsTheSessionAlive() {
        try (EngineHarness slow = EngineHarness.start(config -> config.timeout(Duration.ofMillis(1200))
                .maxInterval(Duration.ofMillis(300)).sweepPeriod(Duration.ofMillis(50)))) {
            TestClient client = slow.newClient();
            client.handshake();
            client.firstConnect();
            TestResponse held = client.call("[" + client.connectMessage("") + "]");
            assertThat(held.single("/meta/connect")).containsEntry("successful", true);
            assertThat(slow.server().getSession(client.clientId())).isNotNull();
        }
    }

    @Test
    void c30ConnectBatchedWithSubscribeIsAnsweredAtOnceInRequestOrder() throws Exception {
        TestClient client = connected();
        CompletableFuture<TestResponse> response = client.send("[" + client.connectMessage(",\"advice\":{\"timeout\":0}")
                + ",{\"id\":\"s\",\"channel\":\"/meta/subscribe\",\"subscription\":\"/x\",\"clientId\":\""
                + client.clientId() + "\"}]");
        TestResponse answer = response.get(TIMEOUT_MS / 2, TimeUnit.MILLISECONDS);
        assertThat(answer.messages()).extracting(m -> m.get("channel")).containsExactly("/meta/connect", "/meta/subscribe");
    }

    @Test
    void connectBatchedWithOtherMessagesIsNeverHeld() throws Exception {
        TestClient client = connected();
        CompletableFuture<TestResponse> response = client.send("[" + client.connectMessage("")
                + ",{\"channel\":\"/meta/subscribe\",\"subscription\":\"/x\",\"clientId\":\"" + client.clientId() + "\"}]");
        assertThat(response.get(TIMEOUT_MS / 2, TimeUnit.MILLISECONDS).messages()).hasSize(2);
    }

    @Test
    void c43ZeroTimeoutConnectIsAnsweredAtOnceAndTheNextIsHeldAgain() throws Exception {
        TestClient client = connected();
        TestResponse quick = client.send("[" + client.connectMessage(",\"advice\":{\"timeout\":0}") + "]")
                .get(TIMEOUT_MS / 2, TimeUnit.MILLISECONDS);
        assertThat(quick.single("/meta/connect")).containsEntry("successful", true);
        long start = System.nanoTime();
        client.call("[" + client.connectMessage("") + "]");
        assertThat((System.nanoTime() - start) / 1_000_000).isGreaterThanOrEqualTo(TIMEOUT_MS - 50);
    }

    @Test
    void unsupportedConnectionTypeAdvisesHandshake() {
        TestClient client = engine.newClient();
        client.handshake();
        Map<String, Object> reply = client.call("[{\"channel\":\"/meta/connect\",\"connectionType\":\"flash\","
                + "\"clientId\":\"" + client.clientId() + "\"}]").single("/meta/connect");
        assertThat(reply).containsEntry("successful", false).containsEntry("error", "301:flash:connection_type_unsupported")
                .containsEntry("advice", Map.of("reconnect", "handshake", "interval", 0L));
    }

    @Test
    void serverSideDisconnectTellsTheClientAndReleasesTheConnect() throws Exception {
        TestClient client = connected();
        CompletableFuture<TestResponse> held = client.connect();
        assertThat(held).isNotDone();
        engine.server().getSession(client.clientId()).disconnect();
        TestResponse response = held.get(5, TimeUnit.SECONDS);
        assertThat(response.messages()).extracting(m -> m.get("channel"))
                .containsExactly("/meta/disconnect", "/meta/connect");
        assertThat(response.single("/meta/connect").get("advice"))
                .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP).containsEntry("reconnect", "none");
    }
}
