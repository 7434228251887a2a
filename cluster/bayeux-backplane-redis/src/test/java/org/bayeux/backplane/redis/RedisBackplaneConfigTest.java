package org.bayeux.backplane.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.bayeux.server.config.InvalidConfigurationException;
import org.junit.jupiter.api.Test;

class RedisBackplaneConfigTest {
    @Test
    void textSettingsAreParsedAndTyped() {
        RedisBackplaneConfig config = RedisBackplaneConfig.fromMap(Map.of("redisUri", "redis://127.0.0.1:7000",
                "operationTimeout", "750ms", "streamMaxLength", "5000", "shards", "4"));
        assertThat(config.uri()).isEqualTo("redis://127.0.0.1:7000");
        assertThat(config.operationTimeout()).isEqualTo(Duration.ofMillis(750));
        assertThat(config.streamMaxLength()).isEqualTo(5000);
        assertThat(config.shards()).isEqualTo(4);
        assertThat(config.readBatch()).isEqualTo(256);
    }

    @Test
    void badValuesFailNamingTheKeyAndTheValue() {
        assertThatThrownBy(() -> RedisBackplaneConfig.fromMap(Map.of("operationTimeout", "soon")))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("operationTimeout")
                .hasMessageContaining("soon");
        assertThatThrownBy(() -> RedisBackplaneConfig.fromMap(Map.of("operationTimeout", "0ms")))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("operationTimeout=0ms");
        assertThatThrownBy(() -> RedisBackplaneConfig.fromMap(Map.of("streamMaxLength", "10")))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("streamMaxLength=10");
        assertThatThrownBy(() -> RedisBackplaneConfig.fromMap(Map.of("redisUri", "http://x")))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("redisUri=http://x");
        assertThatThrownBy(() -> RedisBackplaneConfig.fromMap(Map.of("keyPrefix", "a{b}")))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("keyPrefix");
        assertThatThrownBy(() -> RedisBackplane.builder().operationTimeout(Duration.ofHours(1)))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("operationTimeout");
        assertThatThrownBy(() -> RedisBackplaneConfig.fromMap(Map.of("nope", "1")))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("nope");
    }

    @Test
    void redisClusterUrisAreValidatedNamingTheKeyAndTheValue() {
        RedisBackplaneConfig config = RedisBackplaneConfig.fromMap(
                Map.of("redisUri", "redis-cluster://127.0.0.1:7000,127.0.0.1:7001,localhost:7002"));
        assertThat(RedisLink.isCluster(config.uri())).isTrue();
        assertThat(RedisLink.clusterSeeds(config.uri())).extracting(uri -> uri.getHost() + ":" + uri.getPort())
                .containsExactly("127.0.0.1:7000", "127.0.0.1:7001", "localhost:7002");
        assertThat(RedisLink.isCluster("redis://127.0.0.1:7000")).isFalse();
        for (String bad : new String[] {"redis-cluster://", "redis-cluster://127.0.0.1", "redis-cluster://h:0",
            "redis-cluster://h:70000", "redis-cluster://h:1,,h:2", "redis-cluster://h:x", "redis-cluster://:7000",
            "redis-cluster://h:7000/0"}) {
            assertThatThrownBy(() -> RedisBackplaneConfig.fromMap(Map.of("redisUri", bad))).as(bad)
                    .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("redisUri=" + bad)
                    .hasMessageContaining("redis-cluster://HOST:PORT,HOST:PORT");
        }
        assertThatThrownBy(() -> RedisLink.clusterSeeds("redis-cluster://h:1,nope")).hasMessageContaining("'nope'");
    }

