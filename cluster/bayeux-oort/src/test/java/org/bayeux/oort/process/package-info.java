/**
 * Oort nodes as real processes for tests: {@link org.bayeux.oort.process.OortNodeMain}, a node's JVM (Jetty, our
 * endpoint and Oort, configured from its arguments, reporting membership on its standard output), and
 * {@link org.bayeux.oort.process.OortProcess}, which starts one from a test (optionally behind a pausable proxy),
 * reads what it reports, and stops or kills it by its PID. Published in this module's test-jar for the interop
 * tests.
 */
package org.bayeux.oort.process;
