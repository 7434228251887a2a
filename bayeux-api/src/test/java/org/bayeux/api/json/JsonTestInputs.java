package org.bayeux.api.json;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Stream;

import org.junit.jupiter.params.provider.Arguments;

/**
 * Inputs shared by the codec contract tests: the ways JSON text reaches a codec, and the catalogue of malformed
 * and deeply nested documents every codec must reject.
 */
public final class JsonTestInputs {
    private JsonTestInputs() {
    }

    /** The three ways a test hands JSON text to {@link JsonCodec#parseMessages}. */
    public enum Input {
        /** As a {@code String}. */
        STRING,
        /** As UTF-8 bytes filling a whole array. */
        BYTES,
        /** As UTF-8 bytes in the middle of a larger array, to check that offset and length are honoured. */
        BYTES_IN_LARGER_ARRAY;

        /**
         * Parses a batch the way this input kind says.
         *
         * @param codec the codec under test
         * @param json the text
         * @param messageFactory makes the top-level maps
         * @param <M> the message type
         * @return the messages
         * @throws MalformedJsonException if the codec rejects the text
         */
        public <M extends Map<String, Object>> List<M> parseMessages(JsonCodec codec, String json,
                Supplier<M> messageFactory) throws MalformedJsonException {
            return switch (this) {
                case STRING -> codec.parseMessages(json, messageFactory);
                case BYTES, BYTES_IN_LARGER_ARRAY ->
                        parseBytes(codec, json.getBytes(StandardCharsets.UTF_8), messageFactory);
            };
        }

        /**
         * Parses a batch given as bytes (which need not be valid UTF-8) the way this input kind says; the
         * {@link #STRING} kind decodes them leniently first.
         *
         * @param codec the codec under test
         * @param utf8 the bytes
         * @param messageFactory makes the top-level maps
         * @param <M> the message type
         * @return the messages
         * @throws MalformedJsonException if the codec rejects the bytes
         */
        public <M extends Map<String, Object>> List<M> parseBytes(JsonCodec codec, byte[] utf8,
                Supplier<M> messageFactory) throws MalformedJsonException {
            return switch (this) {
                case STRING -> codec.parseMessages(new String(utf8, StandardCharsets.UTF_8), messageFactory);
                case BYTES -> codec.parseMessages(utf8, 0, utf8.length, messageFactory);
                case BYTES_IN_LARGER_ARRAY -> {
                    // Valid JSON around the slice makes a codec that ignores offset or length fail loudly.
                    byte[] before = "[{\"wrong\":1}] ".getBytes(StandardCharsets.US_ASCII);
                    byte[] after = " [{\"wrong\":2}]".getBytes(StandardCharsets.US_ASCII);
                    byte[] padded = new byte[before.length + utf8.length + after.length];
                    System.arraycopy(before, 0, padded, 0, before.length);
                    System.arraycopy(utf8, 0, padded, before.length, utf8.length);
                    System.arraycopy(after, 0, padded, before.length + utf8.length, after.length);
                    yield codec.parseMessages(padded, before.length, utf8.length, messageFactory);
                }
            };
        }
    }

    /**
     * @param depth how many arrays to nest
     * @return {@code [[...]]} nested {@code depth} deep
     */
    public static String nestedArrays(int depth) {
        return "[".repeat(depth) + "]".repeat(depth);
    }

    /**
     * @param depth how many objects to nest
     * @return {@code {"a":{"a":...{}}}} nested {@code depth} deep
     */
    public static String nestedObjects(int depth) {
        return "{\"a\":".repeat(depth - 1) + "{}" + "}".repeat(depth - 1);
    }

