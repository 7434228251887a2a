package org.bayeux.backplane.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.bayeux.server.config.InvalidConfigurationException;
import org.junit.jupiter.api.Test;

/** The position spliced into a message's JSON, and the history rules: no Redis needed. */
class PositionsTest {
    private static String spliced(String json) {
        return new String(Positions.withPosition(json.getBytes(StandardCharsets.UTF_8), 7, "abc"),
                StandardCharsets.UTF_8);
    }

    @Test
    void aPositionGoesIntoExtWhereverExtIs() {
        String position = "\"position\":{\"offset\":7,\"epoch\":\"abc\"}";
        assertThat(spliced("{\"channel\":\"/a\",\"data\":1}"))
                .isEqualTo("{\"ext\":{" + position + "},\"channel\":\"/a\",\"data\":1}");
        assertThat(spliced("{\"channel\":\"/a\",\"ext\":{}}")).isEqualTo("{\"channel\":\"/a\",\"ext\":{" + position + "}}");
        assertThat(spliced("{\"channel\":\"/a\",\"ext\":{\"k\":\"}\\\"{\",\"n\":{\"x\":[1,{}]}},\"data\":{\"ext\":2}}"))
                .isEqualTo("{\"channel\":\"/a\",\"ext\":{\"k\":\"}\\\"{\",\"n\":{\"x\":[1,{}]}," + position
                        + "},\"data\":{\"ext\":2}}");
        assertThat(spliced("{\"data\":{\"ext\":{\"a\":1}},\"channel\":\"/a\"}"))
                .as("an ext inside data is not the message's").startsWith("{\"ext\":{" + position + "},");
        assertThat(spliced("{\"ext\":null,\"channel\":\"/a\"}")).as("ext not an object: left alone")
                .isEqualTo("{\"ext\":null,\"channel\":\"/a\"}");
        assertThat(Positions.of(Map.of("position", Map.of("offset", 3, "epoch", "e")))).containsExactly(3L, "e");
        assertThat(Positions.isPlainEpoch("aZ0-_")).isTrue();
        assertThat(Positions.isPlainEpoch("a\"b")).isFalse();
    }

    @Test
    void historyRulesApplyFirstMatchElseNoHistory() {
        HistoryRules rules = new HistoryRules(HistoryRules.parse("/chat/**=50/1m, /ticks/*=0/1s, /news/**"), 1000,
                Duration.ofMinutes(10));
        assertThat(rules.ruleFor("/chat/a/b").size()).isEqualTo(50);
        assertThat(rules.ruleFor("/chat/a/b").age()).isEqualTo(Duration.ofMinutes(1));
        assertThat(rules.ruleFor("/ticks/x").size()).isZero();
        assertThat(rules.keepsHistory("/ticks/x/y")).as("no rule: no history").isFalse();
        assertThat(rules.ruleFor("/news/a/b").size()).as("a rule without bounds takes the defaults").isEqualTo(1000);
        assertThat(rules.ruleFor("/news/a/b").age()).isEqualTo(Duration.ofMinutes(10));
        assertThat(rules.any()).isTrue();
        assertThat(new HistoryRules(HistoryRules.parse(" "), 1000, Duration.ofMinutes(10)).any()).isFalse();
        assertThat(HistoryRules.parse(" ")).isEmpty();
        for (String bad : List.of("chat/**", "/chat=x/1m", "/chat=10/forever", "/meta/x=1/1s", "chat=1/1s",
                "/a=-1/1s", "/a=1/0s")) {
            assertThatThrownBy(() -> RedisBackplaneConfig.fromMap(Map.of("historyRules", bad)))
                    .as(bad).isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("historyRules");
        }
        assertThatThrownBy(() -> RedisBackplaneConfig.fromMap(Map.of("historySize", "-1")))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("historySize");
        assertThatThrownBy(() -> RedisBackplaneConfig.fromMap(Map.of("recoveryMaxMessages", "0")))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("recoveryMaxMessages");
    }

    @Test
    void historyKeysShareTheFanOutStreamsHashTag() {
        StreamShards shards = new StreamShards("bayeux", 16);
        String stream = shards.keyOf("/chat/room");
        String tag = stream.substring(stream.indexOf('{'));
        assertThat(shards.metaKeyOf("/chat/room")).isEqualTo("bayeux:meta:" + tag + ":10:/chat/room");
        assertThat(shards.historyKeyOf("/chat/room")).isEqualTo("bayeux:history:" + tag + ":10:/chat/room");
    }
}
