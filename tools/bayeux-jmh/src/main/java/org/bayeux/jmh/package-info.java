/**
 * JMH micro-benchmarks, run by hand from {@code bayeux-jmh/target/benchmarks.jar}; the build compiles and packages
 * them but never runs them.
 */
package org.bayeux.jmh;
