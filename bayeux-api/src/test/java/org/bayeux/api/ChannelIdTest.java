package org.bayeux.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class ChannelIdTest {
    @ParameterizedTest
    @ValueSource(strings = {"/a", "/chat/room1", "/a/*", "/a/**", "/*", "/**", "/meta/connect", "/service/echo",
            "/a b/c", "/x!#$()+-.@_{}~y", "/A/Z/0/9"})
    void acceptsValidNames(String name) {
        assertThat(ChannelId.isValid(name)).isTrue();
        assertThat(ChannelId.of(name).name()).isEqualTo(name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "/", "chat", "//", "/a//b", "/a/", "/a/*/b", "/a/**/b", "/a/b*", "/a/***", "/*a",
            "/a/b%", "/a/\u00e9", "/a/b?c", "/a/b:c", "/a/b,c", "/a\tb"})
    void rejectsInvalidNames(String name) {
        assertThat(ChannelId.isValid(name)).isFalse();
        assertThat(ChannelId.problemWith(name)).isNotBlank();
        assertThatThrownBy(() -> ChannelId.of(name)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(name);
    }

    @Test
    void rejectsNull() {
        assertThat(ChannelId.isValid(null)).isFalse();
        assertThatThrownBy(() -> ChannelId.of(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void classifiesChannels() {
        assertThat(ChannelId.of("/meta/connect").isMeta()).isTrue();
        assertThat(ChannelId.of("/meta/connect").isBroadcast()).isFalse();
        assertThat(ChannelId.of("/service/echo").isService()).isTrue();
        assertThat(ChannelId.of("/service/echo").isBroadcast()).isFalse();
        assertThat(ChannelId.of("/metadata").isMeta()).isFalse();
        assertThat(ChannelId.of("/services/x").isService()).isFalse();
        assertThat(ChannelId.of("/chat/a").isBroadcast()).isTrue();
        assertThat(ChannelId.of("/chat/a").wildcard()).isEqualTo(ChannelId.Wildcard.NONE);
        assertThat(ChannelId.of("/chat/*").wildcard()).isEqualTo(ChannelId.Wildcard.SINGLE);
        assertThat(ChannelId.of("/chat/**").isDeepWildcard()).isTrue();
        assertThat(ChannelId.of("/chat/a/b").depth()).isEqualTo(3);
        assertThat(ChannelId.of("/chat/a/b").segments()).containsExactly("chat", "a", "b");
    }

    @Test
    void singleWildcardMatchesExactlyOneMoreSegment() {
        ChannelId wild = ChannelId.of("/a/*");
        assertThat(wild.matches(ChannelId.of("/a/b"))).isTrue();
        assertThat(wild.matches(ChannelId.of("/a"))).isFalse();
        assertThat(wild.matches(ChannelId.of("/a/b/c"))).isFalse();
        assertThat(wild.matches(ChannelId.of("/b/c"))).isFalse();
        assertThat(ChannelId.of("/*").matches(ChannelId.of("/x"))).isTrue();
        assertThat(ChannelId.of("/*").matches(ChannelId.of("/x/y"))).isFalse();
    }

    @Test
    void deepWildcardMatchesOneOrMoreSegments() {
        ChannelId deep = ChannelId.of("/a/**");
        assertThat(deep.matches(ChannelId.of("/a/b"))).isTrue();
        assertThat(deep.matches(ChannelId.of("/a/b/c"))).isTrue();
        assertThat(deep.matches(ChannelId.of("/a"))).isFalse();
        assertThat(deep.matches(ChannelId.of("/ab/c"))).isFalse();
        assertThat(ChannelId.of("/**").matches(ChannelId.of("/x/y/z"))).isTrue();
    }

    @Test
    void plainChannelMatchesOnlyItself() {
        assertThat(ChannelId.of("/a/b").matches(ChannelId.of("/a/b"))).isTrue();
        assertThat(ChannelId.of("/a/b").matches(ChannelId.of("/a/c"))).isFalse();
    }

    @Test
    void listsWildcardAncestorsNearestFirst() {
        assertThat(ChannelId.of("/a/b/c").wildcardNames()).containsExactly("/a/b/*", "/a/b/**", "/a/**", "/**");
        assertThat(ChannelId.of("/a").wildcardNames()).containsExactly("/*", "/**");
        assertThat(ChannelId.of("/a/*").wildcardNames()).isEmpty();
        for (String wildcard : ChannelId.of("/a/b/c").wildcardNames()) {
            assertThat(ChannelId.of(wildcard).matches(ChannelId.of("/a/b/c"))).as(wildcard).isTrue();
        }
    }

    @Test
    void parentAndEquality() {
        assertThat(ChannelId.of("/a/b/c").parent()).isEqualTo(ChannelId.of("/a/b"));
        assertThat(ChannelId.of("/a").parent()).isNull();
        assertThat(ChannelId.of("/a/b")).isEqualTo(ChannelId.of("/a/b")).hasSameHashCodeAs(ChannelId.of("/a/b"));
    }
}
