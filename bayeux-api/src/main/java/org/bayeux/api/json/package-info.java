/**
 * The JSON codec SPI: how Bayeux messages become JSON text and back. Codec modules implement
 * {@link org.bayeux.api.json.JsonCodecProvider} and register it with {@link java.util.ServiceLoader}.
 */
package org.bayeux.api.json;
