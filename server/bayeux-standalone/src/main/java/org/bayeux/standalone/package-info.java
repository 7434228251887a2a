/**
 * The standalone server behind {@code bin/bayeux server} and {@code bin/bayeux demo}: a Jetty server with the
 * Bayeux endpoint at {@code /bayeux}, optional static files, TLS from a key store or PEM files, and a guard that
 * closes connections sending requests too slowly.
 */
package org.bayeux.standalone;
