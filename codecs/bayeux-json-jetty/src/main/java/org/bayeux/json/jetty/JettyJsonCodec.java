package org.bayeux.json.jetty;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

import org.bayeux.api.json.JsonCodec;
import org.bayeux.api.json.MalformedJsonException;
import org.bayeux.api.json.Utf8Validator;

/**
 * The {@link JsonCodec} on Jetty's {@code org.eclipse.jetty.util.ajax.JSON} (jetty-util-ajax), for applications
 * that already run on Jetty and want no other JSON library.
 *
 * <p>Jetty's parser is too lenient for input from the network, so parsing goes through {@link StrictJson}, a
 * subclass that replaces its parsing hooks with strict ones; generation uses Jetty's escaping and number formatting
 * through {@link JsonWriter}. One {@code StrictJson} serves all threads: every parse keeps its state in its own
 * {@link ParseSource}, and every encoding in its own output.</p>
 *
 * <p>Jetty's {@code JSON} reads characters, not bytes, so {@code byte[]} input is decoded first, by
 * {@link Utf8Validator#decode}, which rejects ill-formed UTF-8 instead of replacing it. Byte output is encoded as it
 * is written, and {@link org.bayeux.api.json.JsonFragment}s are copied into it as bytes.</p>
 */
public final class JettyJsonCodec implements JsonCodec {
    /**
     * The highest nesting depth limit a codec accepts. Parsing recurses once per level, so the limit keeps the
     * stack use small whatever the input.
     */
    public static final int MAX_SUPPORTED_NESTING_DEPTH = 500;

    /**
     * The deepest nesting {@link #toJson} writes: twice the deepest a parse accepts, so that anything parsed can be
     * wrapped and re-encoded, while a value that contains itself fails fast instead of overflowing the stack.
     */
    static final int MAX_ENCODING_DEPTH = 2 * MAX_SUPPORTED_NESTING_DEPTH;

    private final int maxNestingDepth;
    private final StrictJson json = new StrictJson();
    private final JsonWriter writer = new JsonWriter(json, MAX_ENCODING_DEPTH);

    /** Creates a codec with the default nesting depth limit, {@link JsonCodec#DEFAULT_MAX_NESTING_DEPTH}. */
    public JettyJsonCodec() {
        this(DEFAULT_MAX_NESTING_DEPTH);
    }

    /**
     * @param maxNestingDepth the deepest nesting of objects and arrays accepted when parsing, from 1 to
     *        {@link #MAX_SUPPORTED_NESTING_DEPTH}
     * @throws IllegalArgumentException if the limit is out of that range
     */
    public JettyJsonCodec(int maxNestingDepth) {
        if (maxNestingDepth < 1 || maxNestingDepth > MAX_SUPPORTED_NESTING_DEPTH) {
            throw new IllegalArgumentException("maxNestingDepth must be between 1 and " + MAX_SUPPORTED_NESTING_DEPTH
                    + ", not " + maxNestingDepth);
        }
        this.maxNestingDepth = maxNestingDepth;
    }

    @Override
    public String name() {
        return JettyJsonCodecProvider.NAME;
    }

    @Override
    public int maxNestingDepth() {
        return maxNestingDepth;
    }

    @Override
    public <M extends Map<String, Object>> List<M> parseMessages(String json, Supplier<M> messageFactory)
            throws MalformedJsonException {
        Objects.requireNonNull(messageFactory, "messageFactory");
        return parseBatch(new ParseSource(json.toCharArray(), json.length(), maxNestingDepth), messageFactory);
    }

    @Override
    public <M extends Map<String, Object>> List<M> parseMessages(byte[] utf8, int offset, int length,
            Supplier<M> messageFactory) throws MalformedJsonException {
        Objects.checkFromIndexSize(offset, length, utf8.length);
        Objects.requireNonNull(messageFactory, "messageFactory");
        return parseBatch(decode(utf8, offset, length), messageFactory);
    }

    @Override
    public Object parse(String json) throws MalformedJsonException {
        try {
            return this.json.parseDocument(new ParseSource(json.toCharArray(), json.length(), maxNestingDepth));
        } catch (JsonSyntaxException e) {
            throw new MalformedJsonException(e.getMessage(), e);
        }
    }

    private <M extends Map<String, Object>> List<M> parseBatch(ParseSource source, Supplier<M> messageFactory)
            throws MalformedJsonException {
        try {
            return json.parseBatch(source, messageFactory);
        } catch (JsonSyntaxException e) {
            throw new MalformedJsonException(e.getMessage(), e);
        }
    }

    /** Decodes strictly: every ill-formed UTF-8 sequence is an error, never a replacement character. */
    private ParseSource decode(byte[] utf8, int offset, int length) throws MalformedJsonException {
        // UTF-8 never has more characters than bytes.
        char[] chars = new char[length];
        int decoded = Utf8Validator.decode(utf8, offset, length, chars);
        if (decoded < 0) {
            throw new MalformedJsonException("invalid UTF-8 at byte offset " + (-1 - decoded));
        }
        return new ParseSource(chars, decoded, maxNestingDepth);
    }

    @Override
    public String toJson(Object value) {
        StringBuilder text = new StringBuilder(256);
        writer.write(text, value);
        return text.toString();
    }

    @Override
    public byte[] toJsonBytes(Object value) {
        Utf8Appendable bytes = new Utf8Appendable(256);
        writer.write(bytes, value);
        return bytes.toByteArray();
    }

    @Override
    public String toString() {
        return "JettyJsonCodec[maxNestingDepth=" + maxNestingDepth + "]";
    }
}
