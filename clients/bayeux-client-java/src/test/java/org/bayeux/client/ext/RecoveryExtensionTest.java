package org.bayeux.client.ext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import org.bayeux.api.MapMessage;
import org.bayeux.api.Message;
import org.bayeux.client.BayeuxClient;
import org.bayeux.client.BayeuxClientConfig;
import org.junit.jupiter.api.Test;

/** The client's recovery logic, message by message (the network tests are in bayeux-backplane-redis). */
class RecoveryExtensionTest {
    private static MapMessage message(String channel, Map<String, Object> fields) {
        MapMessage message = MapMessage.on(channel);
        message.putAll(fields);
        return message;
    }

    private static Object recoveryOf(Message message) {
        return message.getExt() == null ? null : message.getExt().get("recovery");
    }

    @Test
    void addsNothingUntilAHandshakeReplyOffersIt() {
        RecoveryExtension recovery = new RecoveryExtension();
        MapMessage subscribe = message(Message.META_SUBSCRIBE, Map.of("subscription", "/a"));
        recovery.sendMeta(null, subscribe);
        assertThat(recoveryOf(subscribe)).isNull();
        recovery.rcvMeta(null, message(Message.META_HANDSHAKE, Map.of("successful", true, "ext", Map.of())));
        recovery.sendMeta(null, subscribe);
        assertThat(recoveryOf(subscribe)).isNull();
        assertThat(recovery.isOffered()).isFalse();
    }

    @Test
    void tracksTheLastPositionPerChannelAndSendsItWithTheNextSubscribe() {
        RecoveryExtension recovery = new RecoveryExtension();
        recovery.rcvMeta(null, message(Message.META_HANDSHAKE, Map.of("successful", true,
                "ext", Map.of("recovery", true))));
        MapMessage first = message(Message.META_SUBSCRIBE, Map.of("subscription", "/a"));
        recovery.sendMeta(null, first);
        assertThat(recoveryOf(first)).isEqualTo(Map.of());
        MapMessage wildcard = message(Message.META_SUBSCRIBE, Map.of("subscription", "/a/*"));
        recovery.sendMeta(null, wildcard);
        assertThat(recoveryOf(wildcard)).isNull();

        recovery.rcvMeta(null, message(Message.META_SUBSCRIBE, Map.of("successful", true, "subscription", "/a",
                "ext", Map.of("recovery", Map.of("offset", 4, "epoch", "e1")))));
        assertThat(recovery.position("/a")).contains(new RecoveryExtension.Position(4, "e1"));
        recovery.rcv(null, message("/a", Map.of("data", 1, "ext", Map.of("position", Map.of("offset", 5, "epoch", "e1")))));
        recovery.rcv(null, message("/a", Map.of("data", 0, "ext", Map.of("position", Map.of("offset", 3, "epoch", "e1")))));
        assertThat(recovery.position("/a")).contains(new RecoveryExtension.Position(5, "e1"));

        // A re-handshake keeps the positions.
        recovery.rcvMeta(null, message(Message.META_HANDSHAKE, Map.of("successful", true,
                "ext", Map.of("recovery", true))));
        MapMessage again = message(Message.META_SUBSCRIBE, Map.of("subscription", "/a"));
        recovery.sendMeta(null, again);
        assertThat(recoveryOf(again)).isEqualTo(Map.of("offset", 5L, "epoch", "e1"));

        recovery.rcvMeta(null, message(Message.META_SUBSCRIBE, Map.of("successful", true, "subscription", "/a",
                "ext", Map.of("recovery", Map.of("recovered", true, "offset", 9, "epoch", "e1")))));
        assertThat(recovery.recovered("/a")).contains(true);
        assertThat(recovery.position("/a")).as("the missed messages move it, not the reply")
                .contains(new RecoveryExtension.Position(5, "e1"));
        recovery.rcvMeta(null, message(Message.META_SUBSCRIBE, Map.of("successful", true, "subscription", "/a",
                "ext", Map.of("recovery", Map.of("recovered", false, "offset", 2, "epoch", "e2")))));
        assertThat(recovery.recovered("/a")).contains(false);
        assertThat(recovery.position("/a")).contains(new RecoveryExtension.Position(2, "e2"));

        recovery.sendMeta(null, message(Message.META_UNSUBSCRIBE, Map.of("subscription", "/a")));
        assertThat(recovery.position("/a")).isEmpty();
    }

    @Test
    void theBoundOnChannelsIsATypedOptionOfTheClient() {
        assertThat(BayeuxClientConfig.builder("http://127.0.0.1:1/bayeux").build().recoveryMaxChannels())
                .isEqualTo(RecoveryExtension.DEFAULT_MAX_CHANNELS);
        assertThatThrownBy(() -> BayeuxClientConfig.builder("http://127.0.0.1:1/bayeux").recoveryMaxChannels(0))
                .hasMessageContaining("recoveryMaxChannels").hasMessageContaining("0");
        try (BayeuxClient client = new BayeuxClient(BayeuxClientConfig.builder("http://127.0.0.1:1/bayeux")
                .recoveryMaxChannels(2).build())) {
            RecoveryExtension recovery = client.getRecovery().orElseThrow();
            for (int i = 0; i < 10; i++) {
                recovery.rcv(null, message("/w/" + i, Map.of("ext", Map.of("position",
                        Map.of("offset", 1, "epoch", "e1")))));
            }
            assertThat(recovery.channels()).isEqualTo(2);
        }
    }

    @Test
    void theClientAddsOneUnlessTurnedOff() {
        try (BayeuxClient on = new BayeuxClient(BayeuxClientConfig.builder("http://127.0.0.1:1/bayeux").build());
                BayeuxClient off = new BayeuxClient(BayeuxClientConfig.builder("http://127.0.0.1:1/bayeux")
                        .recovery(false).build())) {
            assertThat(on.getRecovery()).isPresent();
            assertThat(on.getExtensions()).contains(on.getRecovery().orElseThrow());
            assertThat(off.getRecovery()).isEmpty();
            assertThat(off.getExtensions()).isEmpty();
        }
    }
}
