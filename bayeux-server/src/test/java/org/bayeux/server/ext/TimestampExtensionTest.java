package org.bayeux.server.ext;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

import org.bayeux.server.ServerMessageImpl;
import org.bayeux.server.test.EngineHarness;
import org.bayeux.server.test.TestClient;
import org.bayeux.server.test.TestResponse;
import org.junit.jupiter.api.Test;

/**
 * The {@code timestamp} extension: conformance scenario C44 on the wire, and the stamp's format and rules.
 */
class TimestampExtensionTest {
    private static final String CHANNEL = "/chat/a";
    private static final String CLIENT_TIMESTAMP = "Tue, 05 Mar 2024 10:00:00 GMT";

    private static TestClient subscriber(EngineHarness harness) {
        TestClient client = harness.newClient();
        client.handshake();
        client.firstConnect();
        assertThat(client.subscribe(CHANNEL).get("successful")).isEqualTo(Boolean.TRUE);
        return client;
    }

    private static TestClient publisher(EngineHarness harness) {
        TestClient client = harness.newClient();
        client.handshake();
        client.firstConnect();
        return client;
    }

    /** Publishes on {@link #CHANNEL} with extra JSON fields; returns the delivery the subscriber's connect got. */
    private static Map<String, Object> relay(TestClient subscriber, TestClient publisher, String extraFields) {
        CompletableFuture<TestResponse> held = subscriber.connect();
        assertThat(held).isNotDone();
        TestResponse published = publisher.call("[{\"id\":\"" + publisher.nextId() + "\",\"channel\":\"" + CHANNEL
                + "\",\"data\":{\"text\":\"hi\"},\"clientId\":\"" + publisher.clientId() + "\"" + extraFields + "}]");
        Map<String, Object> publishReply = published.single(CHANNEL);
        assertThat(publishReply.get("successful")).isEqualTo(Boolean.TRUE);
        // Replies are not deliveries: never stamped.
        assertThat(publishReply).doesNotContainKey("timestamp");
        List<Map<String, Object>> deliveries = AckWire.await(held).deliveries();
        assertThat(deliveries).hasSize(1);
        return deliveries.get(0);
    }

    @Test
    void c44AClientTimestampAndAnUnknownFieldAreRelayedUnchanged() {
        try (EngineHarness harness = EngineHarness.start()) {
            harness.server().addExtension(new TimestampExtension());
            TestClient subscriber = subscriber(harness);
            Map<String, Object> delivery = relay(subscriber, publisher(harness),
                    ",\"timestamp\":\"" + CLIENT_TIMESTAMP + "\",\"x-custom\":{\"k\":[1,\"two\"]}");
            assertThat(delivery.get("timestamp")).isEqualTo(CLIENT_TIMESTAMP);
            assertThat(delivery.get("x-custom")).isEqualTo(Map.of("k", List.of(1L, "two")));
            assertThat(delivery.get("data")).isEqualTo(Map.of("text", "hi"));
        }
    }

    @Test
    void aDeliveryWithoutTimestampIsStampedWithTheCurrentTimeInRfc1123() {
        try (EngineHarness harness = EngineHarness.start()) {
            harness.server().addExtension(new TimestampExtension());
            TestClient subscriber = subscriber(harness);
            Instant before = Instant.now().truncatedTo(ChronoUnit.SECONDS);
            Map<String, Object> delivery = relay(subscriber, publisher(harness), "");
            Instant after = Instant.now();

            Object stamp = delivery.get("timestamp");
            assertThat(stamp).isInstanceOf(String.class);
            assertThat((String) stamp).matches("[A-Z][a-z]{2}, \\d{2} [A-Z][a-z]{2} \\d{4} \\d{2}:\\d{2}:\\d{2} GMT");
            Instant stamped = ZonedDateTime.parse((String) stamp, TimestampExtension.RFC_1123_GMT).toInstant();
            assertThat(stamped).isBetween(before, after);
        }
    }

    @Test
    void aBroadcastIsStampedOnceForAllItsRecipients() {
        try (EngineHarness harness = EngineHarness.start()) {
            // A clock that moves a day each time it is read: two stamps could not be equal.
            harness.server().addExtension(new TimestampExtension(new SteppingClock(Duration.ofDays(1))));
            TestClient first = subscriber(harness);
            TestClient second = subscriber(harness);
            CompletableFuture<TestResponse> secondHeld = second.connect();
            Map<String, Object> delivery = relay(first, publisher(harness), "");
            List<Map<String, Object>> secondDeliveries = AckWire.await(secondHeld).deliveries();
            assertThat(secondDeliveries).hasSize(1);
            assertThat(secondDeliveries.get(0).get("timestamp")).isEqualTo(delivery.get("timestamp")).isNotNull();
        }
    }

    @Test
    void theStampHasATwoDigitDayAndEnglishNames() {
        Clock fixed = Clock.fixed(Instant.parse("2024-03-05T10:00:00Z"), ZoneOffset.UTC);
        ServerMessageImpl message = delivery();
        assertThat(new TimestampExtension(fixed).send(null, null, message)).isTrue();
        assertThat(message.get("timestamp")).isEqualTo(CLIENT_TIMESTAMP);
    }

    @Test
    void aClientValueIsNeverRewrittenEvenNullAndRepliesAreNotStamped() {
        TimestampExtension extension = new TimestampExtension();
        ServerMessageImpl withNull = delivery();
        withNull.put("timestamp", null);
        extension.send(null, null, withNull);
        assertThat(withNull).containsEntry("timestamp", null);

        ServerMessageImpl publishReply = new ServerMessageImpl();
        publishReply.setChannel(CHANNEL);
        publishReply.setSuccessful(true);
        extension.send(null, null, publishReply);
        assertThat(publishReply).doesNotContainKey("timestamp");
    }

    private static ServerMessageImpl delivery() {
        ServerMessageImpl message = new ServerMessageImpl();
        message.setChannel(CHANNEL);
        message.setData(Map.of("text", "hi"));
        return message;
    }

    /** A clock that advances by a fixed step on every read. */
    private static final class SteppingClock extends Clock {
        private final Duration step;
        private final AtomicReference<Instant> current = new AtomicReference<>(Instant.parse("2024-03-01T00:00:00Z"));

        SteppingClock(Duration step) {
            this.step = step;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return current.getAndUpdate(time -> time.plus(step));
        }
    }
}
