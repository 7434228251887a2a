package org.bayeux.api.json;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/**
 * Makes {@link JsonCodec}s; found with {@link ServiceLoader}, so that adding a codec module to the class path is
 * enough to make its name usable in configuration.
 */
public interface JsonCodecProvider {
    /** @return the name configuration uses to choose this codec, for example {@code jackson} */
    String name();

    /**
     * @param maxNestingDepth the deepest nesting of objects and arrays the codec accepts when parsing
     * @return a new codec
     */
    JsonCodec newCodec(int maxNestingDepth);

    /**
     * Finds a provider by name on the class path of the given loader.
     *
     * @param name the codec name
     * @param loader the class loader to search
     * @return the provider
     * @throws IllegalArgumentException if no provider has that name; the message lists the names available
     */
    static JsonCodecProvider find(String name, ClassLoader loader) {
        List<String> names = new ArrayList<>();
        for (JsonCodecProvider provider : ServiceLoader.load(JsonCodecProvider.class, loader)) {
            if (provider.name().equals(name)) {
                return provider;
            }
            names.add(provider.name());
        }
        throw new IllegalArgumentException("No JSON codec named '" + name + "' on the class path; available: " + names);
    }
}
