package org.bayeux.server.config;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The one shape of every typed configuration (the engine's {@link BayeuxServerConfig}, the transports'
 * {@code TransportConfig}): a table of {@link ConfigOption}s declared as constants, immutable values looked up by
 * option, a builder that validates each value as it is set, text settings parsed by {@link ConfigOptions#parse}
 * (an unknown key or a bad value fails with an {@link InvalidConfigurationException} naming the key and the value),
 * and the table in {@code docs/configuration.md} rendered by {@link ConfigOptions#markdownTable}.
 */
public abstract class TypedConfig {
    private final List<ConfigOption<?>> options;
    private final Map<ConfigOption<?>, Object> values;

    /**
     * @param options every option of this configuration, in documentation order
     * @param values each option mapped to its value, already validated
     */
    protected TypedConfig(List<ConfigOption<?>> options, Map<ConfigOption<?>, Object> values) {
        this.options = options;
        this.values = Collections.unmodifiableMap(new IdentityHashMap<>(values));
    }

    /**
     * @param option the option
     * @param <T> its type
     * @return its value
     */
    public <T> T get(ConfigOption<T> option) {
        return option.type().cast(values.get(option));
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder(getClass().getSimpleName()).append('{');
        options.forEach(option -> text.append(option.key()).append('=').append(values.get(option)).append(", "));
        if (!options.isEmpty()) {
            text.setLength(text.length() - 2);
        }
        return text.append('}').toString();
    }

    /**
     * Collects values over the defaults; each is validated as it is set.
     *
     * @param <B> the concrete builder, returned by {@link #set}
     */
    public abstract static class Builder<B extends Builder<B>> {
        private final Map<ConfigOption<?>, Object> values;

        /**
         * @param options every option of the configuration built
         */
        protected Builder(List<ConfigOption<?>> options) {
            this.values = ConfigOptions.defaults(options);
        }

        /**
         * @param option the option
         * @param value its value; validated now
         * @param <T> its type
         * @return this builder
         * @throws InvalidConfigurationException if the value breaks the option's rule
         */
        public <T> B set(ConfigOption<T> option, T value) {
            values.put(option, option.validate(value));
            return self();
        }

        /** @return the values collected so far, for the configuration's constructor */
        protected Map<ConfigOption<?>, Object> values() {
            return values;
        }

        @SuppressWarnings("unchecked")
        private B self() {
            return (B) this;
        }
    }
}