    /**
     * Texts that are not JSON, or not one JSON value, as batches. Every codec must reject each of them.
     *
     * @return the cases, each a short description and the text
     */
    public static Stream<Arguments> notJsonBatches() {
        return Stream.of(
                Arguments.of("empty input", ""),
                Arguments.of("only whitespace", " \t\r\n"),
                Arguments.of("a bare word", "hello"),
                Arguments.of("unclosed object", "{"),
                Arguments.of("unclosed array", "["),
                Arguments.of("unclosed batch", "[{}"),
                Arguments.of("unclosed message", "[{\"channel\":\"/a\""),
                Arguments.of("unclosed string", "[{\"channel\":\"/a}]"),
                Arguments.of("unclosed string at the end", "[{\"channel\":\"/a"),
                Arguments.of("extra closing bracket", "[{}]]"),
                Arguments.of("trailing word", "[{}] x"),
                Arguments.of("trailing second batch", "[{}] [{}]"),
                Arguments.of("two bare objects", "{}{}"),
                Arguments.of("trailing comma in object", "[{\"a\":1,}]"),
                Arguments.of("trailing comma in array", "[{},]"),
                Arguments.of("leading comma in array", "[,{}]"),
                Arguments.of("double comma", "[{},,{}]"),
                Arguments.of("missing comma", "[{} {}]"),
                Arguments.of("missing colon", "[{\"a\" 1}]"),
                Arguments.of("missing value", "[{\"a\":}]"),
                Arguments.of("key without value", "[{\"a\"}]"),
                Arguments.of("unquoted key", "[{a:1}]"),
                Arguments.of("single-quoted key", "[{'a':1}]"),
                Arguments.of("single-quoted string", "[{\"a\":'b'}]"),
                Arguments.of("number as key", "[{1:1}]"),
                Arguments.of("undefined", "[{\"a\":undefined}]"),
                Arguments.of("NaN", "[{\"a\":NaN}]"),
                Arguments.of("Infinity", "[{\"a\":Infinity}]"),
                Arguments.of("leading zero", "[{\"a\":01}]"),
                Arguments.of("leading plus", "[{\"a\":+1}]"),
                Arguments.of("bare minus", "[{\"a\":-}]"),
                Arguments.of("dot without digits after", "[{\"a\":1.}]"),
                Arguments.of("dot without digits before", "[{\"a\":.5}]"),
                Arguments.of("exponent without digits", "[{\"a\":1e}]"),
                Arguments.of("exponent sign without digits", "[{\"a\":1e+}]"),
                Arguments.of("hex number", "[{\"a\":0x1F}]"),
                Arguments.of("number glued to a word", "[{\"a\":1true}]"),
                Arguments.of("truncated true", "[{\"a\":tru}]"),
                Arguments.of("truncated null", "[{\"a\":nul}]"),
                Arguments.of("capitalised literal", "[{\"a\":True}]"),
                Arguments.of("unknown escape", "[{\"a\":\"\\x\"}]"),
                Arguments.of("short unicode escape", "[{\"a\":\"\\u12\"}]"),
                Arguments.of("non-hex unicode escape", "[{\"a\":\"\\u12G4\"}]"),
                Arguments.of("raw tab in string", "[{\"a\":\"x\ty\"}]"),
                Arguments.of("raw newline in string", "[{\"a\":\"x\ny\"}]"),
                Arguments.of("raw NUL in string", "[{\"a\":\"x\u0000y\"}]"),
                Arguments.of("block comment before", "/* c */[{}]"),
                Arguments.of("line comment after", "[{}] // c"),
                Arguments.of("comment inside", "[{\"a\":/* c */1}]"),
                Arguments.of("byte order mark", "\uFEFF[{}]"),
                Arguments.of("vertical tab as whitespace", "[\u000B{}]"),
                Arguments.of("non-breaking space as whitespace", "[\u00A0{}]"));
    }

    /**
     * Texts that are JSON but not a batch: every codec's {@code parseMessages} rejects them, naming what it found.
     *
     * @return the cases, each the text and a phrase the error message must contain
     */
    public static Stream<Arguments> jsonThatIsNotABatch() {
        return Stream.of(
                Arguments.of("[]", "empty"),
                Arguments.of(" [ \n ] ", "empty"),
                Arguments.of("[42]", "not an object"),
                Arguments.of("[[]]", "not an object"),
                Arguments.of("[\"x\"]", "not an object"),
                Arguments.of("[null]", "not an object"),
                Arguments.of("[true]", "not an object"),
                Arguments.of("[{\"channel\":\"/a\"},7]", "not an object"),
                Arguments.of("42", "object"),
                Arguments.of("-1.5", "object"),
                Arguments.of("\"x\"", "object"),
                Arguments.of("null", "object"),
                Arguments.of("false", "object"));
    }

    /**
     * Byte sequences that are not UTF-8, each inside an otherwise valid batch.
     *
     * @return the cases, each a description, the bytes and the offset of the first bad byte
     */
    public static Stream<Arguments> invalidUtf8Batches() {
        return Stream.of(
                invalidUtf8("lone continuation byte", 0x80),
                invalidUtf8("byte 0xFF", 0xFF),
                invalidUtf8("overlong two-byte NUL", 0xC0, 0x80),
                invalidUtf8("overlong two-byte slash", 0xC1, 0xAF),
                invalidUtf8("overlong three-byte", 0xE0, 0x80, 0x80),
                invalidUtf8("overlong four-byte", 0xF0, 0x80, 0x80, 0x80),
                invalidUtf8("encoded high surrogate", 0xED, 0xA0, 0x80),
                invalidUtf8("encoded low surrogate", 0xED, 0xB0, 0x80),
                invalidUtf8("above U+10FFFF", 0xF4, 0x90, 0x80, 0x80),
                invalidUtf8("lead byte 0xF5", 0xF5, 0x80, 0x80, 0x80),
                invalidUtf8("three-byte sequence cut short", 0xE2, 0x82),
                invalidUtf8("four-byte sequence cut short", 0xF0, 0x9F, 0x98),
                Arguments.of("bad byte in a key", concat(bytes("[{\"k"), new byte[] {(byte) 0xFF}, bytes("\":1}]")), 4),
                Arguments.of("bad byte after the batch", concat(bytes("[{}]"), new byte[] {(byte) 0xFF}), 4),
                Arguments.of("sequence cut by the end of input", concat(bytes("[{}] "), new byte[] {(byte) 0xE2}), 5));
    }

    private static Arguments invalidUtf8(String description, int... badBytes) {
        byte[] bad = new byte[badBytes.length];
        for (int i = 0; i < badBytes.length; i++) {
            bad[i] = (byte) badBytes[i];
        }
        byte[] before = bytes("[{\"data\":\"ab");
        return Arguments.of(description, concat(before, bad, bytes("cd\"}]")), before.length);
    }

    private static byte[] bytes(String ascii) {
        return ascii.getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] concat(byte[]... parts) {
        int length = 0;
        for (byte[] part : parts) {
            length += part.length;
        }
        byte[] all = new byte[length];
        int at = 0;
        for (byte[] part : parts) {
            System.arraycopy(part, 0, all, at, part.length);
            at += part.length;
        }
        return all;
    }
}
