package org.bayeux.oort;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

class JoinProofTest {
    private static final byte[] SECRET = OortTestNode.SECRET.getBytes(StandardCharsets.UTF_8);
    private static final String B = "http://127.0.0.1:2/bayeux";
    private final Clock clock = Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);
    private final JoinProof proof = new JoinProof(SECRET, clock, Duration.ofSeconds(30));

    @Test
    void aFreshProofIsGoodOnceForItsTarget() {
        Map<String, Object> ext = proof.make("node-a", "http://127.0.0.1:1/bayeux", B);

        JoinProof.Peer peer = proof.verify(ext, B);
        assertThat(peer.id()).isEqualTo("node-a");
        assertThat(peer.url()).isEqualTo("http://127.0.0.1:1/bayeux");
        assertThat(proof.verify(ext, B)).as("replayed").isNull();
    }

    @Test
    void bothSidesOfAJoinMakeTheSameForwardKeyAndNoOtherJoinDoes() {
        Map<String, Object> ext = proof.make("node-a", "http://127.0.0.1:1/bayeux", B);
        JoinProof.Peer accepted = proof.verify(ext, B);
        ForwardAuth joiner = proof.forwardAuth((String) ext.get("nonce"), accepted.acceptNonce(), "node-a", B);
        String mac = joiner.sign("node-a", "node-b", 7, 6, "/chat/a", "{\"channel\":\"/chat/a\"}");

        assertThat(accepted.forwards().verify("node-a", "node-b", 7, 6, "/chat/a", "{\"channel\":\"/chat/a\"}", mac)).isTrue();
        assertThat(accepted.forwards().verify("node-a", "node-b", 8, 6, "/chat/a", "{\"channel\":\"/chat/a\"}", mac))
                .as("another number").isFalse();
        assertThat(accepted.forwards().verify("node-a", "node-b", 7, 6, "/chat/b", "{\"channel\":\"/chat/a\"}", mac))
                .as("another channel").isFalse();
        JoinProof.Peer another = proof.verify(proof.make("node-a", "http://127.0.0.1:1/bayeux", B), B);
        assertThat(another.forwards().verify("node-a", "node-b", 7, 6, "/chat/a", "{\"channel\":\"/chat/a\"}", mac))
                .as("the key of another join").isFalse();
        assertThat(accepted.forwards().verify("node-a", "node-c", 7, 6, "/chat/a", "{\"channel\":\"/chat/a\"}", mac))
                .as("a chain for another incarnation").isFalse();
        assertThat(accepted.forwards().verify("node-a", "node-b", 7, 6, "/chat/a", "{\"channel\":\"/chat/a\"}", null))
                .as("unsigned").isFalse();
    }

    @Test
    void aProofForAnotherNodeOrTamperedOrStaleOrUnderAnotherSecretIsRefused() {
        assertThat(proof.verify(proof.make("a", "http://a/b", B), "http://127.0.0.1:3/bayeux")).isNull();

        Map<String, Object> tampered = new HashMap<>(proof.make("a", "http://a/b", B));
        tampered.put("url", "http://evil/bayeux");
        assertThat(proof.verify(tampered, B)).isNull();

        JoinProof earlier = new JoinProof(SECRET, Clock.offset(clock, Duration.ofSeconds(-31)), Duration.ofSeconds(30));
        assertThat(proof.verify(earlier.make("a", "http://a/b", B), B)).as("too old").isNull();

        JoinProof other = new JoinProof("another-secret-of-at-least-32-bytes!".getBytes(StandardCharsets.UTF_8),
                clock, Duration.ofSeconds(30));
        assertThat(proof.verify(other.make("a", "http://a/b", B), B)).isNull();

        assertThat(proof.verify("not a map", B)).isNull();
        assertThat(proof.verify(Map.of("id", "a"), B)).isNull();
    }
}
