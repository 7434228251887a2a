package org.bayeux.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.bayeux.api.server.BayeuxServer;
import org.bayeux.api.server.SecurityPolicy;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.server.test.EngineHarness;
import org.bayeux.server.test.TestClient;
import org.bayeux.server.test.TestResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class HandshakeTest {
    private final EngineHarness engine = EngineHarness.start();

    @AfterEach
    void stop() {
        engine.close();
    }

    @Test
    void c01HandshakeSucceedsWithFullAdvice() {
        TestClient client = engine.newClient();
        TestResponse response = client.call("[{\"id\":\"1\",\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"minimumVersion\":\"1.0\",\"supportedConnectionTypes\":[\"websocket\",\"long-polling\"],"
                + "\"advice\":{\"timeout\":60000,\"interval\":0}}]");
        Map<String, Object> reply = response.single("/meta/handshake");
        assertThat(reply).containsEntry("successful", true).containsEntry("id", "1").containsEntry("version", "1.0");
        assertThat((String) reply.get("clientId")).matches("[A-Za-z0-9]{22,}");
        assertThat(reply.get("supportedConnectionTypes")).asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.LIST).contains("long-polling", "websocket");
        @SuppressWarnings("unchecked")
        Map<String, Object> advice = (Map<String, Object>) reply.get("advice");
        assertThat(advice).containsEntry("reconnect", "retry").containsEntry("interval", 0L)
                .containsEntry("timeout", 30000L).containsEntry("maxInterval", 10000L);
    }

    @Test
    void c02HandshakeWithoutVersionSucceeds() {
        Map<String, Object> reply = engine.newClient().call(
                "[{\"channel\":\"/meta/handshake\",\"supportedConnectionTypes\":[\"long-polling\"]}]")
                .single("/meta/handshake");
        assertThat(reply).containsEntry("successful", true).doesNotContainKey("id");
    }

    @Test
    void c03NoTransportInCommonFailsWithoutRetry() {
        Map<String, Object> reply = engine.newClient().call("[{\"id\":\"1\",\"channel\":\"/meta/handshake\","
                + "\"version\":\"1.0\",\"supportedConnectionTypes\":[\"flash\"]}]").single("/meta/handshake");
        assertThat(reply).containsEntry("successful", false);
        assertThat((String) reply.get("error")).startsWith("301:flash:");
        assertThat(reply.get("advice")).isEqualTo(Map.of("reconnect", "none", "interval", 0L));
        assertThat(engine.server().getSessions()).isEmpty();
    }

    @Test
    void c04HandshakeBatchedWithOtherMessagesIsABadRequest() {
        TestResponse response = engine.newClient().call("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"supportedConnectionTypes\":[\"long-polling\"]},{\"channel\":\"/meta/subscribe\",\"subscription\":\"/a\"}]");
        assertThat(response.status()).isEqualTo(TestResponse.BAD_REQUEST);
        assertThat(engine.server().getSessions()).isEmpty();
    }

    @Test
    void minimumVersionAboveOneIsRefused() {
        Map<String, Object> reply = engine.newClient().call("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"minimumVersion\":\"1.1\",\"supportedConnectionTypes\":[\"long-polling\"]}]").single("/meta/handshake");
        assertThat(reply).containsEntry("successful", false).containsEntry("error", "300:1.1:version_mismatch");
        assertThat(reply.get("advice")).isEqualTo(Map.of("reconnect", "none", "interval", 0L));
        Map<String, Object> major = engine.newClient().call("[{\"channel\":\"/meta/handshake\",\"version\":\"2.0\","
                + "\"supportedConnectionTypes\":[\"long-polling\"]}]").single("/meta/handshake");
        assertThat(major).containsEntry("successful", false).containsEntry("error", "300:2.0:version_mismatch");
    }

    @Test
    void deniedHandshakeGetsNoneAdviceAndNoSession() {
        engine.server().setSecurityPolicy(new SecurityPolicy() {
            @Override
            public boolean canHandshake(BayeuxServer server, ServerSession session, ServerMessage message) {
                return false;
            }
        });
        Map<String, Object> reply = engine.newClient().handshake();
        assertThat(reply).containsEntry("successful", false).containsEntry("error", "403::handshake_denied");
        assertThat(reply.get("advice")).isEqualTo(Map.of("reconnect", "none", "interval", 0L));
        assertThat(engine.server().getSessions()).isEmpty();
    }

    @Test
    void failingPolicyCountsAsRefusal() {
        engine.server().setSecurityPolicy(new SecurityPolicy() {
            @Override
            public boolean canHandshake(BayeuxServer server, ServerSession session, ServerMessage message) {
                throw new IllegalStateException("policy bug");
            }
        });
        assertThat(engine.newClient().handshake()).containsEntry("successful", false);
    }

    @Test
    void sessionIdsAreUniqueAndUnguessable() {
        java.util.Set<String> ids = new java.util.HashSet<>();
        for (int i = 0; i < 200; i++) {
            TestClient client = engine.newClient();
            client.handshake();
            ids.add(client.clientId());
        }
        assertThat(ids).hasSize(200).allMatch(id -> id.length() >= 22);
    }
}
