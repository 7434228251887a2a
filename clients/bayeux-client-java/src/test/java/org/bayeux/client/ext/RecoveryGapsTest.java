package org.bayeux.client.ext;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.bayeux.api.MapMessage;
import org.bayeux.api.Message;
import org.junit.jupiter.api.Test;

/**
 * Gap recovery, message by message, on a host that plays the client: what the application gets (the messages the
 * extension passes, then the ones it releases, in order), the subscribes it asks for, and timers run by hand. The
 * network tests are {@code GapRecoveryTest} in bayeux-backplane-redis.
 */
class RecoveryGapsTest {
    private final List<Message> delivered = new ArrayList<>();
    private final List<Message.Mutable> released = new ArrayList<>();
    private final List<String> subscribes = new ArrayList<>();
    private final Map<Integer, Runnable> timers = new LinkedHashMap<>();
    private boolean receiving;
    private int nextId;
    private int nextTimer;

    private final RecoveryExtension.Host host = new RecoveryExtension.Host() {
        @Override
        public void subscribe(String channel) {
            subscribes.add(channel);
        }

        @Override
        public void release(List<Message.Mutable> messages) {
            released.addAll(messages);
            if (!receiving) {
                flush();
            }
        }

        @Override
        public Runnable schedule(Runnable task, Duration delay) {
            int id = ++nextTimer;
            timers.put(id, task);
            return () -> timers.remove(id);
        }
    };

    private RecoveryExtension recovery(int maxHeld) {
        RecoveryExtension recovery = new RecoveryExtension(host, Duration.ofSeconds(1), maxHeld);
        recovery.rcvMeta(null, message(Message.META_HANDSHAKE, Map.of("successful", true,
                "ext", Map.of("recovery", true))));
        MapMessage first = subscribe(recovery);
        recovery.rcvMeta(null, message(Message.META_SUBSCRIBE, Map.of("successful", true, "subscription", "/a",
                "id", first.getId(), "ext", Map.of("recovery", Map.of("offset", 0, "epoch", "e1")))));
        return recovery;
    }

    private static MapMessage message(String channel, Map<String, Object> fields) {
        MapMessage message = MapMessage.on(channel);
        message.putAll(fields);
        return message;
    }

    private MapMessage subscribe(RecoveryExtension recovery) {
        MapMessage subscribe = message(Message.META_SUBSCRIBE, Map.of("subscription", "/a"));
        subscribe.setId(Integer.toString(++nextId));
        recovery.sendMeta(null, subscribe);
        return subscribe;
    }

    private void receive(RecoveryExtension recovery, long offset, String epoch) {
        MapMessage message = message("/a", Map.of("data", offset, "ext",
                Map.of("position", Map.of("offset", offset, "epoch", epoch))));
        receiving = true;
        boolean pass = recovery.rcv(null, message);
        receiving = false;
        if (pass) {
            delivered.add(message);
        }
        flush();
    }

    private void receive(RecoveryExtension recovery, long offset) {
        receive(recovery, offset, "e1");
    }

    private void flush() {
        delivered.addAll(released);
        released.clear();
    }

    private static void reply(RecoveryExtension recovery, MapMessage request, boolean recovered, long offset,
            String epoch) {
        recovery.rcvMeta(null, message(Message.META_SUBSCRIBE, Map.of("successful", true, "subscription", "/a",
                "id", request.getId(), "ext", Map.of("recovery", Map.of("recovered", recovered, "offset", offset,
                        "epoch", epoch)))));
    }

    private List<Object> data() {
        return delivered.stream().map(Message::getData).collect(Collectors.toList());
    }

    @Test
    void aGapIsRecoveredAndEverythingLetThroughOnceInOrder() {
        RecoveryExtension recovery = recovery(1000);
        receive(recovery, 1);
        receive(recovery, 2);
        receive(recovery, 4);
        receive(recovery, 5);
        assertThat(data()).containsExactly(1L, 2L);
        assertThat(subscribes).containsExactly("/a");
        MapMessage request = subscribe(recovery);
        assertThat(request.getExt().get("recovery")).isEqualTo(Map.of("offset", 2L, "epoch", "e1"));
        reply(recovery, request, true, 5, "e1");
        for (long offset : new long[] {3, 4, 5, 6}) {
            receive(recovery, offset);
        }
        assertThat(data()).containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
        assertThat(recovery.recovered("/a")).contains(true);
        assertThat(recovery.gapsDetected()).isEqualTo(1);
        assertThat(recovery.gapsRecovered()).isEqualTo(1);
        assertThat(recovery.duplicatesDropped()).isEqualTo(2);
        assertThat(timers).isEmpty();
    }

