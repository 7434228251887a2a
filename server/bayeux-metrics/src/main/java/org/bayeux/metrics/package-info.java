/**
 * Metrics for a Bayeux server through Micrometer: {@link org.bayeux.metrics.BayeuxMetrics} binds an engine's
 * statistics and state to a registry, read when scraped (the engine itself depends on no metrics library), and
 * {@link org.bayeux.metrics.MetricsExport} exports them as Prometheus text and over JMX, with the JVM's meters.
 */
package org.bayeux.metrics;
