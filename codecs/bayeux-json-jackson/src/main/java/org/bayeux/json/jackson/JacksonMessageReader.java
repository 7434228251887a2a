package org.bayeux.json.jackson;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.JsonTokenId;

import org.bayeux.api.json.MalformedJsonException;

/**
 * Builds Java values from a Jackson token stream: maps, lists, strings, numbers, booleans and null, with the
 * codec's rules for numbers, nesting depth and the shape of a batch.
 *
 * <p>The recursion is bounded by the depth limit, which the codec keeps far below what a thread's stack can take.
 * Jackson's own nesting limit is set one level higher than ours so that our clearer message wins.</p>
 */
final class JacksonMessageReader {
    private final int maxNestingDepth;

    /**
     * @param maxNestingDepth the deepest nesting of objects and arrays to accept
     */
    JacksonMessageReader(int maxNestingDepth) {
        this.maxNestingDepth = maxNestingDepth;
    }

    /**
     * Reads a batch: an array of objects, or one bare object, and nothing after it.
     */
    <M extends Map<String, Object>> List<M> readBatch(JsonParser parser, Supplier<M> messageFactory)
            throws IOException, MalformedJsonException {
        JsonToken first = parser.nextToken();
        List<M> messages;
        if (first == JsonToken.START_OBJECT) {
            messages = new ArrayList<>(1);
            messages.add(readObject(parser, messageFactory.get(), 1));
        } else if (first == JsonToken.START_ARRAY) {
            checkDepth(parser, 1);
            messages = readMessages(parser, messageFactory);
        } else if (first == null) {
            throw new MalformedJsonException("no JSON value: the input is empty");
        } else {
            throw error("expected an object or an array of objects but found " + describe(first),
                    parser.currentTokenLocation());
        }
        expectEnd(parser);
        return messages;
    }

    /**
     * Reads any single JSON value, and nothing after it.
     */
    Object readDocument(JsonParser parser) throws IOException, MalformedJsonException {
        JsonToken first = parser.nextToken();
        if (first == null) {
            throw new MalformedJsonException("no JSON value: the input is empty");
        }
        Object value = readValue(parser, first, 0);
        expectEnd(parser);
        return value;
    }

    private <M extends Map<String, Object>> List<M> readMessages(JsonParser parser, Supplier<M> messageFactory)
            throws IOException, MalformedJsonException {
        List<M> messages = new ArrayList<>();
        for (JsonToken token = parser.nextToken(); token != JsonToken.END_ARRAY; token = parser.nextToken()) {
            if (token != JsonToken.START_OBJECT) {
                throw error("element " + messages.size() + " of the batch is " + describe(token) + ", not an object",
                        parser.currentTokenLocation());
            }
            messages.add(readObject(parser, messageFactory.get(), 2));
        }
        if (messages.isEmpty()) {
            throw error("empty batch: an array of messages needs at least one", parser.currentTokenLocation());
        }
        return messages;
    }

    /** Reads the value that starts with {@code token}, found {@code depth} containers deep. */
    private Object readValue(JsonParser parser, JsonToken token, int depth) throws IOException, MalformedJsonException {
        switch (token.id()) {
            case JsonTokenId.ID_STRING:
                return parser.getText();
            case JsonTokenId.ID_START_OBJECT:
                return readObject(parser, new HashMap<>(), depth + 1);
            case JsonTokenId.ID_START_ARRAY:
                return readArray(parser, depth + 1);
            case JsonTokenId.ID_NUMBER_INT:
                return readInteger(parser);
            case JsonTokenId.ID_NUMBER_FLOAT:
                return readDouble(parser);
            case JsonTokenId.ID_TRUE:
                return Boolean.TRUE;
            case JsonTokenId.ID_FALSE:
                return Boolean.FALSE;
            case JsonTokenId.ID_NULL:
                return null;
            default:
                // Jackson reports every other token (a stray ']' or '}') as a syntax error before we see it.
                throw error("unexpected " + token, parser.currentTokenLocation());
        }
    }

    /** Fills {@code map} with the fields of the object whose '{' the parser is on, at level {@code depth}. */
    private <M extends Map<String, Object>> M readObject(JsonParser parser, M map, int depth)
            throws IOException, MalformedJsonException {
        checkDepth(parser, depth);
        for (String name = parser.nextFieldName(); name != null; name = parser.nextFieldName()) {
            // put() replaces, so of duplicate keys the last one wins.
            map.put(name, readValue(parser, parser.nextToken(), depth));
        }
        return map;
    }

    private List<Object> readArray(JsonParser parser, int depth) throws IOException, MalformedJsonException {
        checkDepth(parser, depth);
        List<Object> list = new ArrayList<>();
        for (JsonToken token = parser.nextToken(); token != JsonToken.END_ARRAY; token = parser.nextToken()) {
            list.add(readValue(parser, token, depth));
        }
        return list;
    }

    private static Object readInteger(JsonParser parser) throws IOException {
        // Jackson sizes integers for us: INT and LONG fit in a long, BIG_INTEGER does not.
        if (parser.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
            return parser.getBigIntegerValue();
        }
        return parser.getLongValue();
    }

    private static Object readDouble(JsonParser parser) throws IOException, MalformedJsonException {
        double value = parser.getDoubleValue();
        if (Double.isInfinite(value)) {
            // Accepting it would make a message that can never be encoded again (JSON has no infinity).
            throw error("number " + parser.getText() + " is outside the range of a double",
                    parser.currentTokenLocation());
        }
        return value;
    }

    private void checkDepth(JsonParser parser, int depth) throws MalformedJsonException {
        if (depth > maxNestingDepth) {
            throw error("objects and arrays nested deeper than " + maxNestingDepth + " levels",
                    parser.currentTokenLocation());
        }
    }

    private static void expectEnd(JsonParser parser) throws MalformedJsonException {
        try {
            JsonToken extra = parser.nextToken();
            if (extra != null) {
                throw error("unexpected data after the JSON value", parser.currentTokenLocation());
            }
        } catch (JsonProcessingException e) {
            throw error("unexpected data after the JSON value", e.getLocation());
        } catch (IOException e) {
            throw new MalformedJsonException("unexpected data after the JSON value", e);
        }
    }

    private static String describe(JsonToken token) {
        return switch (token) {
            case START_OBJECT -> "an object";
            case START_ARRAY -> "an array";
            case VALUE_STRING -> "a string";
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
            case VALUE_TRUE, VALUE_FALSE -> "a boolean";
            case VALUE_NULL -> "null";
            default -> token.toString();
        };
    }

    /**
     * @param problem what is wrong
     * @param location where, or null if unknown
     * @return the exception to throw
     */
    static MalformedJsonException error(String problem, JsonLocation location) {
        return new MalformedJsonException(problem + where(location));
    }

    /** @return " at line L, column C", or nothing if the location is unknown */
    static String where(JsonLocation location) {
        if (location == null || location.getLineNr() < 1) {
            return "";
        }
        return " at line " + location.getLineNr() + ", column " + location.getColumnNr();
    }
}
