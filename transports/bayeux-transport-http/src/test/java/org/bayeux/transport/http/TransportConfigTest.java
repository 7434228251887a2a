package org.bayeux.transport.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.bayeux.server.config.InvalidConfigurationException;
import org.junit.jupiter.api.Test;

class TransportConfigTest {
    private static final Path DOC = Path.of("..", "..", "docs", "configuration.md");
    private static final String BEGIN = "<!-- BEGIN GENERATED: transport options -->";
    private static final String END = "<!-- END GENERATED: transport options -->";

    @Test
    void readsTextValues() {
        TransportConfig config = TransportConfig.fromMap(Map.of("allowedOrigins", "https://a.example, https://b.example",
                "multiSessionInterval", "3s", "duplicateConnectStatus", "503"));
        assertThat(config.allowedOrigins()).containsExactly("https://a.example", "https://b.example");
        assertThat(config.get(TransportConfig.MULTI_SESSION_INTERVAL)).isEqualTo(Duration.ofSeconds(3));
        assertThat(config.get(TransportConfig.DUPLICATE_CONNECT_STATUS)).isEqualTo(503);
        assertThat(TransportConfig.defaults().allowedOrigins()).isEqualTo(List.of());
    }

    @Test
    void readsWebSocketValues() {
        TransportConfig config = TransportConfig.fromMap(Map.of("websocket", "false", "wsIdleTimeout", "90s",
                "wsMaxOutgoingFrameBytes", "2048"));
        assertThat(config.get(TransportConfig.WEBSOCKET)).isFalse();
        assertThat(config.get(TransportConfig.WS_IDLE_TIMEOUT)).isEqualTo(Duration.ofSeconds(90));
        assertThat(config.get(TransportConfig.WS_MAX_FRAME)).isEqualTo(2048);
        assertThatThrownBy(() -> TransportConfig.fromMap(Map.of("wsMaxOutgoingFrameBytes", "100")))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("wsMaxOutgoingFrameBytes");
    }

    @Test
    void badValuesNameTheKey() {
        assertThatThrownBy(() -> TransportConfig.fromMap(Map.of("duplicateConnectStatus", "408")))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("duplicateConnectStatus=408");
        assertThatThrownBy(() -> TransportConfig.fromMap(Map.of("wsIdleTimeout", "10ms")))
                .hasMessageContaining("wsIdleTimeout=10ms");
        assertThatThrownBy(() -> TransportConfig.fromMap(Map.of("allowOrigins", "x"))).hasMessageContaining("known key");
    }

    @Test
    void sessionBindingAndLimitsAreTypedAndValidated() {
        TransportConfig defaults = TransportConfig.defaults();
        assertThat(defaults.get(TransportConfig.REQUIRE_BROWSER_COOKIE)).isTrue();
        assertThat(defaults.get(TransportConfig.MAX_SESSIONS_PER_COOKIE)).isEqualTo(100);
        assertThat(defaults.get(TransportConfig.MAX_SESSIONS_PER_ADDRESS)).isEqualTo(5000);
        assertThat(defaults.get(TransportConfig.MAX_HANDSHAKES_PER_ADDRESS_PER_SECOND)).isEqualTo(200);
        TransportConfig config = TransportConfig.fromMap(Map.of("requireBrowserCookie", "false",
                "maxSessionsPerAddress", "-1", "maxHandshakesPerAddressPerSecond", "10"));
        assertThat(config.get(TransportConfig.REQUIRE_BROWSER_COOKIE)).isFalse();
        assertThat(config.get(TransportConfig.MAX_SESSIONS_PER_ADDRESS)).isEqualTo(-1);
        assertThatThrownBy(() -> TransportConfig.fromMap(Map.of("maxSessionsPerAddress", "-2")))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("maxSessionsPerAddress=-2");
        assertThatThrownBy(() -> TransportConfig.fromMap(Map.of("maxSessionsPerCookie", "many")))
                .hasMessageContaining("maxSessionsPerCookie=many");
        assertThatThrownBy(() -> TransportConfig.fromMap(Map.of("requireBrowserCookie", "maybe")))
                .hasMessageContaining("requireBrowserCookie=maybe");
    }

