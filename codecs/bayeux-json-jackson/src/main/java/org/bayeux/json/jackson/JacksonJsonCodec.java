package org.bayeux.json.jackson;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamWriteConstraints;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.core.util.BufferRecycler;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;

import org.bayeux.api.json.JsonCodec;
import org.bayeux.api.json.MalformedJsonException;
import org.bayeux.api.json.Utf8Validator;

/**
 * The {@link JsonCodec} on Jackson's streaming parser and generator (jackson-core only, no data binding).
 *
 * <p>One {@link JsonFactory} serves every call; parsers and generators are made per call, so the codec is
 * thread-safe. UTF-8 bytes are parsed directly, after a fast well-formedness check that Jackson does not make in
 * full; pre-encoded {@link org.bayeux.api.json.JsonFragment}s are copied into the output as bytes.</p>
 */
public final class JacksonJsonCodec implements JsonCodec {
    /**
     * The highest nesting depth limit a codec accepts. Parsing recurses once per level, so the limit keeps the
     * stack use small whatever the input.
     */
    public static final int MAX_SUPPORTED_NESTING_DEPTH = 500;

    /**
     * The deepest nesting {@link #toJson} writes: twice the deepest a parse accepts, so that anything parsed can be
     * wrapped and re-encoded, while a value that contains itself fails fast instead of overflowing the stack.
     */
    static final int MAX_ENCODING_DEPTH = 2 * MAX_SUPPORTED_NESTING_DEPTH;

    private final int maxNestingDepth;
    private final JsonFactory factory;
    private final JacksonMessageReader reader;
    private final JacksonValueWriter writer;

    /** Creates a codec with the default nesting depth limit, {@link JsonCodec#DEFAULT_MAX_NESTING_DEPTH}. */
    public JacksonJsonCodec() {
        this(DEFAULT_MAX_NESTING_DEPTH);
    }

    /**
     * @param maxNestingDepth the deepest nesting of objects and arrays accepted when parsing, from 1 to
     *        {@link #MAX_SUPPORTED_NESTING_DEPTH}
     * @throws IllegalArgumentException if the limit is out of that range
     */
    public JacksonJsonCodec(int maxNestingDepth) {
        if (maxNestingDepth < 1 || maxNestingDepth > MAX_SUPPORTED_NESTING_DEPTH) {
            throw new IllegalArgumentException("maxNestingDepth must be between 1 and " + MAX_SUPPORTED_NESTING_DEPTH
                    + ", not " + maxNestingDepth);
        }
        this.maxNestingDepth = maxNestingDepth;
        this.factory = new JsonFactoryBuilder()
                // Bayeux bodies are UTF-8; guessing UTF-16 or UTF-32 from zero bytes would misread bad input.
                .disable(JsonFactory.Feature.CHARSET_DETECTION)
                // Keys come from clients: keep them out of the JVM-wide string table.
                .disable(JsonFactory.Feature.INTERN_FIELD_NAMES)
                // Write characters outside the BMP as 4-byte UTF-8, not as a pair of \\u escapes.
                .enable(JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8)
                // One level above ours, so our own check (with its clearer message) always fires first.
                .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(maxNestingDepth + 1).build())
                .streamWriteConstraints(StreamWriteConstraints.builder().maxNestingDepth(MAX_ENCODING_DEPTH).build())
                // Buffers shared by the codec's calls, not one set per thread (Jackson's default): a server's pool
                // grows to hundreds of threads while thousands of clients connect, and each kept some 30 KB after.
                .recyclerPool(JsonRecyclerPools.newConcurrentDequePool())
                .build();
        this.reader = new JacksonMessageReader(maxNestingDepth);
        this.writer = new JacksonValueWriter(MAX_ENCODING_DEPTH);
    }

    @Override
    public String name() {
        return JacksonJsonCodecProvider.NAME;
    }

    @Override
    public int maxNestingDepth() {
        return maxNestingDepth;
    }

    @Override
    public <M extends Map<String, Object>> List<M> parseMessages(String json, Supplier<M> messageFactory)
            throws MalformedJsonException {
        Objects.requireNonNull(messageFactory, "messageFactory");
        try (JsonParser parser = factory.createParser(json)) {
            return reader.readBatch(parser, messageFactory);
        } catch (JsonProcessingException e) {
            throw notJson(e);
        } catch (IOException e) {
            throw new MalformedJsonException("cannot read the JSON: " + e.getMessage(), e);
        }
    }

    @Override
    public <M extends Map<String, Object>> List<M> parseMessages(byte[] utf8, int offset, int length,
            Supplier<M> messageFactory) throws MalformedJsonException {
        Objects.checkFromIndexSize(offset, length, utf8.length);
        Objects.requireNonNull(messageFactory, "messageFactory");
        int invalid = Utf8Validator.firstInvalidByte(utf8, offset, length);
        if (invalid >= 0) {
            throw new MalformedJsonException("invalid UTF-8 at byte offset " + invalid);
        }
        try (JsonParser parser = factory.createParser(utf8, offset, length)) {
            return reader.readBatch(parser, messageFactory);
        } catch (JsonProcessingException e) {
            throw notJson(e);
        } catch (IOException e) {
            throw new MalformedJsonException("cannot read the JSON: " + e.getMessage(), e);
        }
    }

    @Override
    public Object parse(String json) throws MalformedJsonException {
        try (JsonParser parser = factory.createParser(json)) {
            return reader.readDocument(parser);
        } catch (JsonProcessingException e) {
            throw notJson(e);
        } catch (IOException e) {
            throw new MalformedJsonException("cannot read the JSON: " + e.getMessage(), e);
        }
    }

    @Override
    public String toJson(Object value) {
        StringBuilderWriter text = new StringBuilderWriter();
        try (JsonGenerator generator = factory.createGenerator(text)) {
            writer.write(generator, value);
        } catch (IOException e) {
            throw cannotEncode(e);
        }
        return text.toString();
    }

    @Override
    public byte[] toJsonBytes(Object value) {
        // The builder's first segment comes from Jackson's buffer recycler, so encoding a small message allocates
        // little more than its result.
        BufferRecycler recycler = factory._getBufferRecycler();
        try {
            ByteArrayBuilder bytes = new ByteArrayBuilder(recycler);
            try (JsonGenerator generator = factory.createGenerator(bytes, JsonEncoding.UTF8)) {
                writer.write(generator, value);
            }
            byte[] json = bytes.toByteArray();
            bytes.release();
            return json;
        } catch (IOException e) {
            throw cannotEncode(e);
        } finally {
            recycler.releaseToPool();
        }
    }

    private static MalformedJsonException notJson(JsonProcessingException e) {
        return new MalformedJsonException("not valid JSON: " + e.getOriginalMessage()
                + JacksonMessageReader.where(e.getLocation()), e);
    }

    private static IllegalArgumentException cannotEncode(IOException e) {
        // Writing to memory cannot fail; Jackson only throws here when it refuses the value itself.
        return new IllegalArgumentException("cannot encode the value as JSON: " + e.getMessage(), e);
    }

    @Override
    public String toString() {
        return "JacksonJsonCodec[maxNestingDepth=" + maxNestingDepth + "]";
    }
}
