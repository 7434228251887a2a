package org.bayeux.load;

import java.nio.ByteBuffer;

/**
 * Reads the messages of a Bayeux frame or response body (a JSON array of message objects, or one object) without
 * building them: for a delivery of the load (a channel that is not {@code /meta/} or {@code /service/}, whose data
 * has the numbers {@code id} and {@code t}, in any order among other fields) it reports just those two numbers; any
 * other message is reported by its byte range, for the caller to parse fully (replies are few). Strings, escapes and
 * nested values are skipped by the JSON grammar, so a string containing {@code "t":} cannot fool it. Malformed input
 * throws {@link IllegalArgumentException}.
 */
final class RawScanner {
    /** Receives what the scan found. */
    interface Sink {
        /**
         * @param seq the load message's {@code id}
         * @param scheduledNanos its {@code t}
         */
        void delivery(long seq, long scheduledNanos);

        /**
         * A message that is not a load delivery (a reply, a service answer, or a foreign message).
         *
         * @param json the whole buffer
         * @param start the message's first byte, absolute
         * @param end one past its last byte, absolute
         */
        void other(ByteBuffer json, int start, int end);
    }

    private static final byte[] CHANNEL = bytes("channel");
    private static final byte[] DATA = bytes("data");
    private static final byte[] ID = bytes(Payload.ID);
    private static final byte[] TIME = bytes(Payload.TIME);
    private static final byte[] META = bytes("/meta/");
    private static final byte[] SERVICE = bytes("/service/");

    private final ByteBuffer json;
    private final int limit;
    private final Sink sink;
    /** The value of the last {@link #number} read, or -1 if it was not a non-negative integer. */
    private long number;

    private RawScanner(ByteBuffer json, Sink sink) {
        this.json = json;
        this.limit = json.limit();
        this.sink = sink;
    }

    /**
     * Scans the readable bytes of {@code json}, leaving its position unchanged.
     *
     * @param json a frame's or body's bytes, UTF-8
     * @param sink what to tell
     * @throws IllegalArgumentException if it is not a JSON array of objects or an object
     */
    static void scan(ByteBuffer json, Sink sink) {
        new RawScanner(json, sink).messages(json.position());
    }

    private void messages(int from) {
        int i = skipSpace(from);
        if (at(i) == '{') {
            i = message(i);
        } else if (at(i) == '[') {
            i = skipSpace(i + 1);
            if (at(i) == ']') {
                i++;
            } else {
                while (true) {
                    i = skipSpace(message(skipSpace(i)));
                    byte next = at(i++);
                    if (next == ']') {
                        break;
                    }
                    if (next != ',') {
                        throw malformed(i - 1);
                    }
                }
            }
        } else {
            throw malformed(i);
        }
        if (skipSpace(i) != limit) {
            throw malformed(i);
        }
    }

    /** Reads one message object from {@code i}; returns the index after it. */
    private int message(int start) {
        expect(start, '{');
        int i = skipSpace(start + 1);
        boolean ordinaryChannel = false;
        long seq = -1;
        long time = -1;
        if (at(i) == '}') {
            sink.other(json, start, i + 1);
            return i + 1;
        }
        while (true) {
            int keyStart = i + 1;
            expect(i, '"');
            i = skipString(i);
            int keyEnd = i - 1;
            i = skipSpace(i);
            expect(i, ':');
            i = skipSpace(i + 1);
            if (is(keyStart, keyEnd, CHANNEL) && at(i) == '"') {
                int valueEnd = skipString(i);
                ordinaryChannel = !startsWith(i + 1, valueEnd - 1, META) && !startsWith(i + 1, valueEnd - 1, SERVICE);
                i = valueEnd;
            } else if (is(keyStart, keyEnd, DATA) && at(i) == '{') {
                i = skipSpace(i + 1);
                if (at(i) != '}') {
                    while (true) {
                        int dataKeyStart = i + 1;
                        expect(i, '"');
                        i = skipString(i);
                        int dataKeyEnd = i - 1;
                        i = skipSpace(i);
                        expect(i, ':');
                        i = skipSpace(i + 1);
                        if (is(dataKeyStart, dataKeyEnd, ID)) {
                            i = number(i);
                            seq = number;
                        } else if (is(dataKeyStart, dataKeyEnd, TIME)) {
                            i = number(i);
                            time = number;
                        } else {
                            i = skipValue(i);
                        }
                        i = skipSpace(i);
                        if (at(i) == '}') {
                            break;
                        }
                        expect(i, ',');
                        i = skipSpace(i + 1);
                    }
                }
                i++;
            } else {
                i = skipValue(i);
            }
            i = skipSpace(i);
            if (at(i) == '}') {
                break;
            }
            expect(i, ',');
            i = skipSpace(i + 1);
        }
        int end = i + 1;
        if (ordinaryChannel && seq >= 0 && time >= 0) {
            sink.delivery(seq, time);
        } else {
            sink.other(json, start, end);
        }
        return end;
    }

