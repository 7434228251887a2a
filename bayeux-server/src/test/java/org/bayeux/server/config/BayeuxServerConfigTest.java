package org.bayeux.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.bayeux.server.BayeuxServerImpl;
import org.junit.jupiter.api.Test;

class BayeuxServerConfigTest {
    private static final Path DOC = Path.of("..", "docs", "configuration.md");
    private static final String BEGIN = "<!-- BEGIN GENERATED: engine options -->";
    private static final String END = "<!-- END GENERATED: engine options -->";

    @Test
    void defaultsAreTheProtocolDefaults() {
        BayeuxServerConfig config = BayeuxServerConfig.defaults();
        assertThat(config.timeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.interval()).isEqualTo(Duration.ZERO);
        assertThat(config.maxInterval()).isEqualTo(Duration.ofSeconds(10));
        assertThat(config.broadcastToPublisher()).isTrue();
        assertThat(config.codec()).isEqualTo("jackson");
    }

    @Test
    void readsTextValuesWithUnits() {
        BayeuxServerConfig config = BayeuxServerConfig.fromMap(Map.of("timeout", "20s", "interval", "250",
                "maxInterval", "PT1M", "maxQueue", "50", "maxQueuePolicy", "drop-oldest", "broadcastToPublisher", "false"));
        assertThat(config.timeout()).isEqualTo(Duration.ofSeconds(20));
        assertThat(config.interval()).isEqualTo(Duration.ofMillis(250));
        assertThat(config.maxInterval()).isEqualTo(Duration.ofMinutes(1));
        assertThat(config.maxQueue()).isEqualTo(50);
        assertThat(config.maxQueuePolicy()).isEqualTo(BayeuxServerConfig.MaxQueuePolicy.DROP_OLDEST);
        assertThat(config.broadcastToPublisher()).isFalse();
    }

    @Test
    void badValuesNameTheKeyAndTheValue() {
        assertThatThrownBy(() -> BayeuxServerConfig.fromMap(Map.of("timeout", "soon")))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("timeout=soon");
        assertThatThrownBy(() -> BayeuxServerConfig.fromMap(Map.of("timeout", "0")))
                .hasMessageContaining("timeout=0").hasMessageContaining("above 0");
        assertThatThrownBy(() -> BayeuxServerConfig.fromMap(Map.of("maxQueue", "-5"))).hasMessageContaining("maxQueue=-5");
        assertThatThrownBy(() -> BayeuxServerConfig.fromMap(Map.of("broadcastToPublisher", "yes")))
                .hasMessageContaining("broadcastToPublisher=yes");
        assertThatThrownBy(() -> BayeuxServerConfig.fromMap(Map.of("maxQueuePolicy", "explode")))
                .hasMessageContaining("maxQueuePolicy=explode").hasMessageContaining("DROP_OLDEST");
        assertThatThrownBy(() -> BayeuxServerConfig.fromMap(Map.of("timeOut", "1s")))
                .hasMessageContaining("timeOut").hasMessageContaining("known key");
        assertThatThrownBy(() -> BayeuxServerConfig.builder().interval(Duration.ofMillis(-1)))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("interval");
    }

    @Test
    void unknownCodecFailsAtStartUpNamingTheKey() {
        BayeuxServerConfig config = BayeuxServerConfig.builder().codec("gson").build();
        assertThatThrownBy(() -> new BayeuxServerImpl(config)).isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("codec=gson");
    }

    @Test
    void documentationTableMatchesTheCode() throws IOException {
        String doc = Files.readString(DOC);
        int begin = doc.indexOf(BEGIN);
        int end = doc.indexOf(END);
        assertThat(begin).as("generated-table markers in " + DOC).isNotNegative();
        assertThat(end).isGreaterThan(begin);
        String table = doc.substring(begin + BEGIN.length(), end).strip();
        assertThat(table).as("docs/configuration.md is out of date; replace the table with:%n%s",
                BayeuxServerConfig.markdownTable()).isEqualTo(BayeuxServerConfig.markdownTable().strip());
    }
}
