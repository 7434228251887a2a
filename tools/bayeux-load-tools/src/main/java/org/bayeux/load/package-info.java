/**
 * The load client behind {@code bin/bayeux load} and {@code bin/bayeux load compare}: simulated clients (our Java
 * client, a raw protocol-only client, or CometD's client) driven alike through {@link org.bayeux.load.LoadClient},
 * publishing open loop at a fixed rate, with every delivery counted exactly and its latency recorded in
 * HdrHistogram. The figures of {@code docs/benchmarks.md} come from here.
 */
package org.bayeux.load;
