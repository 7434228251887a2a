package org.bayeux.jmh;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;

import org.bayeux.api.json.JsonCodec;
import org.bayeux.api.json.JsonCodecProvider;
import org.bayeux.api.json.JsonFragment;
import org.bayeux.api.json.MalformedJsonException;
import org.junit.jupiter.api.Test;

/**
 * The two codecs must be interchangeable: what one writes, the other reads back to the same Java values, and both
 * read any text the same way. This module sees both codecs, so the check lives here, next to the benchmark whose
 * payloads it also checks.
 */
class CrossCodecTest {
    private static final Supplier<Map<String, Object>> PLAIN = HashMap::new;
    private static final ClassLoader LOADER = CrossCodecTest.class.getClassLoader();

    private final JsonCodec jackson = JsonCodecProvider.find("jackson", LOADER).newCodec(JsonCodec.DEFAULT_MAX_NESTING_DEPTH);
    private final JsonCodec jetty = JsonCodecProvider.find("jetty", LOADER).newCodec(JsonCodec.DEFAULT_MAX_NESTING_DEPTH);

    @Test
    void whatEitherCodecWritesTheOtherReadsBackIdentically() throws MalformedJsonException {
        // A fixed seed: the same 500 values on every run, but far more variety than hand-written cases.
        RandomJson random = new RandomJson(new Random(20_251_122L));
        for (int i = 0; i < 500; i++) {
            Map<String, Object> message = random.object(4);
            for (JsonCodec writer : List.of(jackson, jetty)) {
                String text = writer.toJson(List.of(message));
                byte[] utf8 = writer.toJsonBytes(message);
                for (JsonCodec reader : List.of(jackson, jetty)) {
                    String pair = writer.name() + " -> " + reader.name() + " for " + text;
                    assertThat(reader.parseMessages(text, PLAIN)).as(pair).containsExactly(message);
                    assertThat(reader.parseMessages(utf8, 0, utf8.length, PLAIN)).as(pair).containsExactly(message);
                }
            }
        }
    }

    @Test
    void bothCodecsReadTheSameTextToTheSameValues() throws MalformedJsonException {
        List<String> texts = List.of(BayeuxPayloads.connectRequest(), BayeuxPayloads.publishBatch(),
                "{\"n\":[0,-0,1e2,1E-2,-0.0,9223372036854775807,9223372036854775808,-9223372036854775809,"
                        + "123456789012345678901234567890,4.9e-324,1.7976931348623157e308,0.1,1e-400]}",
                "[{\"s\":\"\\u00e9\\ud83d\\ude00\\u0000\\\"\\\\\\/\\b\\f\\n\\r\\t\",\"\u00e9\":\"\uD83D\uDE00\"}]",
                " [ { \"a\" : [ ] , \"b\" : { } , \"c\" : null , \"d\" : true , \"e\" : false } ] ");
        for (String text : texts) {
            assertThat(jetty.parseMessages(text, PLAIN)).as(text).isEqualTo(jackson.parseMessages(text, PLAIN));
            byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
            assertThat(jetty.parseMessages(utf8, 0, utf8.length, PLAIN)).as(text)
                    .isEqualTo(jackson.parseMessages(utf8, 0, utf8.length, PLAIN));
        }
    }

    @Test
    void fragmentsEncodedByOneCodecEmbedInBatchesOfTheOther() throws MalformedJsonException {
        List<Map<String, Object>> deliveries = BayeuxPayloads.deliveryBatch();
        for (JsonCodec encoder : List.of(jackson, jetty)) {
            List<Object> fragments = new ArrayList<>();
            for (Map<String, Object> delivery : deliveries) {
                fragments.add(new JsonFragment(encoder.toJsonBytes(delivery)));
            }
            for (JsonCodec batcher : List.of(jackson, jetty)) {
                byte[] batch = batcher.toJsonBytes(fragments);
                for (JsonCodec reader : List.of(jackson, jetty)) {
                    assertThat(reader.parseMessages(batch, 0, batch.length, PLAIN))
                            .as("%s fragments, %s batch, %s reader", encoder.name(), batcher.name(), reader.name())
                            .containsExactlyElementsOf(deliveries);
                }
            }
        }
    }

