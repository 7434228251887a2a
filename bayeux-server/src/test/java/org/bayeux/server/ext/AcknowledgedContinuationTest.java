package org.bayeux.server.ext;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;

import org.bayeux.api.server.ServerSession;
import org.bayeux.server.cluster.AcknowledgedBatch;
import org.bayeux.server.cluster.ChannelPosition;
import org.bayeux.server.test.EngineHarness;
import org.bayeux.server.test.TestClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link AcknowledgedBatch#continueFrom}: an adopted {@code ack} session numbers its next batch one past the last one
 * its former node sent, takes acknowledgements up to it, and starts from the positions it was given.
 */
class AcknowledgedContinuationTest {
    private final EngineHarness engine = EngineHarness.start(config -> config.timeout(Duration.ofSeconds(30)),
            server -> server.addExtension(new AcknowledgedMessagesExtension()));

    @AfterEach
    void stop() {
        engine.close();
    }

    private static AcknowledgedBatch stateOf(ServerSession session) {
        return (AcknowledgedBatch) session.getExtensions().stream().filter(AcknowledgedBatch.class::isInstance)
                .findFirst().orElseThrow();
    }

    @Test
    void theNumberingContinuesAfterTheFormerNodesLastBatch() {
        TestClient client = engine.newClient();
        assertThat(client.handshake(",\"ext\":{\"ack\":true}")).containsEntry("successful", true);
        ServerSession session = engine.server().getSession(client.clientId());
        AcknowledgedBatch numbering = stateOf(session);
        ChannelPosition at = new ChannelPosition("e1", 17);
        numbering.continueFrom(41, 40, Map.of("/chat/a", at));
        assertThat(numbering.lastBatch()).isEqualTo(41);
        assertThat(numbering.acknowledgedBatch()).isEqualTo(40);
        assertThat(numbering.acknowledgedPositions()).isEqualTo(Map.of("/chat/a", at));

        Map<String, Object> reply = client.call("[" + client.connectMessage(
                ",\"advice\":{\"timeout\":0},\"ext\":{\"ack\":41}") + "]").single("/meta/connect");
        assertThat(((Map<?, ?>) reply.get("ext")).get("ack")).isEqualTo(42L);
        assertThat(numbering.acknowledgedBatch()).as("41 was issued, so it counts").isEqualTo(41);
        assertThat(numbering.lastBatch()).isEqualTo(42);
        assertThat(numbering.positionsAfterLastBatch()).isEqualTo(Map.of("/chat/a", at));
    }

    @Test
    void anInconsistentContinuationIsRefused() {
        TestClient client = engine.newClient();
        client.handshake(",\"ext\":{\"ack\":true}");
        AcknowledgedBatch numbering = stateOf(engine.server().getSession(client.clientId()));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> numbering.continueFrom(3, 4, Map.of()))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
