package org.bayeux.server.ext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.bayeux.server.ext.AckWire.ACK_HANDSHAKE_EXT;
import static org.bayeux.server.ext.AckWire.ackOf;
import static org.bayeux.server.ext.AckWire.await;
import static org.bayeux.server.ext.AckWire.connect;
import static org.bayeux.server.ext.AckWire.firstConnect;
import static org.bayeux.server.ext.AckWire.textsOf;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.bayeux.server.cluster.ChannelPosition;
import org.bayeux.server.cluster.SessionState;
import org.bayeux.server.test.EngineHarness;
import org.bayeux.server.test.TestClient;
import org.bayeux.server.test.TestResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * With the {@code ack} extension a session's {@link SessionState#positions()} are those of the batches its client
 * acknowledged, never of a batch only sent.
 */
class AcknowledgedPositionsTest {
    private static final String CHANNEL = "/chat/a";

    private EngineHarness harness;

    @AfterEach
    void stop() {
        if (harness != null) {
            harness.close();
        }
    }

    private static void publish(TestClient publisher, String text, long offset) {
        TestResponse response = publisher.call("[{\"id\":\"" + publisher.nextId() + "\",\"channel\":\"" + CHANNEL
                + "\",\"data\":{\"text\":\"" + text + "\"},\"ext\":{\"position\":{\"offset\":" + offset
                + ",\"epoch\":\"e1\"}},\"clientId\":\"" + publisher.clientId() + "\"}]");
        assertThat(response.single(CHANNEL).get("successful")).isEqualTo(Boolean.TRUE);
    }

    @Test
    void positionsMoveOnlyWhenABatchIsAcknowledged() {
        harness = EngineHarness.start(builder -> builder.timeout(Duration.ofMillis(500)));
        harness.server().addExtension(new AcknowledgedMessagesExtension());
        TestClient client = harness.newClient();
        assertThat(client.handshake(ACK_HANDSHAKE_EXT).get("successful")).isEqualTo(Boolean.TRUE);
        assertThat(ackOf(await(client.send(firstConnect(client, 0))))).isEqualTo(1);
        assertThat(client.subscribe(CHANNEL).get("successful")).isEqualTo(Boolean.TRUE);
        SessionState state = (SessionState) harness.server().getSession(client.clientId());
        TestClient publisher = harness.newClient();
        publisher.handshake();
        publisher.firstConnect();

        publish(publisher, "M1", 1);
        publish(publisher, "M2", 2);
        TestResponse sent = await(client.send(connect(client, 1)));
        assertThat(textsOf(sent)).containsExactly("M1", "M2");
        assertThat(ackOf(sent)).isEqualTo(2);
        assertThat(state.positions()).as("sent, not acknowledged").isEmpty();

        // The next connect acknowledges batch 2; the extension forgets it when that connect's reply is built.
        CompletableFuture<TestResponse> acknowledging = client.send(connect(client, 2));
        TestResponse empty = await(acknowledging);
        assertThat(empty.deliveries()).isEmpty();
        assertThat(state.ackBatch()).isEqualTo(2);
        assertThat(state.positions()).isEqualTo(Map.of(CHANNEL, new ChannelPosition("e1", 2)));

        // Sent again but not acknowledged (the client acknowledges an older batch): the position stays.
        publish(publisher, "M3", 3);
        TestResponse third = await(client.send(connect(client, 3)));
        assertThat(textsOf(third)).containsExactly("M3");
        assertThat(state.positions()).isEqualTo(Map.of(CHANNEL, new ChannelPosition("e1", 2)));
    }
}
