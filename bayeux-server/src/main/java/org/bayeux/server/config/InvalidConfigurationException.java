package org.bayeux.server.config;

/**
 * A configuration value that breaks its key's rule. The message names the key, the value and the rule.
 */
public class InvalidConfigurationException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;
    private final String key;

    /**
     * @param key the configuration key
     * @param value the bad value
     * @param rule what the value must be
     */
    public InvalidConfigurationException(String key, String value, String rule) {
        super("Invalid configuration: " + key + "=" + value + " (must be " + rule + ")");
        this.key = key;
    }

    /** @return the key whose value is bad */
    public String key() {
        return key;
    }
}
