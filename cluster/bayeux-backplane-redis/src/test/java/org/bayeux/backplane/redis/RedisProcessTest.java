package org.bayeux.backplane.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

/** The test support itself: a private redis-server that starts, answers, survives kill -9 on its file, and goes. */
class RedisProcessTest {
    @Test
    void startsOnAFreeLoopbackPortAndStopsByPidRemovingItsDirectory() throws Exception {
        Path directory;
        long pid;
        try (RedisProcess redis = RedisProcess.start()) {
            assertThat(redis.port()).isNotEqualTo(6379);
            assertThat(redis.pings()).isTrue();
            directory = redis.directory();
            pid = redis.pid();
            assertThat(ProcessHandle.of(pid)).isPresent();
        }
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
        assertThat(Files.exists(directory)).isFalse();
    }

    @Test
    void aKilledServerRestartsOnTheSamePortAndDirectory() throws Exception {
        try (RedisProcess redis = RedisProcess.start()) {
            int port = redis.port();
            long first = redis.pid();
            redis.kill();
            assertThat(redis.isAlive()).isFalse();
            assertThat(redis.pings()).isFalse();
            redis.restart();
            assertThat(redis.pid()).isNotEqualTo(first);
            assertThat(redis.port()).isEqualTo(port);
            assertThat(redis.pings()).isTrue();
            assertThat(redis.directory().resolve("appendonlydir")).isDirectory();
        }
    }
}
