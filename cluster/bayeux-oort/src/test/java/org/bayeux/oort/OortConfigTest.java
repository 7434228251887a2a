package org.bayeux.oort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

class OortConfigTest {
    private static final String SECRET = "0123456789abcdef0123456789abcdef-test-secret";

    @Test
    void defaultsAreTwoSecondHeartbeatsTenSecondTimeoutAndEveryChannel() {
        OortConfig config = OortConfig.builder("http://127.0.0.1:8080/bayeux").secret(SECRET).build();

        assertThat(config.heartbeatInterval()).isEqualTo(Duration.ofSeconds(2));
        assertThat(config.peerTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(config.channels()).containsExactly("/**");
        assertThat(config.seeds()).isEmpty();
        assertThat(config.toString()).doesNotContain(SECRET);
    }

    @Test
    void aMissingSecretIsRefusedNamingTheKey() {
        assertThatThrownBy(() -> OortConfig.builder("http://127.0.0.1:8080/bayeux").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("oort.secret is missing");
    }

    @Test
    void aShortSecretIsRefusedNamingTheKeyAndItsLengthButNotItsValue() {
        assertThatThrownBy(() -> OortConfig.builder("http://127.0.0.1:8080/bayeux").secret("too-short-a-secret").build())
                .hasMessageContaining("oort.secret=<18 bytes>")
                .hasMessageContaining("at least 32 bytes")
                .hasMessageNotContaining("too-short-a-secret");
    }

    @Test
    void badValuesAreRefusedNamingKeyAndValue() {
        assertThatThrownBy(() -> OortConfig.builder("not a url").secret(SECRET).build())
                .hasMessageContaining("oort.url=not a url");
        assertThatThrownBy(() -> OortConfig.builder(null).secret(SECRET).build())
                .hasMessageContaining("oort.url is missing");
        assertThatThrownBy(() -> OortConfig.builder("http://a/b").secret(SECRET).seeds(List.of("ftp://x/y")).build())
                .hasMessageContaining("oort.seeds=ftp://x/y");
        assertThatThrownBy(() -> OortConfig.builder("http://a/b").secret(SECRET).channels(List.of("chat")).build())
                .hasMessageContaining("oort.channels=chat");
        assertThatThrownBy(() -> OortConfig.builder("http://a/b").secret(SECRET).channels(List.of("/meta/**"))
                .build()).hasMessageContaining("oort.channels=/meta/**");
        assertThatThrownBy(() -> OortConfig.builder("http://a/b").secret(SECRET)
                .heartbeatInterval(Duration.ZERO).build()).hasMessageContaining("oort.heartbeatInterval=PT0S");
        assertThatThrownBy(() -> OortConfig.builder("http://a/b").secret(SECRET)
                .peerTimeout(Duration.ofSeconds(3)).build()).hasMessageContaining("oort.peerTimeout=PT3S");
        assertThatThrownBy(() -> OortConfig.builder("http://a/b").secret(SECRET).maxMessageBytes(10).build())
                .hasMessageContaining("oort.maxMessageBytes=10");
        assertThatThrownBy(() -> OortConfig.builder("http://a/b").secret(SECRET).maxQueue(0).build())
                .hasMessageContaining("oort.maxQueue=0");
        assertThatThrownBy(() -> OortConfig.builder("http://a/b").secret(SECRET).maxQueueBytes(100).build())
                .hasMessageContaining("oort.maxQueueBytes=100");
    }

    @Test
    void globsAreAccepted() {
        OortConfig config = OortConfig.builder("https://a/b").secret(SECRET)
                .channels(List.of("/**", "/chat/*", "/news/**")).build();

        assertThat(config.channels()).containsExactly("/**", "/chat/*", "/news/**");
    }

    @Test
    void plainLinksToAnotherHostAreRefusedAtStartUnlessTheOperatorOptsIn() {
        assertThatThrownBy(() -> OortConfig.builder("http://10.0.0.1:8080/bayeux").secret(SECRET).build())
                .hasMessageContaining("oort.url=http://10.0.0.1:8080/bayeux")
                .hasMessageContaining("oort.allowPlainLinks=true");
        assertThatThrownBy(() -> OortConfig.builder("https://10.0.0.1:8443/bayeux").secret(SECRET)
                .seeds(List.of("https://10.0.0.2:8443/bayeux", "ws://10.0.0.3:8080/bayeux")).build())
                .hasMessageContaining("oort.seeds=ws://10.0.0.3:8080/bayeux")
                .hasMessageContaining("oort.allowPlainLinks=true");

        OortConfig opted = OortConfig.builder("http://10.0.0.1:8080/bayeux").secret(SECRET)
                .seeds(List.of("http://10.0.0.2:8080/bayeux")).allowPlainLinks(true).build();
        assertThat(opted.allowPlainLinks()).isTrue();
        OortConfig tls = OortConfig.builder("https://node1.example.com/bayeux").secret(SECRET)
                .seeds(List.of("wss://node2.example.com/bayeux")).build();
        assertThat(tls.refusalOf("http://node3.example.com/bayeux")).contains("oort.allowPlainLinks");
        assertThat(tls.refusalOf("https://node3.example.com/bayeux")).isNull();
        for (String loopback : List.of("http://127.0.0.1:1/b", "http://localhost:1/b", "ws://[::1]:1/b",
                "http://127.9.8.7/b")) {
            assertThat(tls.refusalOf(loopback)).as(loopback).isNull();
        }
        assertThat(tls.refusalOf("http://127.0.0.1.evil.example/b")).as("not a loopback literal").isNotNull();
    }

    @Test
    void theAllowListAndTheCapOfKnownUrlsAreChecked() {
        OortConfig listed = OortConfig.builder("https://node1.example.com/bayeux").secret(SECRET)
                .peerHosts(List.of("node1.example.com", "Node2.example.com")).build();
        assertThat(listed.refusalOf("https://node2.example.com/bayeux")).isNull();
        assertThat(listed.refusalOf("https://node3.example.com/bayeux")).contains("oort.peerHosts");
        assertThatThrownBy(() -> OortConfig.builder("https://node1.example.com/bayeux").secret(SECRET)
                .peerHosts(List.of("node1.example.com")).seeds(List.of("https://node9.example.com/bayeux")).build())
                .hasMessageContaining("oort.seeds=https://node9.example.com/bayeux")
                .hasMessageContaining("oort.peerHosts");
        assertThatThrownBy(() -> OortConfig.builder("https://a/b").secret(SECRET).peerHosts(List.of("a/b")).build())
                .hasMessageContaining("oort.peerHosts=a/b");
        assertThatThrownBy(() -> OortConfig.builder("https://a/b").secret(SECRET).maxKnownUrls(0).build())
                .hasMessageContaining("oort.maxKnownUrls=0");
        assertThatThrownBy(() -> OortConfig.builder("https://a/b").secret(SECRET).maxKnownUrls(2)
                .seeds(List.of("https://c/b", "https://d/b")).build())
                .hasMessageContaining("oort.maxKnownUrls=2");
    }
}
