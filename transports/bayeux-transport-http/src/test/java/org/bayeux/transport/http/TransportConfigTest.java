package org.bayeux.transport.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
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
        TransportConfig config = TransportConfig.fromMap(Map.of("allowedOrigins", "https://a.example,https://b.example",
                "websocket", "false", "wsIdleTimeout", "90s", "wsMaxOutgoingFrameBytes", "2048"));
        assertThat(config.allowedOrigins()).containsExactly("https://a.example", "https://b.example");
        assertThat(config.get(TransportConfig.WEBSOCKET)).isFalse();
        assertThat(config.get(TransportConfig.WS_IDLE_TIMEOUT)).isEqualTo(Duration.ofSeconds(90));
        assertThat(config.get(TransportConfig.WS_MAX_FRAME)).isEqualTo(2048);
        assertThat(TransportConfig.defaults().allowedOrigins()).isEqualTo(List.of());
    }

    @Test
    void badValuesNameTheKey() {
        assertThatThrownBy(() -> TransportConfig.fromMap(Map.of("wsIdleTimeout", "10ms")))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("wsIdleTimeout=10ms");
        assertThatThrownBy(() -> TransportConfig.fromMap(Map.of("wsMaxOutgoingFrameBytes", "100")))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("wsMaxOutgoingFrameBytes");
        assertThatThrownBy(() -> TransportConfig.fromMap(Map.of("webSocket", "true")))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("webSocket");
    }

    @Test
    void documentationTableMatchesTheCode() throws IOException {
        String doc = Files.readString(DOC);
        int begin = doc.indexOf(BEGIN);
        int end = doc.indexOf(END);
        assertThat(begin).as("generated-table markers in " + DOC).isNotNegative();
        assertThat(end).isGreaterThan(begin);
        String table = doc.substring(begin + BEGIN.length(), end).strip();
        assertThat(table).as("docs/configuration.md is out of date; replace the transport table with:%n%s",
                TransportConfig.markdownTable()).isEqualTo(TransportConfig.markdownTable().strip());
    }
}
