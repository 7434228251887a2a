package org.bayeux.backplane.redis;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * A message's position in its channel, carried in its {@code ext}: {@code "ext":{"position":{"offset":12,
 * "epoch":"k3J9x0aQ"}}}. The offset counts the channel's publishes from 1 within the epoch; the epoch names one
 * unbroken history of the channel and changes when that history is lost.
 *
 * <p>The position is written into the JSON text as it comes out of Redis, without parsing and encoding the message
 * again: a scan of the top level finds {@code ext} (or its absence), and the position is inserted as the object's last
 * member, so that it replaces one the publisher may have put there in every parser that keeps the last of duplicate
 * keys (Jackson and Jetty's JSON do).</p>
 */
final class Positions {
    /** The field of {@code ext} holding the position. */
    static final String POSITION_FIELD = "position";
    /** The position's offset field: an integer, from 1. */
    static final String OFFSET_FIELD = "offset";
    /** The position's epoch field: a string. */
    static final String EPOCH_FIELD = "epoch";
    private static final byte[] EXT = "ext".getBytes(StandardCharsets.US_ASCII);

    private Positions() {
    }

    /** @return true if the epoch can be written into JSON as is (we make them; Redis could hold anything) */
    static boolean isPlainEpoch(String epoch) {
        if (epoch == null || epoch.isEmpty() || epoch.length() > 64) {
            return false;
        }
        for (int i = 0; i < epoch.length(); i++) {
            char c = epoch.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_')) {
                return false;
            }
        }
        return true;
    }

    /**
     * @param json a message, a JSON object
     * @param offset its offset
     * @param epoch its epoch, {@link #isPlainEpoch plain}
     * @return the message with {@code ext.position} set; the same bytes if its {@code ext} is not an object
     */
    static byte[] withPosition(byte[] json, long offset, String epoch) {
        String position = "\"" + POSITION_FIELD + "\":{\"" + OFFSET_FIELD + "\":" + offset + ",\"" + EPOCH_FIELD
                + "\":\"" + epoch + "\"}";
        int open = skipSpace(json, 0);
        if (open >= json.length || json[open] != '{') {
            return json;
        }
        int[] ext = topLevelExt(json, open);
        if (ext == null) {
            boolean empty = json[skipSpace(json, open + 1)] == '}';
            return splice(json, open + 1, "\"ext\":{" + position + "}" + (empty ? "" : ","));
        }
        if (ext[0] < 0) {
            return json;
        }
        boolean empty = skipSpace(json, ext[0] + 1) == ext[1];
        return splice(json, ext[1], (empty ? "" : ",") + position);
    }

    /** @return the position of a delivered message's {@code ext}, or null */
    static Object[] of(Map<String, Object> ext) {
        Object position = ext == null ? null : ext.get(POSITION_FIELD);
        if (position instanceof Map) {
            Object offset = ((Map<?, ?>) position).get(OFFSET_FIELD);
            Object epoch = ((Map<?, ?>) position).get(EPOCH_FIELD);
            if (offset instanceof Number && epoch instanceof String) {
                return new Object[] {((Number) offset).longValue(), epoch};
            }
        }
        return null;
    }

    private static byte[] splice(byte[] json, int at, String insert) {
        byte[] middle = insert.getBytes(StandardCharsets.UTF_8);
        byte[] result = new byte[json.length + middle.length];
        System.arraycopy(json, 0, result, 0, at);
        System.arraycopy(middle, 0, result, at, middle.length);
        System.arraycopy(json, at, result, at + middle.length, json.length - at);
        return result;
    }

    private static int skipSpace(byte[] json, int from) {
        int i = from;
        while (i < json.length && (json[i] == ' ' || json[i] == '\n' || json[i] == '\r' || json[i] == '\t')) {
            i++;
        }
        return i;
    }

    /** @return the index after the string starting at the quote {@code from} */
    private static int skipString(byte[] json, int from) {
        int i = from + 1;
        while (i < json.length && json[i] != '"') {
            i += json[i] == '\\' ? 2 : 1;
        }
        return i + 1;
    }

    /**
     * @return null if the object at {@code open} has no top-level {@code ext}; {open, close} of its value if it is an
     *         object; {-1, -1} if it is something else
     */
    private static int[] topLevelExt(byte[] json, int open) {
        int depth = 0;
        int i = open;
        while (i < json.length) {
            byte b = json[i];
            if (b == '"') {
                int end = skipString(json, i);
                if (depth == 1) {
                    int colon = skipSpace(json, end);
                    if (colon < json.length && json[colon] == ':' && isExt(json, i + 1, end - 1)) {
                        int value = skipSpace(json, colon + 1);
                        if (value >= json.length || json[value] != '{') {
                            return new int[] {-1, -1};
                        }
                        return new int[] {value, matchingClose(json, value)};
                    }
                }
                i = end;
                continue;
            }
            if (b == '{' || b == '[') {
                depth++;
            } else if (b == '}' || b == ']') {
                depth--;
                if (depth == 0) {
                    return null;
                }
            }
            i++;
        }
        return null;
    }

    private static boolean isExt(byte[] json, int start, int end) {
        if (end - start != EXT.length) {
            return false;
        }
        for (int k = 0; k < EXT.length; k++) {
            if (json[start + k] != EXT[k]) {
                return false;
            }
        }
        return true;
    }

    private static int matchingClose(byte[] json, int open) {
        int depth = 0;
        int i = open;
        while (i < json.length) {
            byte b = json[i];
            if (b == '"') {
                i = skipString(json, i);
                continue;
            }
            if (b == '{' || b == '[') {
                depth++;
            } else if ((b == '}' || b == ']') && --depth == 0) {
                return i;
            }
            i++;
        }
        return json.length - 1;
    }
}
