package org.bayeux.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

class ConfigOptionTest {
    @Test
    void aSizeMayPassTwoGibibytesAndNamesTheKeyWhenBad() {
        ConfigOption<Long> size = ConfigOption.size("limitBytes", 1024L, n -> n >= 1024, "a size of at least 1024",
                "A limit.");
        assertThat(size.type()).isEqualTo(Long.class);
        assertThat(size.parse("5000000000")).isEqualTo(5_000_000_000L);
        assertThat(size.validate(5_000_000_000L)).isEqualTo(5_000_000_000L);
        assertThatThrownBy(() -> size.parse("12")).isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("limitBytes=12");
        assertThatThrownBy(() -> size.parse("lots")).hasMessageContaining("limitBytes=lots");
    }

    @Test
    void aListWithAnItemRuleNamesTheFirstBadItemOnBothPaths() {
        ConfigOption<List<String>> hosts = ConfigOption.list("hosts", List.of(), host -> !host.contains("/"),
                "host names", "Hosts.");
        assertThat(hosts.parse("a, b,,c")).containsExactly("a", "b", "c");
        assertThatThrownBy(() -> hosts.parse("a,b/c,d/e")).isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("hosts=b/c (must be host names)");
        assertThatThrownBy(() -> hosts.validate(List.of("a", "x/y"))).hasMessageContaining("hosts=x/y");
        assertThatThrownBy(() -> hosts.validate(Arrays.asList("a", null))).hasMessageContaining("hosts=null");
        assertThat(ConfigOption.list("words", List.of(), "Words.").parse("x/y")).containsExactly("x/y");
    }
}
