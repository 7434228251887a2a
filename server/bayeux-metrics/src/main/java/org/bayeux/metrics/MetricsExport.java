package org.bayeux.metrics;

import java.util.ArrayList;
import java.util.List;

import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.jmx.JmxConfig;
import io.micrometer.jmx.JmxMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * The registries a server exports its meters through: Prometheus text (always, for {@code /metrics}) and, if asked,
 * JMX under the domain {@value #JMX_DOMAIN}; with the JVM's own meters (memory, GC, threads, classes, CPU, uptime,
 * file descriptors) bound next to whatever is {@link #bind bound}. Close it to unregister the JMX beans.
 */
public final class MetricsExport implements AutoCloseable {
    /** The JMX domain of the exported meters. */
    public static final String JMX_DOMAIN = "org.bayeux";
    /** The content type of {@link #scrape()}: the Prometheus text format, version 0.0.4. */
    public static final String PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final JmxMeterRegistry jmx;
    private final CompositeMeterRegistry registry = new CompositeMeterRegistry();
    private final List<AutoCloseable> closeables = new ArrayList<>();

    /**
     * @param withJmx whether the meters are registered as JMX beans too
     */
    public MetricsExport(boolean withJmx) {
        registry.add(prometheus);
        if (withJmx) {
            jmx = new JmxMeterRegistry(new JmxConfig() {
                @Override
                public String get(String key) {
                    return null;
                }

                @Override
                public String domain() {
                    return JMX_DOMAIN;
                }
            }, Clock.SYSTEM);
            registry.add(jmx);
        } else {
            jmx = null;
        }
        new ClassLoaderMetrics().bindTo(registry);
        new JvmMemoryMetrics().bindTo(registry);
        JvmGcMetrics gc = new JvmGcMetrics();
        gc.bindTo(registry);
        closeables.add(gc);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        new FileDescriptorMetrics().bindTo(registry);
    }

    /**
     * @param binder meters to add (a {@link BayeuxMetrics}, a Jetty thread pool's)
     * @return this
     */
    public MetricsExport bind(MeterBinder binder) {
        binder.bindTo(registry);
        return this;
    }

    /** @return the registry every meter goes to (Prometheus, and JMX if on) */
    public MeterRegistry registry() {
        return registry;
    }

    /** @return every meter in the Prometheus text format ({@link #PROMETHEUS_CONTENT_TYPE}) */
    public String scrape() {
        return prometheus.scrape();
    }

    /** @return whether the meters are exported over JMX */
    public boolean hasJmx() {
        return jmx != null;
    }

    @Override
    public void close() {
        for (AutoCloseable closeable : closeables) {
            try {
                closeable.close();
            } catch (Exception ignored) {
                // nothing left to do at close
            }
        }
        registry.close();
        prometheus.close();
        if (jmx != null) {
            jmx.close();
        }
    }
}
