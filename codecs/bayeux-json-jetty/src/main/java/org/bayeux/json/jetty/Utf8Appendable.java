package org.bayeux.json.jetty;

import java.util.Arrays;

/**
 * An {@link Appendable} that encodes what Jetty's {@code JSON} appends straight into UTF-8 bytes, and takes
 * pre-encoded UTF-8 ({@link #appendUtf8(byte[])}) as is. This is how the Jetty codec writes bytes without building
 * a String first, and copies a {@link org.bayeux.api.json.JsonFragment} without decoding it.
 *
 * <p>A surrogate pair arrives as two calls and becomes one 4-byte sequence. Half a pair has no UTF-8 form; it can
 * only come from a string (keys and values are the only text Jetty passes through unescaped), so it is written as
 * a {@code \\uXXXX} escape, which keeps the output valid and the string intact.</p>
 */
final class Utf8Appendable implements Appendable {
    private static final byte[] HEX_DIGITS = "0123456789ABCDEF".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private byte[] bytes;
    private int size;
    /** A high surrogate waiting for its low half, or 0 if none. */
    private char pendingHighSurrogate;

    /**
     * @param initialCapacity how many bytes to make room for at first
     */
    Utf8Appendable(int initialCapacity) {
        bytes = new byte[initialCapacity];
    }

    @Override
    public Utf8Appendable append(CharSequence text) {
        return append(text, 0, text.length());
    }

    @Override
    public Utf8Appendable append(CharSequence text, int start, int end) {
        ensureRoom(end - start);
        for (int i = start; i < end; i++) {
            append(text.charAt(i));
        }
        return this;
    }

    @Override
    public Utf8Appendable append(char c) {
        if (pendingHighSurrogate != 0) {
            char high = pendingHighSurrogate;
            pendingHighSurrogate = 0;
            if (Character.isLowSurrogate(c)) {
                appendCodePoint(Character.toCodePoint(high, c));
                return this;
            }
            appendEscaped(high);
        }
        if (c < 0x80) {
            ensureRoom(1);
            bytes[size++] = (byte) c;
        } else if (c < 0x800) {
            ensureRoom(2);
            bytes[size++] = (byte) (0xC0 | c >> 6);
            bytes[size++] = (byte) (0x80 | c & 0x3F);
        } else if (Character.isHighSurrogate(c)) {
            pendingHighSurrogate = c;
        } else if (Character.isLowSurrogate(c)) {
            appendEscaped(c);
        } else {
            ensureRoom(3);
            bytes[size++] = (byte) (0xE0 | c >> 12);
            bytes[size++] = (byte) (0x80 | c >> 6 & 0x3F);
            bytes[size++] = (byte) (0x80 | c & 0x3F);
        }
        return this;
    }

    /**
     * Appends bytes that are already UTF-8, unchanged.
     *
     * @param utf8 the bytes
     */
    void appendUtf8(byte[] utf8) {
        flushPendingSurrogate();
        ensureRoom(utf8.length);
        System.arraycopy(utf8, 0, bytes, size, utf8.length);
        size += utf8.length;
    }

    /** @return a copy of the bytes appended so far */
    byte[] toByteArray() {
        flushPendingSurrogate();
        return Arrays.copyOf(bytes, size);
    }

    private void flushPendingSurrogate() {
        if (pendingHighSurrogate != 0) {
            char high = pendingHighSurrogate;
            pendingHighSurrogate = 0;
            appendEscaped(high);
        }
    }

    private void appendCodePoint(int codePoint) {
        ensureRoom(4);
        bytes[size++] = (byte) (0xF0 | codePoint >> 18);
        bytes[size++] = (byte) (0x80 | codePoint >> 12 & 0x3F);
        bytes[size++] = (byte) (0x80 | codePoint >> 6 & 0x3F);
        bytes[size++] = (byte) (0x80 | codePoint & 0x3F);
    }

    private void appendEscaped(char c) {
        ensureRoom(6);
        bytes[size++] = '\\';
        bytes[size++] = 'u';
        bytes[size++] = HEX_DIGITS[c >> 12 & 0xF];
        bytes[size++] = HEX_DIGITS[c >> 8 & 0xF];
        bytes[size++] = HEX_DIGITS[c >> 4 & 0xF];
        bytes[size++] = HEX_DIGITS[c & 0xF];
    }

    private void ensureRoom(int more) {
        if (size + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
        }
    }
}
