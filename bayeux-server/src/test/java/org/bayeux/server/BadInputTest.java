package org.bayeux.server;

import static org.assertj.core.api.Assertions.assertThat;

import org.bayeux.server.test.EngineHarness;
import org.bayeux.server.test.TestClient;
import org.bayeux.server.test.TestResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class BadInputTest {
    private final EngineHarness engine = EngineHarness.start();

    @AfterEach
    void stop() {
        engine.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "not json", "[", "[]", "[42]", "[\"x\"]", "[[]]", "42", "null", "{\"channel\":\"/a\"} x",
            "[{\"channel\":\"/a\"},7]"})
    void c24BatchesThatAreNotArraysOfObjectsAreBadRequests(String body) {
        TestResponse response = engine.newClient().call(body);
        assertThat(response.status()).isEqualTo(TestResponse.BAD_REQUEST);
        assertThat(response.text()).isNotBlank();
    }

    @Test
    void deepNestingIsABadRequestNotAStackOverflow() {
        String deep = "[{\"channel\":\"/a\",\"data\":" + "[".repeat(10_000) + "]".repeat(10_000) + "}]";
        assertThat(engine.newClient().call(deep).status()).isEqualTo(TestResponse.BAD_REQUEST);
    }

    @Test
    void bareObjectIsAcceptedAsABatchOfOne() {
        TestResponse response = engine.newClient().call("{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"supportedConnectionTypes\":[\"long-polling\"]}");
        assertThat(response.single("/meta/handshake")).containsEntry("successful", true);
    }

    @Test
    void hugeNumbersDoNotBreakTheEngine() {
        TestClient client = engine.newClient();
        client.handshake();
        client.subscribe("/n");
        TestResponse response = client.call("[{\"id\":1e400,\"channel\":\"/n\",\"data\":123456789012345678901234567890,"
                + "\"clientId\":\"" + client.clientId() + "\"}]");
        assertThat(response.status()).isIn(TestResponse.OK, TestResponse.BAD_REQUEST);
    }

    @Test
    void unknownMetaChannelIsDenied() {
        TestClient client = engine.newClient();
        client.handshake();
        TestResponse response = client.call("[{\"channel\":\"/meta/whatever\",\"clientId\":\"" + client.clientId() + "\"}]");
        assertThat(response.single("/meta/whatever")).containsEntry("error", "403:/meta/whatever:publish_denied");
    }
}
