/**
 * The JSON codec on Jackson's streaming API: {@link org.bayeux.json.jackson.JacksonJsonCodec}, found by
 * configuration as {@code jackson} through {@link org.bayeux.json.jackson.JacksonJsonCodecProvider}.
 */
package org.bayeux.json.jackson;
