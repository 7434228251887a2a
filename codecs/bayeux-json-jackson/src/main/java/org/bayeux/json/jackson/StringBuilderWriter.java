package org.bayeux.json.jackson;

import java.io.Writer;

/**
 * A {@link Writer} into a {@link StringBuilder}. Unlike {@link java.io.StringWriter} it takes no lock, and it needs
 * none: each encoding call has its own.
 */
final class StringBuilderWriter extends Writer {
    private final StringBuilder text = new StringBuilder(256);

    @Override
    public void write(char[] buffer, int offset, int length) {
        text.append(buffer, offset, length);
    }

    @Override
    public void write(int c) {
        text.append((char) c);
    }

    @Override
    public void write(String string, int offset, int length) {
        text.append(string, offset, offset + length);
    }

    @Override
    public void flush() {
        // Nothing is buffered here.
    }

    @Override
    public void close() {
        // Nothing to release.
    }

    @Override
    public String toString() {
        return text.toString();
    }
}
