package org.bayeux.json.jetty;

import org.bayeux.api.json.UnencodableValueException;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Collection;
import java.util.Map;

import org.bayeux.api.json.JsonFragment;
import org.eclipse.jetty.util.ajax.JSON;

/**
 * Writes Java values as JSON with Jetty's {@link JSON} doing the text: string escaping, numbers and literals.
 *
 * <p>Jetty's own {@code append} writes anything, NaN as {@code NaN} and an unknown object as its
 * {@code toString()}, both of which make output that is not JSON; it also has no depth limit, so a value that
 * contains itself overflows the stack. This class walks the containers itself, with those checks, and hands the
 * leaves to Jetty.</p>
 */
final class JsonWriter {
    private final JSON json;
    private final int maxDepth;

    /**
     * @param json the Jetty JSON whose formatting to use
     * @param maxDepth the deepest nesting to write; deeper means the value most likely contains itself
     */
    JsonWriter(JSON json, int maxDepth) {
        this.json = json;
        this.maxDepth = maxDepth;
    }

    /**
     * @param out a {@link StringBuilder} for text, or a {@link Utf8Appendable} for bytes
     * @param value the value
     * @throws UnencodableValueException if the value has no JSON form
     */
    void write(Appendable out, Object value) {
        try {
            writeValue(out, value, 0);
        } catch (IOException e) {
            // Both kinds of output are in memory and never throw.
            throw new IllegalStateException("writing to memory failed", e);
        }
    }

    /** Writes a value found inside {@code depth} containers. */
    private void writeValue(Appendable out, Object value, int depth) throws IOException {
        if (value == null) {
            json.appendNull(out);
        } else if (value instanceof String string) {
            json.appendString(out, string);
        } else if (value instanceof Map<?, ?> map) {
            writeObject(out, map, depth + 1);
        } else if (value instanceof Number number) {
            writeNumber(out, number);
        } else if (value instanceof Boolean bool) {
            json.appendBoolean(out, bool);
        } else if (value instanceof Collection<?> collection) {
            writeArray(out, collection, depth + 1);
        } else if (value instanceof JsonFragment fragment) {
            writeFragment(out, fragment);
        } else if (value instanceof Object[] array) {
            writeArray(out, array, depth + 1);
        } else {
            throw UnencodableValueException.unsupportedType(value);
        }
    }

    private void writeObject(Appendable out, Map<?, ?> map, int depth) throws IOException {
        checkDepth(depth);
        out.append('{');
        boolean first = true;
        for (Map.Entry<?, ?> entry : map.entrySet()) {
            if (!(entry.getKey() instanceof String key)) {
                throw UnencodableValueException.nonStringKey(entry.getKey());
            }
            if (!first) {
                out.append(',');
            }
            first = false;
            json.appendString(out, key);
            out.append(':');
            try {
                writeValue(out, entry.getValue(), depth);
            } catch (UnencodableValueException e) {
                throw e.underKey(key);
            }
        }
        out.append('}');
    }

    private void writeArray(Appendable out, Collection<?> collection, int depth) throws IOException {
        checkDepth(depth);
        out.append('[');
        int index = 0;
        for (Object element : collection) {
            if (index > 0) {
                out.append(',');
            }
            try {
                writeValue(out, element, depth);
            } catch (UnencodableValueException e) {
                throw e.atIndex(index);
            }
            index++;
        }
        out.append(']');
    }

    private void writeArray(Appendable out, Object[] array, int depth) throws IOException {
        checkDepth(depth);
        out.append('[');
        for (int index = 0; index < array.length; index++) {
            if (index > 0) {
                out.append(',');
            }
            try {
                writeValue(out, array[index], depth);
            } catch (UnencodableValueException e) {
                throw e.atIndex(index);
            }
        }
        out.append(']');
    }

    private void writeNumber(Appendable out, Number number) {
        boolean known = number instanceof Long || number instanceof Integer || number instanceof Short
                || number instanceof Byte || number instanceof BigInteger || number instanceof BigDecimal
                || number instanceof Double || number instanceof Float;
        if (!known || number instanceof Double d && !Double.isFinite(d)
                || number instanceof Float f && !Float.isFinite(f)) {
            throw UnencodableValueException.unsupportedNumber(number);
        }
        // Jetty writes String.valueOf(number): valid JSON for every type and value let through above.
        json.appendNumber(out, number);
    }

    private static void writeFragment(Appendable out, JsonFragment fragment) throws IOException {
        if (out instanceof Utf8Appendable utf8) {
            utf8.appendUtf8(fragment.utf8());
        } else {
            out.append(fragment.text());
        }
    }

    private void checkDepth(int depth) {
        if (depth > maxDepth) {
            throw UnencodableValueException.tooDeep(maxDepth);
        }
    }
}
