package org.bayeux.json.jetty;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import org.eclipse.jetty.util.ajax.JSON;

/**
 * Jetty's {@link JSON} made strict, for parsing untrusted input.
 *
 * <p>Jetty's parser is lenient by design: it accepts comments, {@code undefined} and {@code NaN}, trailing commas,
 * unknown escapes, raw control characters and unterminated strings; it wraps long integers silently; and it loads
 * and instantiates the class named by a {@code "class"} field. None of that is acceptable for bytes from the
 * network, so this subclass overrides every parsing hook ({@link #parse(Source)}, {@link #parseObject},
 * {@link #parseArray}, {@link #parseString}, {@link #parseNumber}) with RFC 8259 rules, the codec's number mapping
 * and a nesting limit. Sources must be {@link ParseSource}s, which carry the per-parse state.</p>
 *
 * <p>Generation stays Jetty's (string escaping, number and literal formatting); {@link JsonWriter} adds the checks
 * on what may be encoded.</p>
 */
final class StrictJson extends JSON {
    /** Integers longer than this are refused: parsing one costs time quadratic in its length. */
    static final int MAX_NUMBER_DIGITS = 1000;

    /**
     * Parses a Bayeux batch: an array of objects, or one object, and nothing after it.
     *
     * @param in the text
     * @param messageFactory makes each top-level object
     * @param <M> the message type
     * @return the messages, never empty
     * @throws JsonSyntaxException if the text is not such a batch
     */
    <M extends Map<String, Object>> List<M> parseBatch(ParseSource in, Supplier<M> messageFactory) {
        in.skipWhitespace();
        if (!in.hasNext()) {
            throw new JsonSyntaxException("no JSON value: the input is empty");
        }
        char first = in.peek();
        List<M> messages;
        if (first == '{') {
            messages = new ArrayList<>(1);
            messages.add(parseObjectInto(in, messageFactory.get()));
        } else if (first == '[') {
            messages = parseMessages(in, messageFactory);
        } else {
            throw in.error("expected an object or an array of objects but found " + describeValueAt(first));
        }
        expectEnd(in);
        return messages;
    }

    /**
     * Parses any single JSON value, and nothing after it.
     *
     * @param in the text
     * @return the value
     * @throws JsonSyntaxException if the text is not one JSON value
     */
    Object parseDocument(ParseSource in) {
        in.skipWhitespace();
        if (!in.hasNext()) {
            throw new JsonSyntaxException("no JSON value: the input is empty");
        }
        Object value = parse(in);
        expectEnd(in);
        return value;
    }

    private <M extends Map<String, Object>> List<M> parseMessages(ParseSource in, Supplier<M> messageFactory) {
        in.enterContainer();
        in.next();
        List<M> messages = new ArrayList<>();
        char c = in.peekAfterWhitespace("a message");
        if (c == ']') {
            throw in.error("empty batch: an array of messages needs at least one");
        }
        while (true) {
            if (c != '{') {
                throw in.error("element " + messages.size() + " of the batch is " + describeValueAt(c)
                        + ", not an object");
            }
            messages.add(parseObjectInto(in, messageFactory.get()));
            c = in.peekAfterWhitespace("',' or ']'");
            if (c == ']') {
                in.next();
                break;
            }
            if (c != ',') {
                throw in.error("expected ',' or ']' but found " + describeCharacter(c));
            }
            in.next();
            c = in.peekAfterWhitespace("a message");
        }
        in.exitContainer();
        return messages;
    }

    private static void expectEnd(ParseSource in) {
        in.skipWhitespace();
        if (in.hasNext()) {
            throw in.error("unexpected data after the JSON value");
        }
    }

    @Override
    public Object parse(Source source) {
        ParseSource in = ParseSource.of(source);
        char c = in.peekAfterWhitespace("a value");
        switch (c) {
            case '{':
                return parseObject(in);
            case '[':
                return parseArray(in);
            case '"':
                return parseString(in);
            case 't':
                expectLiteral(in, "true");
                return Boolean.TRUE;
            case 'f':
                expectLiteral(in, "false");
                return Boolean.FALSE;
            case 'n':
                expectLiteral(in, "null");
                return null;
            default:
                if (c == '-' || (c >= '0' && c <= '9')) {
                    return parseNumber(in);
                }
                throw in.error("expected a value but found " + describeCharacter(c));
        }
    }