    @Test
    void sessionBindingIsAModeAndTheOlderSwitchStillTurnsItOff() {
        assertThat(TransportConfig.defaults().sessionBinding()).isEqualTo(SessionBinding.COOKIE_ONCE_SHOWN);
        assertThat(TransportConfig.fromMap(Map.of("sessionBinding", "strict")).sessionBinding())
                .isEqualTo(SessionBinding.STRICT);
        assertThat(TransportConfig.fromMap(Map.of("sessionBinding", "cookie-once-shown")).sessionBinding())
                .isEqualTo(SessionBinding.COOKIE_ONCE_SHOWN);
        assertThat(TransportConfig.fromMap(Map.of("sessionBinding", "NONE")).sessionBinding())
                .isEqualTo(SessionBinding.NONE);
        assertThat(TransportConfig.fromMap(Map.of("sessionBinding", "strict", "requireBrowserCookie", "false"))
                .sessionBinding()).as("requireBrowserCookie=false wins").isEqualTo(SessionBinding.NONE);
        assertThatThrownBy(() -> TransportConfig.fromMap(Map.of("sessionBinding", "loose")))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("sessionBinding=loose");
    }

    @Test
    void sessionLimitsCountRefusalsAndForgetIdleAddresses() {
        SessionLimits limits = new SessionLimits(1, 2, -1);
        SessionLimits.Admission first = limits.admit("cookie", "10.0.0.1");
        assertThat(first.isRefused()).isFalse();
        assertThat(limits.admit("cookie", "10.0.0.1").isRefused()).as("second session of the cookie").isTrue();
        assertThat(limits.refusedPerCookie()).isEqualTo(1);
        assertThat(limits.admit(null, "10.0.0.1").isRefused()).isFalse();
        assertThat(limits.admit(null, "10.0.0.1").isRefused()).as("third session of the address").isTrue();
        assertThat(limits.refusedPerAddress()).isEqualTo(1);
        assertThat(limits.admit(null, "10.0.0.2").isRefused()).isFalse();
        first.releaseUnlessBound();
        first.releaseUnlessBound();
        assertThat(limits.admit("cookie", "10.0.0.1").isRefused()).as("released once, place free again").isFalse();
    }

    /** The transports' table of options has the engine's shape: same base, same builder, same text form. */
    @Test
    void declaredTheSameWayAsTheEngineConfiguration() {
        TransportConfig config = TransportConfig.builder().set(TransportConfig.WS_MAX_FRAME, 4096)
                .set(TransportConfig.WEBSOCKET, false).build();
        assertThat(config).isInstanceOf(org.bayeux.server.config.TypedConfig.class);
        assertThat(org.bayeux.server.config.BayeuxServerConfig.defaults())
                .isInstanceOf(org.bayeux.server.config.TypedConfig.class);
        assertThat(config.toString()).startsWith("TransportConfig{allowedOrigins=[], ")
                .contains("wsMaxOutgoingFrameBytes=4096", "websocket=false");
        assertThat(TransportConfig.fromMap(Map.of("wsMaxOutgoingFrameBytes", "4096")).get(TransportConfig.WS_MAX_FRAME))
                .isEqualTo(4096);
    }

    @Test
    void documentationTableMatchesTheCode() throws Exception {
        String doc = Files.readString(DOC);
        int begin = doc.indexOf(BEGIN);
        int end = doc.indexOf(END);
        assertThat(begin).isNotNegative();
        assertThat(end).isGreaterThan(begin);
        assertThat(doc.substring(begin + BEGIN.length(), end).strip())
                .as("docs/configuration.md is out of date; replace the table with:%n%s", TransportConfig.markdownTable())
                .isEqualTo(TransportConfig.markdownTable().strip());
    }

    @Test
    void corsEchoesOnlyAllowedOrigins() {
        Cors cors = new Cors(List.of("https://App.example"));
        assertThat(cors.allows("https://app.example")).isTrue();
        assertThat(cors.allows("https://evil.example")).isFalse();
        assertThat(cors.allows(null)).isFalse();
        assertThat(cors.allows("null")).isFalse();
        assertThat(new Cors(List.of("*")).allows("https://any.example")).isTrue();
    }

    @Test
    void browserRegistryLimitsHoldsAndForgetsIdleBrowsers() {
        BrowserRegistry browsers = new BrowserRegistry(1);
        String id = browsers.newBrowserId();
        assertThat(id).matches("[0-9a-z]{16}");
        assertThat(browsers.tryHold(id)).isTrue();
        assertThat(browsers.tryHold(id)).isFalse();
        browsers.release(id);
        assertThat(browsers.browsersHolding()).isZero();
        assertThat(browsers.tryHold(id)).isTrue();
        assertThat(new BrowserRegistry(-1).tryHold(id)).isTrue();
    }
}
