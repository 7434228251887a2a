package org.bayeux.client;

import java.time.Duration;

/** The checks that the configuration builders share, and the one form of their error messages. */
final class Checks {
    private Checks() {
    }

    /**
     * @param what what is being configured, for the message: "client configuration", "client resources"
     * @param name the option
     * @param value its value
     * @return the value, if above 0
     * @throws IllegalArgumentException otherwise
     */
    static Duration positive(String what, String name, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw invalid(what, name, value, "a duration above 0");
        }
        return value;
    }

    /**
     * @param what what is being configured
     * @param name the option
     * @param value the value refused
     * @param rule what the value must be
     * @return the exception to throw
     */
    static IllegalArgumentException invalid(String what, String name, Object value, String rule) {
        return new IllegalArgumentException("Invalid " + what + ": " + name + "=" + value + " (must be " + rule + ")");
    }
}
