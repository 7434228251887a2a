package org.bayeux.api.support;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AttributesTest {
    @Test
    void setGetRemoveAndNames() {
        Attributes attributes = new Attributes();
        assertThat(attributes.get("a")).isNull();
        assertThat(attributes.names()).isEmpty();
        assertThat(attributes.remove("a")).isNull();

        attributes.set("a", 1);
        attributes.set("b", "two");
        assertThat(attributes.get("a")).isEqualTo(1);
        assertThat(attributes.names()).containsExactlyInAnyOrder("a", "b");

        assertThat(attributes.remove("a")).isEqualTo(1);
        assertThat(attributes.names()).containsExactly("b");
    }

    @Test
    void settingNullRemoves() {
        Attributes attributes = new Attributes();
        attributes.set("a", 1);
        attributes.set("a", null);
        assertThat(attributes.get("a")).isNull();
        assertThat(attributes.names()).isEmpty();
    }

    @Test
    void namesAreASnapshot() {
        Attributes attributes = new Attributes();
        attributes.set("a", 1);
        var names = attributes.names();
        attributes.set("b", 2);
        assertThat(names).containsExactly("a");
    }
}
