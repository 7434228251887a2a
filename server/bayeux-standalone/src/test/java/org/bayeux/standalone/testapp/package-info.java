/**
 * Test applications for the standalone server's application SPI: the tests put their classes into jars they write
 * (with a {@code META-INF/services} file), which the server loads with {@code --classpath} or from the
 * distribution's {@code apps/} folder. Nothing here is on the server's own class path outside tests.
 */
package org.bayeux.standalone.testapp;
