package org.bayeux.oort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.bayeux.server.config.InvalidConfigurationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OortSettingsTest {
    @TempDir
    Path dir;

    @Test
    void theSecretFileLosesOneTrailingLineBreakAndIsCheckedForLength() throws Exception {
        Path file = dir.resolve("secret");
        Files.writeString(file, "x".repeat(32) + "\r\n");
        OortConfig config = OortSettings.fromMap(Map.of("oort.url", "http://127.0.0.1:1/bayeux",
                "oort.secretFile", file.toString())).toConfig();
        assertThat(config.secret()).hasSize(32);
        Files.writeString(file, "x".repeat(31) + "\n");
        assertThatThrownBy(() -> OortSettings.fromMap(Map.of("oort.url", "http://127.0.0.1:1/bayeux",
                "oort.secretFile", file.toString())).toConfig())
                .hasMessageContaining("oort.secretFile=" + file + " holds 31 bytes").hasMessageNotContaining("xxxx");
    }

    @Test
    void unknownKeysAndBadValuesNameTheKey() {
        assertThatThrownBy(() -> OortSettings.fromMap(Map.of("oort.nope", "1")))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("oort.nope");
        assertThatThrownBy(() -> OortSettings.fromMap(Map.of("oort.maxMessageBytes", "12")))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("oort.maxMessageBytes=12");
        assertThatThrownBy(() -> OortSettings.fromMap(Map.of()).toConfig()).hasMessageContaining("oort.url is missing");
    }

    @Test
    void documentationTableMatchesTheCode() throws Exception {
        String begin = "<!-- BEGIN GENERATED: oort options -->";
        String end = "<!-- END GENERATED: oort options -->";
        String doc = Files.readString(Path.of("..", "..", "docs", "cluster.md"));
        assertThat(doc).contains(begin, end);
        assertThat(doc.substring(doc.indexOf(begin) + begin.length(), doc.indexOf(end)).strip())
                .as("docs/cluster.md is out of date; replace the table with:%n%s", OortSettings.markdownTable())
                .isEqualTo(OortSettings.markdownTable().strip());
    }
}