    @Test
    void recoveredFalseLetsTheHeldOnesThroughAndAcceptsTheServersHeldOnes() {
        RecoveryExtension recovery = recovery(1000);
        receive(recovery, 1);
        receive(recovery, 3);
        receive(recovery, 5);
        MapMessage request = subscribe(recovery);
        reply(recovery, request, false, 7, "e1");
        assertThat(data()).containsExactly(1L, 3L, 5L);
        receive(recovery, 6);
        receive(recovery, 7);
        receive(recovery, 8);
        assertThat(data()).containsExactly(1L, 3L, 5L, 6L, 7L, 8L);
        assertThat(recovery.recovered("/a")).contains(false);
        assertThat(recovery.gapsLost()).isEqualTo(1);
        assertThat(recovery.gapsDetected()).isEqualTo(1);
        assertThat(recovery.position("/a")).contains(new RecoveryExtension.Position(8, "e1"));
    }

    @Test
    void aFailedSubscribeTheTimeoutAndTheBoundEachGiveUp() {
        RecoveryExtension failed = recovery(1000);
        receive(failed, 1);
        receive(failed, 3);
        MapMessage request = subscribe(failed);
        failed.rcvMeta(null, message(Message.META_SUBSCRIBE, Map.of("successful", false, "subscription", "/a",
                "id", request.getId())));
        assertThat(data()).containsExactly(1L, 3L);
        assertThat(failed.gapsLost()).isEqualTo(1);

        delivered.clear();
        RecoveryExtension late = recovery(1000);
        receive(late, 1);
        receive(late, 3);
        receive(late, 4);
        assertThat(timers).hasSize(1);
        timers.values().iterator().next().run();
        assertThat(data()).containsExactly(1L, 3L, 4L);
        assertThat(late.recovered("/a")).contains(false);

        delivered.clear();
        RecoveryExtension full = recovery(2);
        receive(full, 1);
        receive(full, 5);
        receive(full, 3);
        assertThat(data()).containsExactly(1L);
        receive(full, 4);
        assertThat(data()).containsExactly(1L, 3L, 4L, 5L);
        assertThat(full.gapsLost()).isEqualTo(1);
    }

    @Test
    void aSubscribeLostWithItsConnectionIsSentAgainOnceConnected() {
        RecoveryExtension recovery = recovery(1000);
        receive(recovery, 1);
        receive(recovery, 3);
        MapMessage lost = subscribe(recovery);
        recovery.rcvMeta(null, message(Message.META_SUBSCRIBE, Map.of("successful", false, "subscription", "/a",
                "id", lost.getId(), "error", "503::transport_failure", "failure", "closed")));
        assertThat(data()).as("still held").containsExactly(1L);
        assertThat(subscribes).hasSize(1);
        recovery.rcvMeta(null, message(Message.META_CONNECT, Map.of("successful", true)));
        assertThat(subscribes).as("sent again once connected").hasSize(2);
        recovery.rcvMeta(null, message(Message.META_CONNECT, Map.of("successful", true)));
        assertThat(subscribes).as("once").hasSize(2);
        MapMessage again = subscribe(recovery);
        reply(recovery, again, true, 3, "e1");
        receive(recovery, 2);
        assertThat(data()).containsExactly(1L, 2L, 3L);
        assertThat(recovery.gapsRecovered()).isEqualTo(1);
        assertThat(recovery.gapsLost()).isZero();
    }

    @Test
    void duplicatesAreDroppedAndAnotherEpochPasses() {
        RecoveryExtension recovery = recovery(1000);
        receive(recovery, 1);
        receive(recovery, 2);
        receive(recovery, 2);
        receive(recovery, 1);
        receive(recovery, 3);
        assertThat(data()).containsExactly(1L, 2L, 3L);
        assertThat(recovery.duplicatesDropped()).isEqualTo(2);
        receive(recovery, 5);
        receive(recovery, 9, "e2");
        assertThat(data()).as("the held one of the old epoch first").containsExactly(1L, 2L, 3L, 5L, 9L);
        receive(recovery, 10, "e2");
        assertThat(data()).containsExactly(1L, 2L, 3L, 5L, 9L, 10L);
        assertThat(recovery.position("/a")).contains(new RecoveryExtension.Position(10, "e2"));
        MapMessage plain = message("/a", Map.of("data", "x"));
        assertThat(recovery.rcv(null, plain)).as("no position: passes").isTrue();
    }

