package org.bayeux.api.json;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * A value with no JSON form, reported with where it sits in the value being encoded ({@code $.data.items[1]}), so
 * that the caller can find the culprit in a large message. Codecs throw it from {@link JsonCodec#toJson(Object)} and
 * {@link JsonCodec#toJsonBytes(Object)}. The path is collected as the exception passes back up
 * through the containers, which costs nothing when encoding succeeds.
 */
public final class UnencodableValueException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /** What cannot be encoded, without the path. */
    private final String problem;
    /** Whether the path to the value is worth reporting (not for a value nested too deep). */
    private final boolean reportsPath;
    /** The path to the value, outermost first, such as {@code .data} then {@code [1]}. */
    private final Deque<String> path = new ArrayDeque<>();

    private UnencodableValueException(String problem, boolean reportsPath) {
        super(problem);
        this.problem = problem;
        this.reportsPath = reportsPath;
    }

    /**
     * @param value a value of a type JSON has no form for
     * @return the exception to throw
     */
    public static UnencodableValueException unsupportedType(Object value) {
        return new UnencodableValueException("cannot encode a " + value.getClass().getName()
                + " as JSON (supported: Map, Collection, Object[], String, Number, Boolean, null, JsonFragment)", true);
    }

    /**
     * @param number a number that is NaN or infinite, or of a Number type the codec does not know
     * @return the exception to throw
     */
    public static UnencodableValueException unsupportedNumber(Number number) {
        String problem = number instanceof Double || number instanceof Float
                ? "cannot encode the number " + number + ": JSON has no NaN or infinity"
                : "cannot encode a " + number.getClass().getName()
                        + " as JSON (supported numbers: Long, Integer, Short, Byte, Double, Float, BigInteger, BigDecimal)";
        return new UnencodableValueException(problem, true);
    }

    /**
     * @param key a map key that is not a String
     * @return the exception to throw
     */
    public static UnencodableValueException nonStringKey(Object key) {
        String type = key == null ? "null" : "a " + key.getClass().getName();
        return new UnencodableValueException("cannot encode a map key that is " + type + " (" + key
                + "); JSON object keys are strings", true);
    }

    /**
     * @param maxDepth the deepest nesting the encoder allows
     * @return the exception to throw
     */
    public static UnencodableValueException tooDeep(int maxDepth) {
        // The path would be as long as the nesting; it tells nothing that the message does not.
        return new UnencodableValueException("cannot encode a value nested deeper than " + maxDepth
                + " levels; does it contain itself?", false);
    }

    /**
     * Records that the bad value was found under a key of an enclosing object.
     *
     * @param key the key
     * @return this exception, to rethrow
     */
    public UnencodableValueException underKey(String key) {
        if (reportsPath) {
            path.addFirst("." + key);
        }
        return this;
    }

    /**
     * Records that the bad value was found at an index of an enclosing array.
     *
     * @param index the index
     * @return this exception, to rethrow
     */
    public UnencodableValueException atIndex(int index) {
        if (reportsPath) {
            path.addFirst("[" + index + "]");
        }
        return this;
    }

    @Override
    public String getMessage() {
        if (path.isEmpty()) {
            return problem;
        }
        return problem + " at $" + String.join("", path);
    }
}
