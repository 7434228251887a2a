package org.bayeux.json.jackson;

import org.bayeux.api.json.UnencodableValueException;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Collection;
import java.util.Map;

import com.fasterxml.jackson.core.JsonGenerator;

import org.bayeux.api.json.JsonFragment;

/**
 * Writes Java values to a Jackson generator: the types {@link org.bayeux.api.json.JsonCodec} promises to encode,
 * and nothing else, so that a stray object is an error instead of a surprising {@code toString()}.
 */
final class JacksonValueWriter {
    private final int maxDepth;

    /**
     * @param maxDepth the deepest nesting to write; deeper means the value most likely contains itself
     */
    JacksonValueWriter(int maxDepth) {
        this.maxDepth = maxDepth;
    }

    /**
     * @param generator where to write
     * @param value the value
     * @throws IOException if the generator fails
     * @throws UnencodableValueException if the value has no JSON form
     */
    void write(JsonGenerator generator, Object value) throws IOException {
        writeValue(generator, value, 0);
    }

    /** Writes a value found inside {@code depth} containers. */
    private void writeValue(JsonGenerator generator, Object value, int depth) throws IOException {
        if (value == null) {
            generator.writeNull();
        } else if (value instanceof String string) {
            generator.writeString(string);
        } else if (value instanceof Map<?, ?> map) {
            writeObject(generator, map, depth + 1);
        } else if (value instanceof Number number) {
            writeNumber(generator, number);
        } else if (value instanceof Boolean bool) {
            generator.writeBoolean(bool);
        } else if (value instanceof Collection<?> collection) {
            writeArray(generator, collection, depth + 1);
        } else if (value instanceof JsonFragment fragment) {
            generator.writeRawValue(new RawUtf8Value(fragment));
        } else if (value instanceof Object[] array) {
            writeArray(generator, array, depth + 1);
        } else {
            throw UnencodableValueException.unsupportedType(value);
        }
    }

    private void writeObject(JsonGenerator generator, Map<?, ?> map, int depth) throws IOException {
        checkDepth(depth);
        generator.writeStartObject();
        for (Map.Entry<?, ?> entry : map.entrySet()) {
            if (!(entry.getKey() instanceof String key)) {
                throw UnencodableValueException.nonStringKey(entry.getKey());
            }
            generator.writeFieldName(key);
            try {
                writeValue(generator, entry.getValue(), depth);
            } catch (UnencodableValueException e) {
                throw e.underKey(key);
            }
        }
        generator.writeEndObject();
    }

    private void writeArray(JsonGenerator generator, Collection<?> collection, int depth) throws IOException {
        checkDepth(depth);
        generator.writeStartArray();
        int index = 0;
        for (Object element : collection) {
            try {
                writeValue(generator, element, depth);
            } catch (UnencodableValueException e) {
                throw e.atIndex(index);
            }
            index++;
        }
        generator.writeEndArray();
    }

    private void writeArray(JsonGenerator generator, Object[] array, int depth) throws IOException {
        checkDepth(depth);
        generator.writeStartArray();
        for (int index = 0; index < array.length; index++) {
            try {
                writeValue(generator, array[index], depth);
            } catch (UnencodableValueException e) {
                throw e.atIndex(index);
            }
        }
        generator.writeEndArray();
    }

    private static void writeNumber(JsonGenerator generator, Number number) throws IOException {
        if (number instanceof Long || number instanceof Integer || number instanceof Short || number instanceof Byte) {
            generator.writeNumber(number.longValue());
        } else if (number instanceof Double value) {
            if (!Double.isFinite(value)) {
                throw UnencodableValueException.unsupportedNumber(number);
            }
            generator.writeNumber(value.doubleValue());
        } else if (number instanceof Float value) {
            if (!Float.isFinite(value)) {
                throw UnencodableValueException.unsupportedNumber(number);
            }
            generator.writeNumber(value.floatValue());
        } else if (number instanceof BigInteger value) {
            generator.writeNumber(value);
        } else if (number instanceof BigDecimal value) {
            generator.writeNumber(value);
        } else {
            throw UnencodableValueException.unsupportedNumber(number);
        }
    }

    private void checkDepth(int depth) {
        if (depth > maxDepth) {
            throw UnencodableValueException.tooDeep(maxDepth);
        }
    }
}
