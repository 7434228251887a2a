package org.bayeux.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.search.MeterNotFoundException;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.bayeux.api.server.LocalSession;
import org.bayeux.server.BayeuxEngine;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The binding on an engine with server-side sessions: lazily read meters, Prometheus names, state gauges. */
class BayeuxMetricsTest {
    private final BayeuxEngine engine = BayeuxEngine.create();
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

    @AfterEach
    void stop() {
        engine.stop();
        registry.close();
    }

    @Test
    void metersReadTheEngineWhenScraped() throws Exception {
        engine.start();
        BayeuxMetrics metrics = new BayeuxMetrics(engine, java.time.Duration.ZERO)
                .gauge("bayeux.extra.gauge", "a test gauge", null, () -> 7);
        metrics.bindTo(registry);
        LocalSession subscriber = engine.newLocalSession("subscriber");
        subscriber.handshake();
        CountDownLatch received = new CountDownLatch(3);
        subscriber.getChannel("/room").subscribe((channel, message) -> received.countDown(), null);
        LocalSession publisher = engine.newLocalSession("publisher");
        publisher.handshake();
        for (int i = 0; i < 3; i++) {
            publisher.getChannel("/room").publish("m" + i, null);
        }
        assertThat(received.await(10, TimeUnit.SECONDS)).isTrue();

        assertThat(registry.get("bayeux.publishes").functionCounter().count()).isEqualTo(3.0);
        assertThat(registry.get("bayeux.deliveries").functionCounter().count()).isEqualTo(3.0);
        assertThat(registry.get("bayeux.sessions").tag("transport", "local").gauge().value()).isEqualTo(2.0);
        assertThat(registry.get("bayeux.subscriptions").gauge().value()).isEqualTo(1.0);
        assertThat(registry.get("bayeux.extra.gauge").gauge().value()).isEqualTo(7.0);
        String text = registry.scrape();
        assertThat(text).contains("bayeux_publishes_total 3.0", "bayeux_sessions{transport=\"local\"} 2.0",
                "# TYPE bayeux_delivery_latency_seconds histogram", "bayeux_queue_bytes ",
                "bayeux_received_bytes_total ", "bayeux_extra_gauge 7.0");

        metrics.unbind();
        assertThat(engine.statistics().toString()).contains("EngineStatistics");
    }

    @Test
    void theEngineErrorsHaveCountersFromTheStartAndRegisteredOnesWhenRegistered() {
        new BayeuxMetrics(engine).bindTo(registry);
        assertThat(registry.get("bayeux.errors").tags("code", "402", "reason", "session_unknown").functionCounter()
                .count()).isEqualTo(0.0);
        assertThat(registry.get("bayeux.errors").tags("code", "413", "reason", "batch_limit").functionCounter()
                .count()).isEqualTo(0.0);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> registry.get("bayeux.errors")
                .tags("reason", "quota_exceeded").functionCounter()).isInstanceOf(MeterNotFoundException.class);
        engine.statistics().registerError(429, "quota_exceeded");
        assertThat(registry.get("bayeux.errors").tags("code", "429", "reason", "quota_exceeded").functionCounter()
                .count()).isEqualTo(0.0);
        assertThat(registry.scrape()).doesNotContain("reason=\"\"");
    }
}