    @Test
    void theResubscribeAfterAReHandshakeEndsTheRecoveryNotTheEarlierSubscribe() {
        RecoveryExtension recovery = recovery(1000);
        receive(recovery, 1);
        receive(recovery, 3);
        MapMessage ours = subscribe(recovery);
        MapMessage resubscribe = subscribe(recovery);
        assertThat(resubscribe.getExt().get("recovery")).isEqualTo(Map.of("offset", 1L, "epoch", "e1"));
        recovery.rcvMeta(null, message(Message.META_SUBSCRIBE, Map.of("successful", false, "subscription", "/a",
                "id", ours.getId(), "error", "402::session_unknown")));
        assertThat(data()).as("still held").containsExactly(1L);
        reply(recovery, resubscribe, true, 3, "e1");
        receive(recovery, 2);
        receive(recovery, 3);
        assertThat(data()).containsExactly(1L, 2L, 3L);
        assertThat(recovery.recovered("/a")).contains(true);
    }

    @Test
    void channelsReceivedOnlyThroughAWildcardAreNotChecked() {
        RecoveryExtension recovery = recovery(1000);
        for (long offset : new long[] {1, 3, 2}) {
            assertThat(recovery.rcv(null, message("/b", Map.of("data", offset, "ext",
                    Map.of("position", Map.of("offset", offset, "epoch", "e1")))))).isTrue();
        }
        assertThat(recovery.position("/b")).contains(new RecoveryExtension.Position(3, "e1"));
        assertThat(subscribes).isEmpty();
    }

    /**
     * The finding: a wildcard subscription over ever new channels made the extension keep one position per channel
     * ever seen. Now it keeps at most maxChannels, forgetting the least recently used; a gap being recovered on a
     * forgotten channel is given up, its held messages let through in order, none lost or repeated.
     */
    @Test
    void theChannelsKeptAreBoundedAndTheLeastRecentlyUsedIsForgotten() {
        RecoveryExtension recovery = new RecoveryExtension(host, Duration.ofSeconds(1), 100, 3);
        recovery.rcvMeta(null, message(Message.META_HANDSHAKE, Map.of("successful", true,
                "ext", Map.of("recovery", true))));
        MapMessage first = subscribe(recovery);
        recovery.rcvMeta(null, message(Message.META_SUBSCRIBE, Map.of("successful", true, "subscription", "/a",
                "id", first.getId(), "ext", Map.of("recovery", Map.of("offset", 0, "epoch", "e1")))));
        receive(recovery, 1);
        // A gap on /a: 3 is held while 2 is recovered.
        receive(recovery, 3);
        assertThat(data()).containsExactly(1L);
        assertThat(subscribes).containsExactly("/a");

        // Messages of 5,000 channels through a wildcard: the positions kept stay at 3, and every message reaches the
        // application once (the one whose channel made /a's forgotten comes right after /a's held one).
        for (int i = 0; i < 5000; i++) {
            MapMessage other = message("/w/" + i, Map.of("data", i, "ext",
                    Map.of("position", Map.of("offset", 1, "epoch", "e1"))));
            receiving = true;
            if (recovery.rcv(null, other)) {
                delivered.add(other);
            }
            receiving = false;
            flush();
            assertThat(recovery.channels()).isLessThanOrEqualTo(3);
        }
        assertThat(recovery.channels()).isEqualTo(3);
        assertThat(recovery.channelsForgotten()).isEqualTo(5000 - 2);
        assertThat(recovery.position("/w/4999")).contains(new RecoveryExtension.Position(1, "e1"));
        assertThat(recovery.position("/w/0")).isEmpty();
        assertThat(delivered.stream().filter(m -> m.getChannel().startsWith("/w/")).map(Message::getData))
                .containsExactlyElementsOf(java.util.stream.IntStream.range(0, 5000).boxed().toList());
        // /a was the least recently used first: its recovery given up, the held 3 let through, once, in order.
        assertThat(recovery.position("/a")).isEmpty();
        assertThat(delivered.stream().filter(m -> m.getChannel().equals("/a")).map(Message::getData))
                .containsExactly(1L, 3L);
        assertThat(recovery.gapsLost()).isEqualTo(1);
        assertThat(timers).isEmpty();

        // The most recently used is kept: a channel read again stays while new ones come.
        recovery.rcv(null, message("/w/4998", Map.of("ext", Map.of("position", Map.of("offset", 2, "epoch", "e1")))));
        recovery.rcv(null, message("/w/new", Map.of("ext", Map.of("position", Map.of("offset", 1, "epoch", "e1")))));
        assertThat(recovery.position("/w/4998")).contains(new RecoveryExtension.Position(2, "e1"));
        assertThat(recovery.position("/w/4997")).isEmpty();
    }
}
