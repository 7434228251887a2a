package org.bayeux.api.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.bayeux.api.json.JsonTestInputs.nestedArrays;
import static org.bayeux.api.json.JsonTestInputs.nestedObjects;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;

import org.bayeux.api.json.JsonTestInputs.Input;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The behaviour every {@link JsonCodec} must have, written once. A codec module runs it by extending this class and
 * naming its provider; the cases here are the executable form of the {@link JsonCodec} Javadoc.
 */
public abstract class JsonCodecContractTest {
    /** A message type of its own, to tell the maps the message factory made from the codec's own maps. */
    static final class TestMessage extends HashMap<String, Object> {
        private static final long serialVersionUID = 1L;
    }

    /** Top-level messages as plain maps; typed as {@code Map} so that results compare with {@code Map.of}. */
    private static final Supplier<Map<String, Object>> PLAIN = HashMap::new;

    private JsonCodec codec;

    /** @return the provider of the codec under test */
    protected abstract JsonCodecProvider provider();

    @BeforeEach
    void createCodec() {
        codec = provider().newCodec(JsonCodec.DEFAULT_MAX_NESTING_DEPTH);
    }

    // ---- provider ----------------------------------------------------------------------------------------------

    @Test
    void providerIsFoundByItsNameOnTheClassPath() {
        JsonCodecProvider found = JsonCodecProvider.find(provider().name(), getClass().getClassLoader());
        assertThat(found).isInstanceOf(provider().getClass());
        assertThat(codec.name()).isEqualTo(provider().name());
        assertThat(codec.maxNestingDepth()).isEqualTo(JsonCodec.DEFAULT_MAX_NESTING_DEPTH);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, Integer.MIN_VALUE})
    void providerRefusesADepthLimitBelowOne(int depth) {
        assertThatThrownBy(() -> provider().newCodec(depth)).isInstanceOf(IllegalArgumentException.class);
    }

    // ---- parsing batches ---------------------------------------------------------------------------------------

    @ParameterizedTest
    @EnumSource(Input.class)
    void parsesABatchOfMessagesWithEveryKindOfValue(Input input) throws MalformedJsonException {
        String json = "[{\"id\":\"1\",\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"supportedConnectionTypes\":[\"websocket\",\"long-polling\"],"
                + "\"advice\":{\"timeout\":60000,\"interval\":0},\"ext\":{\"ack\":true}},"
                + " {\"channel\":\"/chat\",\"data\":{\"text\":\"hi\",\"n\":-2.5,\"none\":null,\"flag\":false}}]";

        List<Map<String, Object>> messages = input.parseMessages(codec, json, PLAIN);

        assertThat(messages).containsExactly(
                Map.of("id", "1", "channel", "/meta/handshake", "version", "1.0",
                        "supportedConnectionTypes", List.of("websocket", "long-polling"),
                        "advice", Map.of("timeout", 60000L, "interval", 0L), "ext", Map.of("ack", true)),
                Map.of("channel", "/chat", "data", mapOf("text", "hi", "n", -2.5, "none", null, "flag", false)));
    }

    @ParameterizedTest
    @EnumSource(Input.class)
    void parsesABareObjectAsABatchOfOne(Input input) throws MalformedJsonException {
        List<Map<String, Object>> messages = input.parseMessages(codec,
                " {\"channel\":\"/meta/connect\",\"clientId\":\"abc\"} ", PLAIN);
        assertThat(messages).containsExactly(Map.of("channel", "/meta/connect", "clientId", "abc"));
    }

    @ParameterizedTest
    @EnumSource(Input.class)
    void messageFactoryMakesTopLevelObjectsOnlyAndEverythingIsMutable(Input input) throws MalformedJsonException {
        List<TestMessage> messages = input.parseMessages(codec,
                "[{\"data\":{\"inner\":{}},\"list\":[{}]},{}]", TestMessage::new);

        assertThat(messages).hasSize(2).allSatisfy(message -> assertThat(message).isExactlyInstanceOf(TestMessage.class));
        Object data = messages.get(0).get("data");
        assertThat(data).isInstanceOf(HashMap.class).isNotInstanceOf(TestMessage.class);
        Object list = messages.get(0).get("list");
        assertThat(list).isInstanceOf(ArrayList.class);
        assertThat(((List<?>) list).get(0)).isInstanceOf(HashMap.class).isNotInstanceOf(TestMessage.class);
        // The server changes messages in place (extensions, listeners), so nested values must be mutable.
        castMap(data).put("added", 1L);
        castList(list).add("added");
        assertThat(messages.get(0).get("data")).isEqualTo(Map.of("inner", Map.of(), "added", 1L));
    }

    @ParameterizedTest
    @EnumSource(Input.class)
    void theLastOfDuplicateKeysWins(Input input) throws MalformedJsonException {
        List<Map<String, Object>> messages = input.parseMessages(codec, "[{\"a\":1,\"b\":2,\"a\":3}]", PLAIN);
        assertThat(messages).containsExactly(Map.of("a", 3L, "b", 2L));
    }

    @Test
    void parseAcceptsAnyValueAtTheTopLevel() throws MalformedJsonException {
        assertThat(codec.parse(" 42 ")).isEqualTo(42L);
        assertThat(codec.parse("\"x\"")).isEqualTo("x");
        assertThat(codec.parse("null")).isNull();
        assertThat(codec.parse("true")).isEqualTo(Boolean.TRUE);
        assertThat(codec.parse("[1,[]]")).isEqualTo(List.of(1L, List.of()));
        assertThat(codec.parse("{}")).isEqualTo(Map.of());
    }

    @Test
    void emptyObjectsArraysAndStringsSurvive() throws MalformedJsonException {
        Object parsed = codec.parse("{\"o\":{},\"a\":[],\"s\":\"\",\"k\":{\"\":\"\"}}");
        assertThat(parsed).isEqualTo(Map.of("o", Map.of(), "a", List.of(), "s", "", "k", Map.of("", "")));
        assertThat(codec.parse(codec.toJson(parsed))).isEqualTo(parsed);
        assertThat(codec.toJson(Map.of())).isEqualTo("{}");
        assertThat(codec.toJson(List.of())).isEqualTo("[]");
        assertThat(codec.toJson("")).isEqualTo("\"\"");
    }

    // ---- numbers -----------------------------------------------------------------------------------------------

    @ParameterizedTest
    @ValueSource(strings = {"0", "-0", "7", "-42", "9223372036854775807", "-9223372036854775808"})
    void integersThatFitBecomeLong(String number) throws MalformedJsonException {
        assertThat(codec.parse("[" + number + "]")).isEqualTo(List.of(Long.parseLong(number)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"9223372036854775808", "-9223372036854775809", "18446744073709551616",
            "-1180591620717411303424", "123456789012345678901234567890123456789"})
    void largerIntegersBecomeBigInteger(String number) throws MalformedJsonException {
        assertThat(codec.parse("[" + number + "]")).isEqualTo(List.of(new BigInteger(number)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"0.1", "-0.0", "1.0", "1e2", "1E2", "1e+2", "2.5e-3", "1e308", "1.7976931348623157E308",
            "4.9e-324", "1e-400", "-123.456e7", "0.30000000000000004"})
    void numbersWithAFractionOrExponentBecomeDouble(String number) throws MalformedJsonException {
        assertThat(codec.parse("[" + number + "]")).isEqualTo(List.of(Double.parseDouble(number)));
    }

    @Test
    void extremeNumbersRoundTripExactly() throws MalformedJsonException {
        List<Object> numbers = List.of(Long.MAX_VALUE, Long.MIN_VALUE, BigInteger.TWO.pow(64),
                BigInteger.TWO.pow(70).negate(), 1e308, Double.MAX_VALUE, 4.9e-324, -0.0, 0.1, 0.0);
        assertThat(codec.parse(codec.toJson(numbers))).isEqualTo(numbers);
        assertThat(codec.parse(new String(codec.toJsonBytes(numbers), StandardCharsets.UTF_8))).isEqualTo(numbers);
    }

    @Test
    void everyJdkNumberTypeIsEncoded() throws MalformedJsonException {
        List<Object> numbers = List.of(1, (short) 2, (byte) 3, 4L, 1.5f, 2.25, new BigDecimal("12.50"),
                new BigDecimal("1E+3"), BigInteger.TEN);
        assertThat(codec.parse(codec.toJson(numbers))).isEqualTo(
                List.of(1L, 2L, 3L, 4L, 1.5, 2.25, 12.5, 1000.0, 10L));
    }

    @Test
    void aNumberBeyondTheRangeOfADoubleIsRejected() {
        assertThatThrownBy(() -> codec.parseMessages("[{\"data\":1e400}]", PLAIN))
                .isInstanceOf(MalformedJsonException.class).hasMessageContaining("range");
        assertThatThrownBy(() -> codec.parse("-1e400")).isInstanceOf(MalformedJsonException.class);
    }

    @Test
    void integersOfUpToAThousandDigitsAreAcceptedAndLongerOnesRejected() throws MalformedJsonException {
        String thousandDigits = "9".repeat(1000);
        assertThat(codec.parse("[-" + thousandDigits + "]")).isEqualTo(List.of(new BigInteger("-" + thousandDigits)));
        // Parsing a huge integer costs time quadratic in its length: a cheap attack if it were unbounded.
        assertThatThrownBy(() -> codec.parse("[" + thousandDigits + "9]")).isInstanceOf(MalformedJsonException.class);
        assertThatThrownBy(() -> codec.parse("[0." + "1".repeat(5000) + "]"))
                .isInstanceOf(MalformedJsonException.class);
    }

    @ParameterizedTest
    @ValueSource(doubles = {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY})
    void nonFiniteNumbersCannotBeEncoded(double number) {
        assertThatThrownBy(() -> codec.toJson(Map.of("data", number)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(String.valueOf(number));
        assertThatThrownBy(() -> codec.toJsonBytes(List.of((float) number)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(String.valueOf((float) number));
    }

    // ---- strings and unicode -----------------------------------------------------------------------------------

    @Test
    void controlCharactersQuotesAndBackslashesAreEscaped() throws MalformedJsonException {
        StringBuilder every = new StringBuilder("\"quoted\" back\\slash /slash \u007F");
        for (char c = 0; c < 0x20; c++) {
            every.append(c);
        }
        String text = every.toString();

        String json = codec.toJson(Map.of("s", text));

        assertThat(json.chars()).noneMatch(c -> c < 0x20);
        assertThat(codec.parse(json)).isEqualTo(Map.of("s", text));
        assertThat(codec.parse(new String(codec.toJsonBytes(Map.of(text, text)), StandardCharsets.UTF_8)))
                .isEqualTo(Map.of(text, text));
    }

    @ParameterizedTest
    @ValueSource(strings = {"caf\u00e9", "\u4e2d\u6587 \u0928\u092e\u0938\u094d\u0924\u0947", "\u2028\u2029\uFFFD",
            "emoji \uD83D\uDE00 and \uD83C\uDDEB\uD83C\uDDF7", "\uD800\uDC00\uDBFF\uDFFF", "a\u0000b"})
    void unicodeRoundTripsAsTextAndAsBytes(String text) throws Exception {
        Map<String, Object> value = Map.of(text, List.of(text));

        assertThat(codec.parse(codec.toJson(value))).isEqualTo(value);
        byte[] utf8 = codec.toJsonBytes(value);
        String decoded = strictUtf8(utf8);
        assertThat(codec.parse(decoded)).isEqualTo(value);
        assertThat(codec.parseMessages(utf8, 0, utf8.length, PLAIN)).containsExactly(value);
    }

    @Test
    void bytesAreTheUtf8OfTheText() {
        Map<String, Object> value = mapOf("k\u00e9", List.of("\uD83D\uDE00", 1L, 2.5, true, "\u0001\"\\"), "n", null);
        assertThat(new String(codec.toJsonBytes(value), StandardCharsets.UTF_8)).isEqualTo(codec.toJson(value));
    }

    @Test
    void unpairedSurrogatesSurviveEncodingAsBytes() throws Exception {
        // A Java string may hold half a surrogate pair, which UTF-8 cannot carry: it must be escaped, not mangled.
        List<Object> value = List.of("a\uD800b", "\uDC00", "x\uD83D");
        String decoded = strictUtf8(codec.toJsonBytes(value));
        assertThat(codec.parse(decoded)).isEqualTo(value);
    }

    @ParameterizedTest
    @EnumSource(Input.class)
    void escapesInInputAreDecoded(Input input) throws MalformedJsonException {
        String json = "{\"s\":\"\\u00e9\\u4E2D\\ud83d\\ude00\\u0041 \\\" \\\\ \\/ \\b \\f \\n \\r \\t\","
                + "\"\\u006B\":\"raw \u00e9\u4e2d\uD83D\uDE00\"}";
        assertThat(input.parseMessages(codec, json, PLAIN)).containsExactly(
                Map.of("s", "\u00e9\u4e2d\uD83D\uDE00A \" \\ / \b \f \n \r \t", "k", "raw \u00e9\u4e2d\uD83D\uDE00"));
    }

    // ---- large payloads ----------------------------------------------------------------------------------------

    @ParameterizedTest
    @EnumSource(Input.class)
    void aOneMegabyteStringRoundTrips(Input input) throws MalformedJsonException {
        StringBuilder builder = new StringBuilder(1 << 20);
        while (builder.length() < (1 << 20)) {
            builder.append("0123456789abcdef \u00e9\"\\\n");
        }
        Map<String, Object> message = Map.of("channel", "/big", "data", builder.toString());

        assertThat(input.parseMessages(codec, codec.toJson(List.of(message)), PLAIN)).containsExactly(message);
        byte[] utf8 = codec.toJsonBytes(message);
        assertThat(codec.parseMessages(utf8, 0, utf8.length, PLAIN)).containsExactly(message);
    }

    @ParameterizedTest
    @EnumSource(Input.class)
    void anArrayOfTenThousandElementsRoundTrips(Input input) throws MalformedJsonException {
        List<Object> data = new ArrayList<>();
        for (long i = 0; i < 10_000; i++) {
            data.add(i % 3 == 0 ? (Object) i : i % 3 == 1 ? "item " + i : Map.of("i", i));
        }
        Map<String, Object> message = Map.of("channel", "/many", "data", data);
        assertThat(input.parseMessages(codec, codec.toJson(message), PLAIN)).containsExactly(message);
    }

    // ---- encoding ----------------------------------------------------------------------------------------------

    @Test
    void nestedDataRoundTripsThroughTextAndBytes() throws MalformedJsonException {
        Map<String, Object> message = new LinkedHashMap<>();
        message.put("channel", "/chat/room");
        message.put("id", "42");
        message.put("data", mapOf("user", "ann", "tags", List.of("a", "b"), "nested", Map.of("deeper", List.of(
                Map.of("x", 1L), List.of(), Map.of())), "nothing", null, "yes", true, "ratio", 0.75));
        message.put("ext", Map.of("ack", 17L));

        assertThat(codec.parseMessages(codec.toJson(List.of(message, message)), PLAIN))
                .containsExactly(message, message);
        byte[] utf8 = codec.toJsonBytes(message);
        assertThat(codec.parseMessages(utf8, 0, utf8.length, PLAIN)).containsExactly(message);
    }

    @Test
    void collectionsAndObjectArraysAreEncodedAsArrays() throws MalformedJsonException {
        Object value = mapOf("set", new LinkedHashSet<>(List.of("a", "b")), "array", new Object[] {1L, "x", null},
                "nested", new Object[] {new Object[] {}, List.of((Object) new Object[] {true})}, "nothing", null);
        assertThat(codec.parse(codec.toJson(value))).isEqualTo(mapOf("set", List.of("a", "b"),
                "array", Arrays.asList(1L, "x", null), "nested", List.of(List.of(), List.of(List.of(true))),
                "nothing", null));
        assertThat(codec.toJson(null)).isEqualTo("null");
        assertThat(codec.toJson(false)).isEqualTo("false");
    }

    @Test
    void valuesWithNoJsonFormAreRefusedWithTheirPlace() {
        Map<String, Object> message = Map.of("data", Map.of("items", List.of(1L, Optional.of(1))));
        assertThatThrownBy(() -> codec.toJson(message)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("java.util.Optional").hasMessageContaining("data.items[1]");
        assertThatThrownBy(() -> codec.toJsonBytes(List.of(new Object())))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("java.lang.Object");
        assertThatThrownBy(() -> codec.toJson(Map.of(1, "one"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("java.lang.Integer");
        assertThatThrownBy(() -> codec.toJson(new int[] {1})).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aValueThatContainsItselfIsRefusedNotAStackOverflow() {
        List<Object> cycle = new ArrayList<>();
        cycle.add(cycle);
        Map<String, Object> selfish = new HashMap<>();
        selfish.put("me", selfish);
        assertThatThrownBy(() -> codec.toJson(cycle)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> codec.toJsonBytes(selfish)).isInstanceOf(IllegalArgumentException.class);
    }

    // ---- pre-encoded fragments ---------------------------------------------------------------------------------

    @Test
    void aFragmentIsWrittenVerbatim() {
        JsonFragment fragment = new JsonFragment("{\"channel\":\"/a\",\"data\":[1, 2 ,\"\u00e9\"]}"
                .getBytes(StandardCharsets.UTF_8));
        assertThat(codec.toJson(List.of(fragment))).isEqualTo("[" + fragment.text() + "]");
        assertThat(codec.toJsonBytes(List.of(fragment, fragment)))
                .isEqualTo(("[" + fragment.text() + "," + fragment.text() + "]").getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void fragmentsMixedWithMapsMakeABatchThatParsesBack() throws MalformedJsonException {
        Map<String, Object> first = Map.of("channel", "/chat/a", "data", Map.of("text", "h\u00e9llo \uD83D\uDE00"));
        Map<String, Object> second = Map.of("channel", "/chat/b", "data", List.of(1L, 2.5, "x"));
        Map<String, Object> reply = Map.of("channel", "/meta/connect", "successful", true);
        JsonFragment encodedFirst = new JsonFragment(codec.toJsonBytes(first));
        JsonFragment encodedSecond = new JsonFragment(codec.toJsonBytes(second));

        List<Object> batch = List.of(encodedFirst, encodedSecond, reply, encodedFirst);

        byte[] utf8 = codec.toJsonBytes(batch);
        assertThat(codec.parseMessages(utf8, 0, utf8.length, PLAIN)).containsExactly(first, second, reply, first);
        assertThat(codec.parseMessages(codec.toJson(batch), PLAIN)).containsExactly(first, second, reply, first);
        assertThat(codec.parse(codec.toJson(Map.of("wrapped", encodedSecond)))).isEqualTo(Map.of("wrapped", second));
    }

    // ---- malformed input ---------------------------------------------------------------------------------------

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.bayeux.api.json.JsonTestInputs#notJsonBatches")
    void textThatIsNotJsonIsRejected(String description, String json) {
        for (Input input : Input.values()) {
            assertThatThrownBy(() -> input.parseMessages(codec, json, PLAIN)).as("%s as %s", description, input)
                    .isInstanceOf(MalformedJsonException.class).message().isNotBlank();
        }
        assertThatThrownBy(() -> codec.parse(json)).as(description).isInstanceOf(MalformedJsonException.class);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.bayeux.api.json.JsonTestInputs#jsonThatIsNotABatch")
    void jsonThatIsNotABatchIsRejectedSayingWhy(String json, String reason) {
        for (Input input : Input.values()) {
            assertThatThrownBy(() -> input.parseMessages(codec, json, PLAIN)).as("%s as %s", json, input)
                    .isInstanceOf(MalformedJsonException.class).hasMessageContaining(reason);
        }
    }

    @Test
    void errorsSayWhatIsWrongAndWhere() {
        assertThatThrownBy(() -> codec.parseMessages("", PLAIN)).hasMessageContaining("empty");
        assertThatThrownBy(() -> codec.parseMessages("[{}]\n  [{}]", PLAIN))
                .hasMessageContaining("after the JSON value").hasMessageContaining("line 2");
        assertThatThrownBy(() -> codec.parseMessages("[{\"a\":1,}]", PLAIN))
                .hasMessageContaining("line 1").hasMessageContaining("column");
        assertThatThrownBy(() -> codec.parse("[1] x")).hasMessageContaining("after the JSON value");
    }

    @Test
    void parseRejectsWhatIsNotASingleJsonValue() {
        for (String json : List.of("", "1 2", "[1,]", "{\"a\":1}x", "\"unclosed", "tru", "-", "01")) {
            assertThatThrownBy(() -> codec.parse(json)).as(json).isInstanceOf(MalformedJsonException.class);
        }
    }

    // ---- nesting depth -----------------------------------------------------------------------------------------

    @ParameterizedTest
    @EnumSource(Input.class)
    void nestingAtTheLimitIsAccepted(Input input) throws MalformedJsonException {
        int limit = JsonCodec.DEFAULT_MAX_NESTING_DEPTH;
        assertThat(codec.parse(nestedArrays(limit))).isInstanceOf(List.class);
        assertThat(input.parseMessages(codec, nestedObjects(limit), PLAIN)).hasSize(1);
        // The batch array is one of the levels.
        assertThat(input.parseMessages(codec, "[" + nestedObjects(limit - 1) + "]", PLAIN)).hasSize(1);
        assertThat(input.parseMessages(codec, "[{\"data\":" + nestedArrays(limit - 2) + "}]", PLAIN)).hasSize(1);
    }

    @ParameterizedTest
    @EnumSource(Input.class)
    void nestingBeyondTheLimitIsRejected(Input input) {
        int tooDeep = JsonCodec.DEFAULT_MAX_NESTING_DEPTH + 1;
        for (String json : List.of(nestedObjects(tooDeep), "[" + nestedObjects(tooDeep - 1) + "]",
                "[{\"data\":" + nestedArrays(tooDeep - 2) + "}]")) {
            assertThatThrownBy(() -> input.parseMessages(codec, json, PLAIN))
                    .isInstanceOf(MalformedJsonException.class).hasMessageContaining("deeper than 64");
        }
        assertThatThrownBy(() -> codec.parse(nestedArrays(tooDeep))).isInstanceOf(MalformedJsonException.class)
                .hasMessageContaining("deeper than 64");
    }

    @Test
    void aCustomDepthLimitIsHonoured() throws MalformedJsonException {
        JsonCodec shallow = provider().newCodec(3);
        assertThat(shallow.maxNestingDepth()).isEqualTo(3);
        assertThat(shallow.parse("[[[]]]")).isEqualTo(List.of(List.of(List.of())));
        assertThat(shallow.parseMessages("[{\"a\":{}}]", PLAIN)).hasSize(1);
        assertThatThrownBy(() -> shallow.parse("[[[[]]]]")).isInstanceOf(MalformedJsonException.class)
                .hasMessageContaining("deeper than 3");
        assertThatThrownBy(() -> shallow.parseMessages("[{\"a\":{\"b\":[]}}]", PLAIN))
                .isInstanceOf(MalformedJsonException.class).hasMessageContaining("deeper than 3");
    }

    @ParameterizedTest
    @EnumSource(Input.class)
    void tenThousandLevelsAreRejectedWithoutAStackOverflow(Input input) {
        for (String json : List.of(nestedArrays(10_000), nestedObjects(10_000), "[".repeat(10_000),
                "[" + "{\"a\":[".repeat(5_000))) {
            assertThatThrownBy(() -> input.parseMessages(codec, json, PLAIN))
                    .isInstanceOf(MalformedJsonException.class);
            assertThatThrownBy(() -> codec.parse(json)).isInstanceOf(MalformedJsonException.class);
        }
    }

    // ---- UTF-8 -------------------------------------------------------------------------------------------------

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.bayeux.api.json.JsonTestInputs#invalidUtf8Batches")
    void invalidUtf8IsRejectedWithItsOffset(String description, byte[] utf8, int badOffset) {
        for (Input input : List.of(Input.BYTES, Input.BYTES_IN_LARGER_ARRAY)) {
            assertThatThrownBy(() -> input.parseBytes(codec, utf8, PLAIN)).as("%s as %s", description, input)
                    .isInstanceOf(MalformedJsonException.class).hasMessageContaining("UTF-8")
                    .hasMessageContaining("byte offset " + badOffset);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Input.class, names = {"BYTES", "BYTES_IN_LARGER_ARRAY"})
    void validMultiByteUtf8IsAccepted(Input input) throws MalformedJsonException {
        String text = "\u007F\u0080\u07FF\u0800\uFFFF\uD800\uDC00\uDBFF\uDFFF";
        byte[] utf8 = ("[{\"" + text + "\":\"" + text + "\"}]").getBytes(StandardCharsets.UTF_8);
        assertThat(input.parseBytes(codec, utf8, PLAIN)).containsExactly(Map.of(text, text));
    }

    // ---- threads -----------------------------------------------------------------------------------------------

    @Test
    void oneCodecServesManyThreadsAtOnce() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Callable<Boolean>> tasks = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int task = t;
                tasks.add(() -> {
                    for (int i = 0; i < 500; i++) {
                        Map<String, Object> message = Map.of("channel", "/t/" + task, "data",
                                Map.of("i", (long) i, "s", "\u00e9" + i, "l", List.of(i * 0.5)));
                        byte[] utf8 = codec.toJsonBytes(List.of(message));
                        if (!codec.parseMessages(utf8, 0, utf8.length, PLAIN).equals(List.of(message))
                                || !codec.parse(codec.toJson(message)).equals(message)) {
                            return false;
                        }
                    }
                    return true;
                });
            }
            for (Future<Boolean> result : pool.invokeAll(tasks)) {
                assertThat(result.get()).isTrue();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    // ---- helpers -----------------------------------------------------------------------------------------------

    /** Like {@link Map#of()} but allowing null values; keeps the given order. */
    private static Map<String, Object> mapOf(Object... keysAndValues) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return map;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> castMap(Object value) {
        return (Map<String, Object>) value;
    }

    @SuppressWarnings("unchecked")
    private static List<Object> castList(Object value) {
        return (List<Object>) value;
    }

    /** Decodes UTF-8, failing on anything that is not valid UTF-8 instead of replacing it. */
    private static String strictUtf8(byte[] utf8) throws CharacterCodingException {
        return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(utf8)).toString();
    }
}
