package org.bayeux.backplane.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import org.bayeux.backplane.redis.BackplaneFixture.Node;
import org.bayeux.server.config.BayeuxServerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * History's byte caps, per channel ({@code historyMaxBytes}) and per shard ({@code historyShardMaxBytes}), read back
 * from a real redis-server after publishes through a real node: bytes kept, never time.
 */
class HistoryCapsTest {
    @RegisterExtension
    final BackplaneFixture fixture = new BackplaneFixture();

    private static String payload(int bytes) {
        return "x".repeat(bytes);
    }

    /** @return the bytes of messages a history holds, as Redis has it */
    private static long bytesOf(RedisStats redis, String channel) {
        List<String> keys = redis.keys("*:history:*:" + channel);
        if (keys.isEmpty()) {
            return 0;
        }
        long bytes = 0;
        for (StreamMessage<String, String> entry : redis.commands().xrange(keys.get(0), Range.create("-", "+"))) {
            bytes += entry.getBody().get("m").length();
        }
        return bytes;
    }

    @Test
    void aChannelsHistoryKeepsAtMostItsBytesTheOldestGoingFirst() throws Exception {
        Node node = fixture.node(BayeuxServerConfig.builder().build(), BudgetFixtures.readingAll(fixture.config()
                .historyRules("/chat/**=1000/10m").historyMaxBytes(10_000, 1 << 20)));
        RawBayeux publisher = new RawBayeux(node.url());
        publisher.handshake();
        for (int i = 0; i < 50; i++) {
            assertThat(publisher.publish("/chat/room", payload(1_000), null).get("successful")).isEqualTo(true);
        }
        assertThat(publisher.publish("/chat/room", payload(20_000), null).get("successful"))
                .as("larger than the cap: published, not kept").isEqualTo(true);
        try (RedisStats redis = fixture.closing(new RedisStats(fixture.redis().uri()))) {
            long kept = bytesOf(redis, "/chat/room");
            assertThat(kept).isPositive().isLessThanOrEqualTo(10_000);
            String key = redis.keys("*:history:*:/chat/room").get(0);
            List<StreamMessage<String, String>> entries = redis.commands().xrange(key, Range.create("-", "+"));
            assertThat(entries.get(entries.size() - 1).getBody().get("o")).as("the newest kept is the 50th")
                    .isEqualTo("50");
            String bytesKey = redis.keys("*:history-bytes:*").get(0);
            assertThat(Long.parseLong(redis.commands().hget(bytesKey, key))).as("the shard's accounting")
                    .isEqualTo(kept);
        }
    }

    @Test
    void aShardsHistoriesKeepAtMostTheirBytesDroppingTheOnesThatExpireFirst() throws Exception {
        Node node = fixture.node(BayeuxServerConfig.builder().build(), BudgetFixtures.readingAll(fixture.config()
                .set(RedisBackplaneConfig.SHARDS, 1).historyRules("/chat/**=1000/10m")
                .historyMaxBytes(1 << 20, 20_000)));
        RawBayeux publisher = new RawBayeux(node.url());
        publisher.handshake();
        for (int i = 0; i < 15; i++) {
            assertThat(publisher.publish("/chat/a", payload(1_000), null).get("successful")).isEqualTo(true);
        }
        for (int i = 0; i < 15; i++) {
            assertThat(publisher.publish("/chat/b", payload(1_000), null).get("successful")).isEqualTo(true);
        }
        try (RedisStats redis = fixture.closing(new RedisStats(fixture.redis().uri()))) {
            long a = bytesOf(redis, "/chat/a");
            long b = bytesOf(redis, "/chat/b");
            assertThat(a + b).as("both histories together").isLessThanOrEqualTo(20_000);
            assertThat(a).as("the history that would expire first, dropped whole").isZero();
            assertThat(b).as("all 15 of /chat/b kept").isGreaterThanOrEqualTo(15_000);
            String bytesKey = redis.keys("*:history-bytes:*").get(0);
            assertThat(Long.parseLong(redis.commands().hget(bytesKey, "total"))).isEqualTo(a + b);
        }
    }
}
