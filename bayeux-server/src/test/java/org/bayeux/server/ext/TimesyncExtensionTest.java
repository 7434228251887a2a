package org.bayeux.server.ext;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.bayeux.server.ServerMessageImpl;
import org.bayeux.server.test.EngineHarness;
import org.bayeux.server.test.TestClient;
import org.bayeux.server.test.TestResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The {@code timesync} extension: conformance scenario C42 on the wire, and its rules on a clock the test controls.
 */
class TimesyncExtensionTest {
    private static final long HOLD_MILLIS = 500;

    @Test
    void c42HeldConnectAnswersTimesyncWithTheHoldAsKeptTime() {
        try (EngineHarness harness = EngineHarness.start(builder -> builder.timeout(Duration.ofMillis(HOLD_MILLIS)))) {
            harness.server().addExtension(new TimesyncExtension());
            TestClient client = harness.newClient();
            client.handshake();
            client.firstConnect();

            long before = System.currentTimeMillis();
            TestResponse response = client.call("[" + client.connectMessage(
                    ",\"ext\":{\"timesync\":{\"tc\":" + before + ",\"l\":0,\"o\":0}}") + "]");
            long after = System.currentTimeMillis();

            Map<String, Object> timesync = timesyncOf(response.single("/meta/connect"));
            assertThat(timesync).containsOnlyKeys("tc", "ts", "p", "a");
            assertThat(((Number) timesync.get("tc")).longValue()).isEqualTo(before);
            long ts = ((Number) timesync.get("ts")).longValue();
            assertThat(ts).isBetween(before, after);
            long kept = ((Number) timesync.get("p")).longValue();
            // The connect was held for the whole timeout: p is about the hold, and never more than the round trip.
            assertThat(kept).isBetween(HOLD_MILLIS - 50, after - ts);
            assertThat(timesync.get("a")).isInstanceOfAny(Integer.class, Long.class);
            assertThat(((Number) timesync.get("a")).longValue()).isEqualTo(before - ts);
        }
    }

    @Test
    void aRequestWithoutTimesyncGetsNone() {
        try (EngineHarness harness = EngineHarness.start()) {
            harness.server().addExtension(new TimesyncExtension());
            TestClient client = harness.newClient();
            Map<String, Object> handshake = client.handshake();
            assertThat(handshake).doesNotContainKey("ext");
        }
    }

    // ---- the rules, on a controlled clock ---------------------------------------------------------------------

    private final AtomicLong now = new AtomicLong(1_700_000_000_000L);
    private final TimesyncExtension extension = new TimesyncExtension(now::get);

    /** Sends a request through the extension, keeps it {@code keptMillis}, and returns the reply's timesync. */
    private Map<String, Object> exchange(Map<String, Object> clientTimesync, long keptMillis) {
        ServerMessageImpl request = new ServerMessageImpl();
        request.setChannel("/meta/connect");
        // Unchangeable, like a parsed message may be: the extension must not write into it.
        request.put("ext", Map.of("timesync", clientTimesync));
        assertThat(extension.rcvMeta(null, request)).isTrue();
        now.addAndGet(keptMillis);
        ServerMessageImpl reply = new ServerMessageImpl();
        reply.setChannel("/meta/connect");
        reply.setSuccessful(true);
        reply.setAssociated(request);
        assertThat(extension.sendMeta(null, reply)).isTrue();
        return reply.getExt() == null ? null : timesyncOf(reply);
    }

    @Test
    void answersTcTsPAndAWhenTheLagIsZero() {
        long ts = now.get();
        Map<String, Object> answer = exchange(Map.of("tc", ts - 3000, "l", 0, "o", 0), 7);
        assertThat(answer).containsExactly(Map.entry("tc", ts - 3000), Map.entry("ts", ts), Map.entry("p", 7L),
                Map.entry("a", -3000L));
    }

    @ParameterizedTest(name = "a={0} answered={1}")
    @CsvSource({"0,false", "24,false", "-24,false", "25,true", "-25,true", "900,true"})
    void withALagAnswersOnlyWhenTheEstimateIsOffByAtLeast25Millis(long error, boolean answered) {
        long ts = now.get();
        long lag = 12;
        long tc = ts - 2000;
        long offset = error + ts - tc - lag;
        Map<String, Object> answer = exchange(Map.of("tc", tc, "l", lag, "o", offset), 3);
        if (answered) {
            assertThat(answer).containsEntry("a", error).containsEntry("p", 3L).containsEntry("ts", ts);
        } else {
            assertThat(answer).isNull();
        }
    }

    @Test
    void withoutALagAnswersTcTsAndPOnly() {
        long ts = now.get();
        Map<String, Object> answer = exchange(Map.of("tc", 42), 0);
        assertThat(answer).containsExactly(Map.entry("tc", 42), Map.entry("ts", ts), Map.entry("p", 0L));
    }

    @Test
    void aTsSentByTheClientIsReplacedByTheArrivalTime() {
        long ts = now.get();
        Map<String, Object> answer = exchange(Map.of("tc", ts, "ts", 1, "l", 0, "o", 0), 5);
        assertThat(answer).containsEntry("ts", ts).containsEntry("p", 5L).containsEntry("a", 0L);
    }

    @Test
    void aFractionalLagIsRoundedToWholeMilliseconds() {
        long ts = now.get();
        Map<String, Object> answer = exchange(Map.of("tc", ts - 100, "l", 30.6, "o", 0), 1);
        assertThat(answer).containsEntry("a", -69L);
    }

    @Test
    void withoutTcThereIsNothingToAnswer() {
        assertThat(exchange(Map.of("l", 0, "o", 0), 1)).isNull();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> timesyncOf(Map<String, Object> reply) {
        Map<String, Object> ext = (Map<String, Object>) reply.get("ext");
        assertThat(ext).as("ext of %s", reply).isNotNull();
        return (Map<String, Object>) ext.get("timesync");
    }
}