    /** Reads a number; {@link #number} is its value if it is a non-negative integer that fits, else -1. */
    private int number(int from) {
        int i = from;
        long value = 0;
        boolean integer = true;
        int digits = 0;
        while (i < limit) {
            byte b = json.get(i);
            if (b >= '0' && b <= '9') {
                if (digits++ >= 18) {
                    integer = false;
                }
                value = value * 10 + (b - '0');
            } else if (b == '-' || b == '+' || b == '.' || b == 'e' || b == 'E') {
                integer = false;
            } else {
                break;
            }
            i++;
        }
        if (i == from) {
            // Not a number (a string, null...): skip it as a value.
            number = -1;
            return skipValue(from);
        }
        number = integer && digits > 0 ? value : -1;
        return i;
    }

    /** Skips any JSON value at {@code from}; returns the index after it. */
    private int skipValue(int from) {
        byte first = at(from);
        if (first == '"') {
            return skipString(from);
        }
        if (first == '{' || first == '[') {
            int depth = 0;
            int i = from;
            do {
                byte b = at(i);
                if (b == '"') {
                    i = skipString(i);
                    continue;
                }
                if (b == '{' || b == '[') {
                    depth++;
                } else if (b == '}' || b == ']') {
                    depth--;
                }
                i++;
            } while (depth > 0);
            return i;
        }
        // A number, true, false or null: up to the next delimiter.
        int i = from;
        while (i < limit) {
            byte b = json.get(i);
            if (b == ',' || b == '}' || b == ']' || b == ' ' || b == '\t' || b == '\r' || b == '\n') {
                break;
            }
            i++;
        }
        if (i == from) {
            throw malformed(from);
        }
        return i;
    }

    /** Skips the string that starts at the quote {@code from}; returns the index after its closing quote. */
    private int skipString(int from) {
        int i = from + 1;
        while (true) {
            byte b = at(i);
            if (b == '"') {
                return i + 1;
            }
            i += b == '\\' ? 2 : 1;
        }
    }

    private int skipSpace(int from) {
        int i = from;
        while (i < limit) {
            byte b = json.get(i);
            if (b != ' ' && b != '\t' && b != '\r' && b != '\n') {
                break;
            }
            i++;
        }
        return i;
    }

    private byte at(int i) {
        if (i >= limit) {
            throw new IllegalArgumentException("JSON ends too early, at byte " + i);
        }
        return json.get(i);
    }

    private void expect(int i, char expected) {
        if (at(i) != expected) {
            throw malformed(i);
        }
    }

    private boolean is(int start, int end, byte[] expected) {
        return end - start == expected.length && startsWith(start, end, expected);
    }

    private boolean startsWith(int start, int end, byte[] prefix) {
        if (end - start < prefix.length) {
            return false;
        }
        for (int k = 0; k < prefix.length; k++) {
            if (json.get(start + k) != prefix[k]) {
                return false;
            }
        }
        return true;
    }

    private IllegalArgumentException malformed(int i) {
        return new IllegalArgumentException("not a Bayeux message array: unexpected byte at " + i);
    }

    private static byte[] bytes(String ascii) {
        return ascii.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }
}
