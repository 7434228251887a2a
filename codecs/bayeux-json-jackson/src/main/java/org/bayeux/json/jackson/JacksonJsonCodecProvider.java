package org.bayeux.json.jackson;

import org.bayeux.api.json.JsonCodec;
import org.bayeux.api.json.JsonCodecProvider;

/**
 * Provides {@link JacksonJsonCodec} under the name {@value #NAME}; registered with {@link java.util.ServiceLoader}.
 */
public final class JacksonJsonCodecProvider implements JsonCodecProvider {
    /** The codec's name in configuration. */
    public static final String NAME = "jackson";

    /** Creates the provider; {@link java.util.ServiceLoader} needs this constructor. */
    public JacksonJsonCodecProvider() {
        // Stateless.
    }

    @Override
    public String name() {
        return NAME;
    }

    /**
     * @param maxNestingDepth the deepest nesting accepted when parsing, from 1 to
     *        {@link JacksonJsonCodec#MAX_SUPPORTED_NESTING_DEPTH}
     * @return a new codec
     * @throws IllegalArgumentException if the limit is out of that range
     */
    @Override
    public JsonCodec newCodec(int maxNestingDepth) {
        return new JacksonJsonCodec(maxNestingDepth);
    }
}
