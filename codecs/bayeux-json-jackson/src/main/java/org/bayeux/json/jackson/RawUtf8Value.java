package org.bayeux.json.jackson;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;

import com.fasterxml.jackson.core.SerializableString;

import org.bayeux.api.json.JsonFragment;

/**
 * A {@link JsonFragment} as Jackson's {@link SerializableString}, so that
 * {@link com.fasterxml.jackson.core.JsonGenerator#writeRawValue(SerializableString)} copies the fragment's UTF-8
 * bytes straight into a byte generator's buffer: no decoding to characters and encoding back. A character
 * generator gets the text instead.
 *
 * <p>Jackson asks only for the unquoted forms when writing raw; the quoted forms would mean writing the fragment
 * as a JSON string, which is never what a fragment is for, so they are refused.</p>
 */
final class RawUtf8Value implements SerializableString {
    private final JsonFragment fragment;

    RawUtf8Value(JsonFragment fragment) {
        this.fragment = fragment;
    }

    @Override
    public String getValue() {
        return fragment.text();
    }

    @Override
    public int charLength() {
        return getValue().length();
    }

    @Override
    public byte[] asUnquotedUTF8() {
        return fragment.utf8();
    }

    @Override
    public int appendUnquotedUTF8(byte[] buffer, int offset) {
        byte[] utf8 = fragment.utf8();
        if (offset + utf8.length > buffer.length) {
            // Jackson then falls back to asUnquotedUTF8() and writes the bytes through.
            return -1;
        }
        System.arraycopy(utf8, 0, buffer, offset, utf8.length);
        return utf8.length;
    }

    @Override
    public int appendUnquoted(char[] buffer, int offset) {
        String text = getValue();
        if (offset + text.length() > buffer.length) {
            return -1;
        }
        text.getChars(0, text.length(), buffer, offset);
        return text.length();
    }

    @Override
    public int writeUnquotedUTF8(OutputStream out) throws IOException {
        byte[] utf8 = fragment.utf8();
        out.write(utf8);
        return utf8.length;
    }

    @Override
    public int putUnquotedUTF8(ByteBuffer buffer) {
        byte[] utf8 = fragment.utf8();
        if (utf8.length > buffer.remaining()) {
            return -1;
        }
        buffer.put(utf8);
        return utf8.length;
    }

    @Override
    public char[] asQuotedChars() {
        throw notAString();
    }

    @Override
    public byte[] asQuotedUTF8() {
        throw notAString();
    }

    @Override
    public int appendQuotedUTF8(byte[] buffer, int offset) {
        throw notAString();
    }

    @Override
    public int appendQuoted(char[] buffer, int offset) {
        throw notAString();
    }

    @Override
    public int writeQuotedUTF8(OutputStream out) {
        throw notAString();
    }

    @Override
    public int putQuotedUTF8(ByteBuffer buffer) {
        throw notAString();
    }

    private static UnsupportedOperationException notAString() {
        return new UnsupportedOperationException("a JSON fragment is written raw, never quoted as a string");
    }

    @Override
    public String toString() {
        return getValue();
    }
}
