package org.bayeux.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.bayeux.server.config.InvalidConfigurationException;
import org.junit.jupiter.api.Test;

class OperationsConfigTest {
    private static final Path DOC = Path.of("..", "..", "docs", "configuration.md");
    private static final String BEGIN = "<!-- BEGIN GENERATED: standalone options -->";
    private static final String END = "<!-- END GENERATED: standalone options -->";

    @Test
    void defaultsAndTextValues() {
        OperationsConfig defaults = OperationsConfig.defaults();
        assertThat(defaults.get(OperationsConfig.METRICS_ENABLED)).isTrue();
        assertThat(defaults.get(OperationsConfig.METRICS_JMX)).isTrue();
        assertThat(defaults.get(OperationsConfig.ADMIN_PORT)).isEqualTo(-1);
        OperationsConfig config = OperationsConfig.fromMap(Map.of("metrics.enabled", "false", "admin.port", "9090"));
        assertThat(config.get(OperationsConfig.METRICS_ENABLED)).isFalse();
        assertThat(config.get(OperationsConfig.ADMIN_PORT)).isEqualTo(9090);
        assertThatThrownBy(() -> OperationsConfig.fromMap(Map.of("admin.port", "-2")))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("admin.port=-2");
        assertThatThrownBy(() -> OperationsConfig.fromMap(Map.of("metrics.enabled", "maybe")))
                .hasMessageContaining("metrics.enabled=maybe");
    }

    @Test
    void documentationTableMatchesTheCode() throws Exception {
        String doc = Files.readString(DOC);
        int begin = doc.indexOf(BEGIN);
        int end = doc.indexOf(END);
        assertThat(begin).isNotNegative();
        assertThat(end).isGreaterThan(begin);
        assertThat(doc.substring(begin + BEGIN.length(), end).strip())
                .as("docs/configuration.md is out of date; replace the table with:%n%s",
                        OperationsConfig.markdownTable())
                .isEqualTo(OperationsConfig.markdownTable().strip());
    }
}
