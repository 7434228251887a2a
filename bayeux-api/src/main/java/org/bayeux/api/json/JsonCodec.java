package org.bayeux.api.json;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Turns JSON text into Java values and back, for Bayeux messages.
 *
 * <p>The Java side of JSON is: {@code Map<String, Object>} for objects (keys in document order is not required),
 * {@code List<Object>} for arrays, {@code String}, {@code Boolean}, {@code null}, and numbers as {@code Long} for
 * integers that fit, {@code BigInteger} for larger integers and {@code Double} for the rest. Encoding also accepts
 * any {@code Number}, {@code Object[]} and {@code Collection}, and {@link JsonFragment} (pre-encoded JSON written as
 * is).</p>
 *
 * <p>Implementations are thread-safe and reject, with {@link MalformedJsonException}, input that is not JSON,
 * that nests deeper than {@link #maxNestingDepth()}, or whose top level is not what the method expects. The
 * codecs of this project accept depths from 1 to 500, and refuse to encode values nested deeper than 1,000 levels
 * (which also catches a value that contains itself).</p>
 */
public interface JsonCodec {
    /** The nesting depth a codec allows unless told otherwise. */
    int DEFAULT_MAX_NESTING_DEPTH = 64;

    /** @return the codec's name in configuration, for example {@code jackson} */
    String name();

    /** @return the deepest nesting of objects and arrays accepted when parsing */
    int maxNestingDepth();

    /**
     * Parses a Bayeux batch: a JSON array of objects, or a single object.
     *
     * @param json the text
     * @param messageFactory makes the map each top-level object is read into
     * @param <M> the message type
     * @return the messages, in order; never empty
     * @throws MalformedJsonException if the text is not JSON, is an empty array, or holds anything but objects
     */
    <M extends Map<String, Object>> List<M> parseMessages(String json, Supplier<M> messageFactory)
            throws MalformedJsonException;

    /**
     * Parses a Bayeux batch from UTF-8 bytes.
     *
     * @param utf8 the bytes
     * @param offset where the text starts
     * @param length how many bytes it has
     * @param messageFactory makes the map each top-level object is read into
     * @param <M> the message type
     * @return the messages, in order; never empty
     * @throws MalformedJsonException as {@link #parseMessages(String, Supplier)}
     */
    default <M extends Map<String, Object>> List<M> parseMessages(byte[] utf8, int offset, int length,
            Supplier<M> messageFactory) throws MalformedJsonException {
        return parseMessages(new String(utf8, offset, length, StandardCharsets.UTF_8), messageFactory);
    }

    /**
     * Parses any JSON value.
     *
     * @param json the text
     * @return the value
     * @throws MalformedJsonException if the text is not a single JSON value
     */
    Object parse(String json) throws MalformedJsonException;

    /**
     * Encodes a value as JSON text.
     *
     * @param value the value
     * @return the JSON text
     * @throws IllegalArgumentException if the value holds something that has no JSON form
     */
    String toJson(Object value);

    /**
     * Encodes a value as UTF-8 JSON bytes.
     *
     * @param value the value
     * @return the JSON bytes
     * @throws IllegalArgumentException if the value holds something that has no JSON form
     */
    default byte[] toJsonBytes(Object value) {
        return toJson(value).getBytes(StandardCharsets.UTF_8);
    }
}