    @Test
    void sentinelUrisAreValidatedNamingTheKeyAndTheValue() {
        RedisBackplaneConfig config = RedisBackplaneConfig.fromMap(
                Map.of("redisUri", "redis-sentinel://127.0.0.1:26379,localhost:26380/mymaster"));
        RedisEndpoint endpoint = RedisEndpoint.resolve(config);
        assertThat(endpoint.cluster()).isFalse();
        assertThat(endpoint.sentinelMaster()).isEqualTo("mymaster");
        assertThat(endpoint.seeds()).hasSize(1);
        assertThat(endpoint.seeds().get(0).getSentinelMasterId()).isEqualTo("mymaster");
        assertThat(endpoint.seeds().get(0).getSentinels()).extracting(uri -> uri.getHost() + ":" + uri.getPort())
                .containsExactly("127.0.0.1:26379", "localhost:26380");
        assertThat(endpoint.description()).isEqualTo("Redis Sentinel 127.0.0.1:26379,localhost:26380 master mymaster");
        RedisEndpoint withPassword = RedisEndpoint.resolve(RedisBackplaneConfig.fromMap(
                Map.of("redisUri", "redis-sentinel://:s3cret@127.0.0.1:26379/mymaster")));
        assertThat(String.valueOf(withPassword.seeds().get(0).getCredentialsProvider().resolveCredentials().block()
                .getPassword())).isEqualTo("s3cret");
        assertThat(withPassword.description()).doesNotContain("s3cret");
        for (String bad : new String[] {"redis-sentinel://127.0.0.1:26379", "redis-sentinel://127.0.0.1:26379/",
            "redis-sentinel:///mymaster", "redis-sentinel://h:0/m", "redis-sentinel://h:1,,h:2/m",
            "redis-sentinel://h:1/my master", "redis-sentinel://h:x/m"}) {
            assertThatThrownBy(() -> RedisBackplaneConfig.fromMap(Map.of("redisUri", bad))).as(bad)
                    .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("redisUri=" + bad)
                    .hasMessageContaining("redis-sentinel://HOST:PORT,HOST:PORT");
        }
        assertThatThrownBy(() -> RedisBackplaneConfig.fromMap(Map.of("redisUri",
                "rediss-sentinel://127.0.0.1:26379/mymaster"))).isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("redisUri=rediss-sentinel://127.0.0.1:26379/mymaster")
                .hasMessageContaining("Sentinel over TLS").hasMessageContaining("not supported");
    }

    @Test
    void minReplicasIsValidatedAndRefusedOnARedisCluster() {
        assertThat(RedisBackplaneConfig.defaults().minReplicas()).isZero();
        assertThat(RedisBackplaneConfig.fromMap(Map.of("minReplicas", "2")).minReplicas()).isEqualTo(2);
        assertThatThrownBy(() -> RedisBackplaneConfig.fromMap(Map.of("minReplicas", "-1")))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("minReplicas=-1");
        assertThatThrownBy(() -> RedisBackplaneConfig.fromMap(Map.of("minReplicas", "many")))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("minReplicas=many");
        RedisBackplaneConfig onCluster = RedisBackplaneConfig.fromMap(Map.of("redisUri",
                "redis-cluster://127.0.0.1:7000", "minReplicas", "1"));
        assertThatThrownBy(onCluster::checkCredentials).isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("minReplicas=1").hasMessageContaining("Redis Cluster");
        RedisEndpoint.resolve(RedisBackplaneConfig.fromMap(Map.of("redisUri", "redis-sentinel://127.0.0.1:1/m",
                "minReplicas", "1")));
    }

    @Test
    void documentationTableMatchesTheCode() throws Exception {
        String begin = "<!-- BEGIN GENERATED: backplane options -->";
        String end = "<!-- END GENERATED: backplane options -->";
        String doc = Files.readString(Path.of("..", "..", "docs", "cluster.md"));
        assertThat(doc).contains(begin, end);
        assertThat(doc.substring(doc.indexOf(begin) + begin.length(), doc.indexOf(end)).strip())
                .as("docs/cluster.md is out of date; replace the table with:%n%s", RedisBackplaneConfig.markdownTable())
                .isEqualTo(RedisBackplaneConfig.markdownTable().strip());
    }

    @Test
    void aChannelAlwaysGoesToTheSameHashTaggedStream() {
        StreamShards shards = new StreamShards("bayeux", 16);
        assertThat(shards.keyOf("/chat/room")).isEqualTo(shards.keyOf("/chat/room")).matches("bayeux:fanout:\\{\\d+}");
        assertThat(shards.indexOf(shards.keyOf("/chat/room"))).isBetween(0, 15);
        assertThat(shards.indexOf("other")).isEqualTo(-1);
        String stream = shards.keyOf("/chat/room");
        String tag = stream.substring(stream.indexOf('{'));
        assertThat(shards.idempotencyKeyOf("/chat/room", "p1", "k1")).as("same slot as the channel's stream")
                .isEqualTo("bayeux:idem:" + tag + ":10:/chat/room:p1:k1");
        assertThat(HistoryCalls.publisherDigest("client-1")).as("a digest, not the clientId")
                .doesNotContain("client-1").hasSize(22).isNotEqualTo(HistoryCalls.publisherDigest("client-2"));
    }
}