    @Test
    void theBenchmarkMeasuresWhatItClaimsWithBothCodecs() throws MalformedJsonException {
        for (String name : List.of("jackson", "jetty")) {
            JsonCodecBenchmark benchmark = new JsonCodecBenchmark();
            benchmark.codecName = name;
            benchmark.setUp();

            assertThat(benchmark.parseConnectRequest()).hasSize(1).first()
                    .satisfies(connect -> assertThat(connect.get("ext")).isEqualTo(Map.of("ack", 17L)));
            assertThat(benchmark.parseConnectRequestText()).isEqualTo(benchmark.parseConnectRequest());
            assertThat(benchmark.parsePublishBatch()).hasSize(BayeuxPayloads.BATCH_SIZE)
                    .isEqualTo(benchmark.parsePublishBatchText());
            byte[] fromMaps = benchmark.generateDeliveryBatch();
            assertThat(jackson.parseMessages(fromMaps, 0, fromMaps.length, PLAIN))
                    .containsExactlyElementsOf(BayeuxPayloads.deliveryBatch());
            assertThat(benchmark.generateBatchFromFragments()).isEqualTo(fromMaps);
        }
    }

    /** Makes random JSON-shaped Java values, in the canonical types a codec parses back to. */
    private static final class RandomJson {
        private static final String[] TEXT_PIECES = {"a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\u0000",
            "\u001F", "\u007F", "\u00e9", "\u4e2d", "\u2028", "\uFFFD", "\uD83D\uDE00", "\uD83C\uDDEB\uD83C\uDDF7",
            "{}", "[]", ":", ","};

        private final Random random;

        RandomJson(Random random) {
            this.random = random;
        }

        Map<String, Object> object(int depth) {
            Map<String, Object> object = new HashMap<>();
            int size = random.nextInt(6);
            for (int i = 0; i < size; i++) {
                object.put(text(), value(depth - 1));
            }
            return object;
        }

        private List<Object> array(int depth) {
            List<Object> array = new ArrayList<>();
            int size = random.nextInt(6);
            for (int i = 0; i < size; i++) {
                array.add(value(depth - 1));
            }
            return array;
        }

        private Object value(int depth) {
            int kind = random.nextInt(depth > 0 ? 10 : 8);
            return switch (kind) {
                case 0 -> null;
                case 1 -> random.nextBoolean();
                case 2 -> text();
                case 3 -> random.nextLong();
                case 4 -> (long) random.nextInt(1000) - 500;
                case 5 -> bigInteger();
                case 6 -> finiteDouble();
                case 7 -> random.nextInt(4) == 0 ? -0.0 : random.nextDouble() * 1000;
                case 8 -> object(depth);
                default -> array(depth);
            };
        }

        private String text() {
            StringBuilder text = new StringBuilder();
            int pieces = random.nextInt(8);
            for (int i = 0; i < pieces; i++) {
                text.append(TEXT_PIECES[random.nextInt(TEXT_PIECES.length)]);
            }
            return text.toString();
        }

        /** An integer outside the range of a long, which a codec must read back as a BigInteger. */
        private BigInteger bigInteger() {
            BigInteger value = new BigInteger(64 + random.nextInt(100), random).setBit(63);
            return random.nextBoolean() ? value : value.negate().subtract(BigInteger.TWO);
        }

        /** Any finite double, subnormals and extremes included. */
        private double finiteDouble() {
            double value;
            do {
                value = Double.longBitsToDouble(random.nextLong());
            } while (!Double.isFinite(value));
            return value;
        }
    }
}
