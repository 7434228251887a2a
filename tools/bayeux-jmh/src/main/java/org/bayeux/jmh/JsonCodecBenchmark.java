package org.bayeux.jmh;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.MapMessage;
import org.bayeux.api.json.JsonCodec;
import org.bayeux.api.json.JsonCodecProvider;
import org.bayeux.api.json.JsonFragment;
import org.bayeux.api.json.MalformedJsonException;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Compares the JSON codecs on the work a Bayeux server does most: parsing requests and generating deliveries.
 *
 * <p>Run it from the uber-jar: {@code java -jar bayeux-jmh/target/benchmarks.jar JsonCodecBenchmark}. Requests are
 * parsed both from bytes (an HTTP body) and from a String (a WebSocket text frame), into {@link MapMessage}s as the
 * server does. Deliveries are generated as bytes, once from maps and once from pre-encoded fragments, which is what
 * a broadcast costs per recipient when each message is encoded only once.</p>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class JsonCodecBenchmark {
    /** The name of the codec to measure, as configuration gives it. */
    @Param({"jackson", "jetty"})
    public String codecName;

    private JsonCodec codec;
    private String connectRequestText;
    private byte[] connectRequest;
    private String publishBatchText;
    private byte[] publishBatch;
    private List<Map<String, Object>> deliveryBatch;
    private List<JsonFragment> encodedDeliveries;

    /** Creates the benchmark; JMH calls this. */
    public JsonCodecBenchmark() {
        // State is set up in setUp(), after JMH has injected the parameter.
    }

    /** Finds the codec by name, as the server would, and prepares the payloads. */
    @Setup
    public void setUp() {
        codec = JsonCodecProvider.find(codecName, JsonCodecBenchmark.class.getClassLoader())
                .newCodec(JsonCodec.DEFAULT_MAX_NESTING_DEPTH);
        connectRequestText = BayeuxPayloads.connectRequest();
        connectRequest = BayeuxPayloads.utf8(connectRequestText);
        publishBatchText = BayeuxPayloads.publishBatch();
        publishBatch = BayeuxPayloads.utf8(publishBatchText);
        deliveryBatch = BayeuxPayloads.deliveryBatch();
        encodedDeliveries = new ArrayList<>();
        for (Map<String, Object> message : deliveryBatch) {
            encodedDeliveries.add(new JsonFragment(codec.toJsonBytes(message)));
        }
    }

    /**
     * @return the parsed long-polling {@code /meta/connect} request, read from bytes
     * @throws MalformedJsonException never: the payload is valid
     */
    @Benchmark
    public List<MapMessage> parseConnectRequest() throws MalformedJsonException {
        return codec.parseMessages(connectRequest, 0, connectRequest.length, MapMessage::new);
    }

    /**
     * @return the parsed long-polling {@code /meta/connect} request, read from a String
     * @throws MalformedJsonException never: the payload is valid
     */
    @Benchmark
    public List<MapMessage> parseConnectRequestText() throws MalformedJsonException {
        return codec.parseMessages(connectRequestText, MapMessage::new);
    }

    /**
     * @return the parsed batch of ten chat publishes, read from bytes
     * @throws MalformedJsonException never: the payload is valid
     */
    @Benchmark
    public List<MapMessage> parsePublishBatch() throws MalformedJsonException {
        return codec.parseMessages(publishBatch, 0, publishBatch.length, MapMessage::new);
    }

    /**
     * @return the parsed batch of ten chat publishes, read from a String
     * @throws MalformedJsonException never: the payload is valid
     */
    @Benchmark
    public List<MapMessage> parsePublishBatchText() throws MalformedJsonException {
        return codec.parseMessages(publishBatchText, MapMessage::new);
    }

    /** @return a batch of ten deliveries encoded from maps, as bytes */
    @Benchmark
    public byte[] generateDeliveryBatch() {
        return codec.toJsonBytes(deliveryBatch);
    }

    /** @return the same batch made of ten messages encoded beforehand, as bytes */
    @Benchmark
    public byte[] generateBatchFromFragments() {
        return codec.toJsonBytes(encodedDeliveries);
    }
}