    @Override
    protected Map<String, Object> newMap() {
        return new HashMap<>();
    }

    @Override
    protected Object parseObject(Source source) {
        return parseObjectInto(ParseSource.of(source), newMap());
    }

    /** Reads the object whose '{' is next into the given map; of duplicate keys, the last wins. */
    private <M extends Map<String, Object>> M parseObjectInto(ParseSource in, M map) {
        in.enterContainer();
        in.next();
        char c = in.peekAfterWhitespace("a key or '}'");
        if (c == '}') {
            in.next();
            in.exitContainer();
            return map;
        }
        while (true) {
            if (c != '"') {
                throw in.error("expected a key in double quotes but found " + describeCharacter(c));
            }
            String key = parseString(in);
            c = in.peekAfterWhitespace("':'");
            if (c != ':') {
                throw in.error("expected ':' after the key but found " + describeCharacter(c));
            }
            in.next();
            map.put(key, parse(in));
            c = in.peekAfterWhitespace("',' or '}'");
            if (c == '}') {
                in.next();
                break;
            }
            if (c != ',') {
                throw in.error("expected ',' or '}' but found " + describeCharacter(c));
            }
            in.next();
            c = in.peekAfterWhitespace("a key");
        }
        in.exitContainer();
        return map;
    }

    @Override
    protected Object parseArray(Source source) {
        ParseSource in = ParseSource.of(source);
        in.enterContainer();
        in.next();
        // Always a mutable ArrayList: Jetty would return an Object[] or an immutable list.
        List<Object> list = new ArrayList<>();
        char c = in.peekAfterWhitespace("a value or ']'");
        if (c == ']') {
            in.next();
            in.exitContainer();
            return list;
        }
        while (true) {
            list.add(parse(in));
            c = in.peekAfterWhitespace("',' or ']'");
            if (c == ']') {
                in.next();
                break;
            }
            if (c != ',') {
                throw in.error("expected ',' or ']' but found " + describeCharacter(c));
            }
            in.next();
        }
        in.exitContainer();
        return list;
    }

    @Override
    protected String parseString(Source source) {
        ParseSource in = ParseSource.of(source);
        char[] chars = in.chars;
        int start = in.index + 1;
        // Most strings have no escape: find the closing quote and copy once.
        for (int i = start; i < in.length; i++) {
            char c = chars[i];
            if (c == '"') {
                in.index = i + 1;
                return new String(chars, start, i - start);
            }
            if (c == '\\') {
                return parseEscapedString(in, start, i);
            }
            if (c < 0x20) {
                throw in.error("unescaped control character " + describeCharacter(c) + " in a string", i);
            }
        }
        throw in.error("unterminated string", start - 1);
    }

    /** Continues a string whose first backslash is at {@code escapeAt}. */
    private static String parseEscapedString(ParseSource in, int start, int escapeAt) {
        char[] chars = in.chars;
        StringBuilder text = new StringBuilder(escapeAt - start + 16);
        text.append(chars, start, escapeAt - start);
        int i = escapeAt;
        int runStart = i;
        while (i < in.length) {
            char c = chars[i];
            if (c == '"') {
                text.append(chars, runStart, i - runStart);
                in.index = i + 1;
                return text.toString();
            }
            if (c == '\\') {
                text.append(chars, runStart, i - runStart);
                i = appendEscape(in, i, text);
                runStart = i;
            } else if (c < 0x20) {
                throw in.error("unescaped control character " + describeCharacter(c) + " in a string", i);
            } else {
                i++;
            }
        }
        throw in.error("unterminated string", start - 1);
    }

    /** Appends the escape whose backslash is at {@code at}; returns the index after it. */
    private static int appendEscape(ParseSource in, int at, StringBuilder text) {
        if (at + 1 >= in.length) {
            throw in.error("unterminated string", at);
        }
        char escaped = in.chars[at + 1];
        switch (escaped) {
            case '"', '\\', '/' -> text.append(escaped);
            case 'b' -> text.append('\b');
            case 'f' -> text.append('\f');
            case 'n' -> text.append('\n');
            case 'r' -> text.append('\r');
            case 't' -> text.append('\t');
            case 'u' -> {
                if (at + 6 > in.length) {
                    throw in.error("a \\u escape needs four hex digits", at);
                }
                int code = 0;
                for (int i = at + 2; i < at + 6; i++) {
                    int digit = hexValue(in.chars[i]);
                    if (digit < 0) {
                        throw in.error("a \\u escape needs four hex digits", at);
                    }
                    code = code << 4 | digit;
                }
                // Unpaired surrogates are kept as they are, as other JSON parsers do.
                text.append((char) code);
                return at + 6;
            }
            default -> throw in.error("invalid escape \\" + escaped + " in a string", at);
        }
        return at + 2;
    }

