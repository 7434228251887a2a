/**
 * The JSON codec on Jetty's jetty-util-ajax {@code JSON}: {@link org.bayeux.json.jetty.JettyJsonCodec}, found by
 * configuration as {@code jetty} through {@link org.bayeux.json.jetty.JettyJsonCodecProvider}.
 */
package org.bayeux.json.jetty;
