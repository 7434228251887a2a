package org.bayeux.standalone.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.server.ServerChannel;
import org.bayeux.server.BayeuxEngine;
import org.bayeux.server.config.BayeuxServerConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The admin page's two counters: latency percentiles by bucket, busiest channels with their bound. */
class AdminCountersTest {
    private final BayeuxEngine engine = BayeuxEngine.create(BayeuxServerConfig.builder().build());

    @AfterEach
    void stop() {
        engine.stop();
    }

    @Test
    void percentilesAreBucketBoundsNeverAboveTheLargestSample() {
        LatencyHistogram histogram = new LatencyHistogram();
        for (int i = 0; i < 98; i++) {
            histogram.accept(TimeUnit.MICROSECONDS.toNanos(80)); // in the 50-100 µs bucket
        }
        histogram.accept(TimeUnit.MILLISECONDS.toNanos(3)); // 2.5-5 ms
        histogram.accept(TimeUnit.MILLISECONDS.toNanos(4));
        Map<String, Object> interval = histogram.drain();
        assertThat(interval).containsEntry("samples", 100L).containsEntry("p50", 0.1).containsEntry("p90", 0.1)
                .containsEntry("p99", 4.0).containsEntry("max", 4.0);
        assertThat(histogram.drain()).containsEntry("samples", 0L).containsEntry("p50", null)
                .containsEntry("max", null);
    }

    @Test
    void busiestChannelsAreTheIntervalsAndBounded() {
        engine.start();
        ChannelCounter counter = new ChannelCounter();
        ServerChannel a = engine.createChannelIfAbsent("/a");
        ServerChannel b = engine.createChannelIfAbsent("/b");
        for (int i = 0; i < 5; i++) {
            counter.onMessage(null, a, null);
        }
        counter.onMessage(null, b, null);
        List<Map<String, Object>> first = counter.drain(10, 2.0);
        assertThat(first).containsExactly(Map.of("channel", "/a", "messages", 5L, "rate", 2.5),
                Map.of("channel", "/b", "messages", 1L, "rate", 0.5));
        counter.onMessage(null, b, null);
        assertThat(counter.drain(10, 1.0)).as("only the interval's messages")
                .containsExactly(Map.of("channel", "/b", "messages", 1L, "rate", 1.0));

        for (int i = 0; i < ChannelCounter.MAX_CHANNELS + 5; i++) {
            counter.onMessage(null, engine.createChannelIfAbsent("/many/" + i), null);
        }
        List<Map<String, Object>> bounded = counter.drain(3, 1.0);
        assertThat(bounded).hasSize(4);
        assertThat(bounded.get(3)).as("channels beyond the bound, together")
                .isEqualTo(Map.of("channel", "other", "messages", 7L, "rate", 7.0));
        counter.onMessage(null, engine.createChannelIfAbsent("/late"), null);
        assertThat(counter.drain(10, 1.0)).as("the map started again at the bound")
                .containsExactly(Map.of("channel", "/late", "messages", 1L, "rate", 1.0));
    }
}
