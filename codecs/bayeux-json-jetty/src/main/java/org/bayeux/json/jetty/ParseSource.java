package org.bayeux.json.jetty;

import org.eclipse.jetty.util.ajax.JSON;

/**
 * The text being parsed, as a Jetty {@link JSON.Source}, plus what one parse needs to remember that Jetty's
 * {@code JSON} has no place for: how deep the parser is, and where, for error messages.
 *
 * <p>Jetty's {@code JSON} instance is shared by all threads, so all per-parse state lives here, in an object made
 * for each parse. {@link StrictJson} reads the characters directly by index, which is what makes it fast; the
 * {@code Source} methods are there for Jetty's own callers.</p>
 */
final class ParseSource implements JSON.Source {
    /** The text; only the first {@link #length} characters count. */
    final char[] chars;
    /** How many characters of {@link #chars} are text. */
    final int length;
    /** The index of the next character to read. */
    int index;

    private final int maxDepth;
    private int depth;
    private char[] scratch;

    /**
     * @param chars the text, read but never changed
     * @param length how many characters of {@code chars} are text
     * @param maxDepth the deepest nesting of objects and arrays to accept
     */
    ParseSource(char[] chars, int length, int maxDepth) {
        this.chars = chars;
        this.length = length;
        this.maxDepth = maxDepth;
    }

    /**
     * @param source a source given to one of {@link StrictJson}'s parse methods
     * @return it, as this type
     * @throws IllegalArgumentException if it is another kind of source
     */
    static ParseSource of(JSON.Source source) {
        if (source instanceof ParseSource parseSource) {
            return parseSource;
        }
        throw new IllegalArgumentException("StrictJson parses only a ParseSource, not a " + source.getClass().getName());
    }

    @Override
    public boolean hasNext() {
        return index < length;
    }

    @Override
    public char next() {
        return chars[index++];
    }

    @Override
    public char peek() {
        return chars[index];
    }

    @Override
    public char[] scratchBuffer() {
        if (scratch == null) {
            scratch = new char[Math.min(length, 1024)];
        }
        return scratch;
    }

    /** Moves past JSON whitespace: space, tab, line feed and carriage return, and nothing else. */
    void skipWhitespace() {
        while (index < length) {
            char c = chars[index];
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                return;
            }
            index++;
        }
    }

    /**
     * Moves past whitespace to the next character, which must exist.
     *
     * @param expected what should come next, for the error message
     * @return the next character, not consumed
     * @throws JsonSyntaxException if the text ends first
     */
    char peekAfterWhitespace(String expected) {
        skipWhitespace();
        if (index >= length) {
            throw error("the input ended where " + expected + " should be");
        }
        return chars[index];
    }

    /**
     * Counts one more level of nesting, before reading the '{' or '[' at the current index.
     *
     * @throws JsonSyntaxException if that is one level too many
     */
    void enterContainer() {
        if (++depth > maxDepth) {
            throw error("objects and arrays nested deeper than " + maxDepth + " levels");
        }
    }

    /** Counts one level of nesting less, after reading a '}' or ']'. */
    void exitContainer() {
        depth--;
    }

    /**
     * @param problem what is wrong at the current index
     * @return the exception to throw, saying where
     */
    JsonSyntaxException error(String problem) {
        return error(problem, index);
    }

    /**
     * @param problem what is wrong
     * @param at the index of the character it is wrong at
     * @return the exception to throw, saying where
     */
    JsonSyntaxException error(String problem, int at) {
        // Computed only on failure: the parse itself does not track lines.
        int line = 1;
        int lineStart = 0;
        for (int i = 0; i < at && i < length; i++) {
            if (chars[i] == '\n') {
                line++;
                lineStart = i + 1;
            }
        }
        return new JsonSyntaxException(problem + " at line " + line + ", column " + (at - lineStart + 1));
    }

    @Override
    public String toString() {
        return "ParseSource[index=" + index + ", length=" + length + ", depth=" + depth + "]";
    }
}