    @Override
    protected Number parseNumber(Source source) {
        ParseSource in = ParseSource.of(source);
        char[] chars = in.chars;
        int end = in.length;
        int start = in.index;
        int i = start;
        boolean negative = chars[i] == '-';
        if (negative) {
            i++;
        }
        int integerStart = i;
        if (i < end && chars[i] == '0') {
            // JSON forbids leading zeros: "01" is "0" followed by garbage, which the caller rejects.
            i++;
        } else if (i < end && isDigit(chars[i])) {
            i = skipDigits(chars, i, end);
        } else {
            throw in.error("expected a digit", i);
        }
        int integerDigits = i - integerStart;
        int fractionDigits = 0;
        boolean integral = true;
        if (i < end && chars[i] == '.') {
            integral = false;
            int fractionStart = ++i;
            i = skipDigits(chars, i, end);
            fractionDigits = i - fractionStart;
            if (fractionDigits == 0) {
                throw in.error("expected a digit after the decimal point", i);
            }
        }
        if (i < end && (chars[i] == 'e' || chars[i] == 'E')) {
            integral = false;
            i++;
            if (i < end && (chars[i] == '+' || chars[i] == '-')) {
                i++;
            }
            int exponentStart = i;
            i = skipDigits(chars, i, end);
            if (i == exponentStart) {
                throw in.error("expected a digit in the exponent", i);
            }
        }
        if (integerDigits + fractionDigits > MAX_NUMBER_DIGITS) {
            throw in.error("number with more than " + MAX_NUMBER_DIGITS + " digits", start);
        }
        in.index = i;
        if (integral) {
            return toInteger(chars, start, integerStart, i, negative);
        }
        double value = Double.parseDouble(new String(chars, start, i - start));
        if (Double.isInfinite(value)) {
            // Accepting it would make a message that can never be encoded again (JSON has no infinity).
            throw in.error("number " + new String(chars, start, i - start) + " is outside the range of a double",
                    start);
        }
        return value;
    }

    /** Long if it fits, BigInteger if not. */
    private static Number toInteger(char[] chars, int start, int digitsStart, int end, boolean negative) {
        int digits = end - digitsStart;
        if (digits <= 18) {
            // Eighteen digits always fit in a long: no overflow check needed.
            long value = 0;
            for (int i = digitsStart; i < end; i++) {
                value = value * 10 + (chars[i] - '0');
            }
            return negative ? -value : value;
        }
        String text = new String(chars, start, end - start);
        if (digits == 19) {
            try {
                return Long.parseLong(text);
            } catch (NumberFormatException beyondLong) {
                return new BigInteger(text);
            }
        }
        return new BigInteger(text);
    }

    private static int skipDigits(char[] chars, int from, int end) {
        int i = from;
        while (i < end && isDigit(chars[i])) {
            i++;
        }
        return i;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static void expectLiteral(ParseSource in, String literal) {
        for (int i = 0; i < literal.length(); i++) {
            if (in.index + i >= in.length || in.chars[in.index + i] != literal.charAt(i)) {
                throw in.error("expected the literal " + literal, in.index);
            }
        }
        in.index += literal.length();
    }

    /** @return the value of an ASCII hex digit, or -1 (unlike {@link Character#digit}, which takes any script) */
    private static int hexValue(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -1;
    }

    /** Names the kind of value that starts with {@code c}, for error messages. */
    private static String describeValueAt(char c) {
        return switch (c) {
            case '{' -> "an object";
            case '[' -> "an array";
            case '"' -> "a string";
            case 't', 'f' -> "a boolean";
            case 'n' -> "null";
            default -> c == '-' || isDigit(c) ? "a number" : describeCharacter(c);
        };
    }

    /** Quotes a character for an error message, showing control characters by code. */
    static String describeCharacter(char c) {
        if (c < 0x20 || (c >= 0x7F && c <= 0xA0) || c == '\uFEFF') {
            return String.format("U+%04X", (int) c);
        }
        return "'" + c + "'";
    }
}
