package org.bayeux.backplane.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.bayeux.api.Message;
import org.bayeux.api.client.ClientSession;
import org.bayeux.api.server.LocalSession;
import org.bayeux.server.BayeuxEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Engines in one JVM, each with its own backplane, on a real redis-server of the test's own. */
class RedisBackplaneTest {
    private static final Duration OPERATION_TIMEOUT = Duration.ofMillis(500);
    @RegisterExtension
    final BackplaneFixture fixture = new BackplaneFixture();
    private final List<RedisBackplane> backplanes = new ArrayList<>();

    private BayeuxEngine node() {
        return node(RedisBackplane.builder().uri(fixture.redis().uri()).operationTimeout(OPERATION_TIMEOUT).build());
    }

    private BayeuxEngine node(RedisBackplane backplane) {
        backplanes.add(backplane);
        return fixture.engine(backplane);
    }

    private static LocalSession connected(BayeuxEngine engine, String name) throws Exception {
        return BackplaneFixture.connected(engine, name);
    }

    private static List<Object> subscribe(LocalSession session, String channel) throws Exception {
        List<Object> received = new CopyOnWriteArrayList<>();
        CompletableFuture<Message> reply = new CompletableFuture<>();
        session.getChannel(channel).subscribe((c, message) -> received.add(message.getData()),
                (c, message) -> reply.complete(message));
        assertThat(reply.get(5, TimeUnit.SECONDS).isSuccessful()).isTrue();
        return received;
    }

    private static Message publish(LocalSession session, String channel, Object data) throws Exception {
        CompletableFuture<Message> reply = new CompletableFuture<>();
        session.getChannel(channel).publish(data, (c, message) -> reply.complete(message));
        return reply.get(10, TimeUnit.SECONDS);
    }

    @Test
    void aPublishOnAReachesSubscribersOnAAndBExactlyOnce() throws Exception {
        BayeuxEngine a = node();
        BayeuxEngine b = node();
        List<Object> onA = subscribe(connected(a, "listenerA"), "/chat/*");
        List<Object> onB = subscribe(connected(b, "listenerB"), "/chat/**");
        LocalSession speaker = connected(a, "speaker");

        assertThat(publish(speaker, "/chat/room", "hello").isSuccessful()).isTrue();
        // A second message on the same channel: once it arrived, the first cannot still arrive a second time.
        assertThat(publish(speaker, "/chat/room", "end").isSuccessful()).isTrue();

        await().atMost(Duration.ofSeconds(10)).until(() -> onA.contains("end") && onB.contains("end"));
        assertThat(onA).containsExactly("hello", "end");
        assertThat(onB).containsExactly("hello", "end");
    }

    @Test
    void theDumpTellsTheStateWithoutSessionsOrBodies() throws Exception {
        RedisBackplane backplane = RedisBackplane.builder().uri(fixture.redis().uri())
                .operationTimeout(OPERATION_TIMEOUT).build();
        assertThat(backplane.dump()).contains("redis backplane: stopped").contains("pending publishes: 0");
        BayeuxEngine a = node(backplane);
        LocalSession listener = connected(a, "listener");
        List<Object> received = subscribe(listener, "/chat/room");
        assertThat(publish(listener, "/chat/room", "a body nobody may dump").isSuccessful()).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == 1);

        String dump = backplane.dump();
        assertThat(dump).contains("redis backplane: running")
                .contains("endpoint: ")
                .contains("connected: true")
                .contains("read now: [" + backplane.shardOf("/chat/room") + "]")
                .contains("reader 0: positioned true, connected true")
                .contains("pending publishes: 0 of at most")
                .contains("recovery permits: 0 running of")
                .doesNotContain("a body nobody may dump")
                .doesNotContain(listener.getId());
    }

    @Test
    void aRetriedPublishWithTheSameIdempotencyKeyIsStoredOnceWithinTheWindow() throws Exception {
        Duration window = Duration.ofSeconds(1);
        BayeuxEngine a = node(RedisBackplane.builder().uri(fixture.redis().uri()).idempotencyWindow(window).build());
        BayeuxEngine b = node(RedisBackplane.builder().uri(fixture.redis().uri()).idempotencyWindow(window).build());
        List<Object> onA = subscribe(connected(a, "listenerA"), "/orders");
        List<Object> onB = subscribe(connected(b, "listenerB"), "/orders");
        LocalSession speaker = connected(a, "speaker");
        AtomicReference<String> key = new AtomicReference<>();
        speaker.addExtension(new ClientSession.Extension() {
            @Override
            public boolean send(ClientSession session, Message.Mutable message) {
                if (key.get() != null) {
                    message.getExt(true).put(RedisBackplane.IDEMPOTENCY_KEY_FIELD, key.get());
                }
                return true;
            }
        });

        key.set("k1");
        assertThat(publish(speaker, "/orders", "first").isSuccessful()).isTrue();
        assertThat(publish(speaker, "/orders", "retry").isSuccessful()).as("a retry is acknowledged").isTrue();
        key.set("k2");
        assertThat(publish(speaker, "/orders", "other").isSuccessful()).isTrue();
        key.set(null);
        assertThat(publish(speaker, "/orders", "unkeyed").isSuccessful()).isTrue();
        assertThat(publish(speaker, "/orders", "unkeyed").isSuccessful()).isTrue();

        await().atMost(Duration.ofSeconds(10)).until(() -> onA.size() >= 4 && onB.size() >= 4);
        assertThat(onA).as("the retry was not stored again").containsExactly("first", "other", "unkeyed", "unkeyed");
        assertThat(onB).isEqualTo(onA);

        // Past the window the key is forgotten: the same key is stored again, once.
        key.set("k1");
        int[] attempt = {0};
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100)).until(() -> {
            assertThat(publish(speaker, "/orders", "late" + attempt[0]++).isSuccessful()).isTrue();
            return onA.stream().anyMatch(d -> ((String) d).startsWith("late"));
        });
        key.set(null);
        assertThat(publish(speaker, "/orders", "end").isSuccessful()).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> onA.contains("end") && onB.contains("end"));
        assertThat(onA.stream().filter(d -> ((String) d).startsWith("late")).count()).isEqualTo(1);
        assertThat(onB).isEqualTo(onA);
    }

    @Test
    void concurrentPublishersOnTwoNodesLeaveOneOrderOnEveryNode() throws Exception {
        List<BayeuxEngine> nodes = List.of(node(), node(), node());
        List<List<Object>> received = new ArrayList<>();
        for (BayeuxEngine engine : nodes) {
            received.add(subscribe(connected(engine, "listener"), "/race"));
        }
        int perPublisher = 200;
        CountDownLatch go = new CountDownLatch(1);
        List<CompletableFuture<Integer>> publishers = new ArrayList<>();
        for (String name : List.of("a", "b")) {
            LocalSession speaker = connected(nodes.get(name.equals("a") ? 0 : 1), "speaker-" + name);
            publishers.add(CompletableFuture.supplyAsync(() -> {
                int acknowledged = 0;
                try {
                    assertThat(go.await(10, TimeUnit.SECONDS)).isTrue();
                    for (int i = 0; i < perPublisher; i++) {
                        if (publish(speaker, "/race", name + i).isSuccessful()) {
                            acknowledged++;
                        }
                    }
                } catch (Exception failed) {
                    throw new IllegalStateException(failed);
                }
                return acknowledged;
            }));
        }
        go.countDown();
        for (CompletableFuture<Integer> publisher : publishers) {
            assertThat(publisher.get(60, TimeUnit.SECONDS)).isEqualTo(perPublisher);
        }

        await().atMost(Duration.ofSeconds(20))
                .until(() -> received.stream().allMatch(list -> list.size() >= 2 * perPublisher));
        List<Object> first = received.get(0);
        assertThat(first).hasSize(2 * perPublisher).doesNotHaveDuplicates();
        assertThat(first.stream().filter(d -> ((String) d).startsWith("a")).toList())
                .as("each publisher's own order kept").isEqualTo(sequence("a", perPublisher));
        assertThat(first.stream().filter(d -> ((String) d).startsWith("b")).toList())
                .isEqualTo(sequence("b", perPublisher));
        assertThat(received.get(1)).as("node B's order").isEqualTo(first);
        assertThat(received.get(2)).as("node C's order").isEqualTo(first);
    }

    private static List<Object> sequence(String prefix, int count) {
        List<Object> expected = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            expected.add(prefix + i);
        }
        return expected;
    }

    @Test
    void redisKilledDuringPublishesFailsThemQuicklyAndLosesNothingAcknowledged() throws Exception {
        BayeuxEngine a = node();
        BayeuxEngine b = node();
        List<Object> onA = subscribe(connected(a, "listenerA"), "/feed");
        List<Object> onB = subscribe(connected(b, "listenerB"), "/feed");
        LocalSession speaker = connected(a, "speaker");
        List<Object> acknowledged = new ArrayList<>();
        int next = 0;
        for (; next < 20; next++) {
            assertThat(publish(speaker, "/feed", "m" + next).isSuccessful()).isTrue();
            acknowledged.add("m" + next);
        }

        fixture.redis().kill();

        int failures = 0;
        for (int attempt = 0; attempt < 50 && failures < 5; attempt++, next++) {
            long started = System.nanoTime();
            Message reply = publish(speaker, "/feed", "m" + next);
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            if (reply.isSuccessful()) {
                acknowledged.add("m" + next);
            } else {
                failures++;
                assertThat(reply.get(Message.ERROR_FIELD)).isEqualTo("503::backplane_unavailable");
                assertThat(tookMillis).as("a publish fails within the operation timeout and some slack")
                        .isLessThan(OPERATION_TIMEOUT.toMillis() + 2000);
            }
        }
        assertThat(failures).as("publishes fail while Redis is away").isEqualTo(5);
        await().atMost(Duration.ofSeconds(10)).until(() -> backplanes.stream().noneMatch(RedisBackplane::isConnected));

        // The node itself keeps working: new sessions, local services.
        LocalSession late = connected(a, "late");
        assertThat(publish(late, "/service/local", "x").isSuccessful()).isTrue();

        fixture.redis().restart();

        int[] counter = {next};
        await("publishes succeed again").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    String data = "m" + counter[0]++;
                    if (publish(speaker, "/feed", data).isSuccessful()) {
                        acknowledged.add(data);
                        return true;
                    }
                    return false;
                });
        next = counter[0];
        for (int i = 0; i < 20; i++, next++) {
            assertThat(publish(speaker, "/feed", "m" + next).isSuccessful()).isTrue();
            acknowledged.add("m" + next);
        }
        String last = "m" + (next - 1);

        await().atMost(Duration.ofSeconds(20)).until(() -> onA.contains(last) && onB.contains(last));
        for (List<Object> received : List.of(onA, onB)) {
            assertThat(received).as("nothing acknowledged lost").containsAll(acknowledged)
                    .as("nothing delivered twice").doesNotHaveDuplicates();
            assertThat(received).as("in publish order").isSortedAccordingTo(
                    (x, y) -> Integer.compare(number(x), number(y)));
        }
        assertThat(onB).as("one order on every node").isEqualTo(onA);
    }

    @Test
    void redisKilledUnderAStreamOfPublishesFromTwoNodesLosesNothingAcknowledged() throws Exception {
        BayeuxEngine a = node();
        BayeuxEngine b = node();
        List<Object> onA = subscribe(connected(a, "listenerA"), "/stream");
        List<Object> onB = subscribe(connected(b, "listenerB"), "/stream");
        List<Object> acknowledged = new CopyOnWriteArrayList<>();
        List<Object> refused = new CopyOnWriteArrayList<>();
        AtomicBoolean stop = new AtomicBoolean();
        List<CompletableFuture<Void>> publishers = new ArrayList<>();
        for (BayeuxEngine engine : List.of(a, b)) {
            LocalSession speaker = connected(engine, "speaker");
            String prefix = engine == a ? "a" : "b";
            publishers.add(CompletableFuture.runAsync(() -> {
                // Bounded: at most 5000 publishes, each answered within the operation timeout.
                for (int i = 0; i < 5000 && !stop.get(); i++) {
                    try {
                        Message reply = publish(speaker, "/stream", prefix + i);
                        (reply.isSuccessful() ? acknowledged : refused).add(prefix + i);
                    } catch (Exception failed) {
                        throw new IllegalStateException(failed);
                    }
                }
            }));
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> acknowledged.size() >= 100);
        fixture.redis().kill();
        await().atMost(Duration.ofSeconds(20)).until(() -> refused.size() >= 10);
        fixture.redis().restart();
        int before = acknowledged.size();
        await().atMost(Duration.ofSeconds(30)).until(() -> acknowledged.size() >= before + 100);
        stop.set(true);
        for (CompletableFuture<Void> publisher : publishers) {
            publisher.get(20, TimeUnit.SECONDS);
        }

        await().atMost(Duration.ofSeconds(20)).until(() -> onA.containsAll(acknowledged) && onB.containsAll(acknowledged));
        // Whatever came after the last acknowledged publish is in flight no more: both lists are complete.
        await().atMost(Duration.ofSeconds(10)).until(() -> onA.size() == onB.size());
        assertThat(onA).as("nothing delivered twice").doesNotHaveDuplicates();
        assertThat(onB).as("one order on every node").isEqualTo(onA);
        for (String prefix : List.of("a", "b")) {
            List<Integer> numbers = onA.stream().map(d -> (String) d).filter(d -> d.startsWith(prefix))
                    .map(d -> Integer.parseInt(d.substring(1))).toList();
            assertThat(numbers).as("publisher %s's order", prefix).isSorted();
        }
    }

    private static int number(Object data) {
        return Integer.parseInt(((String) data).substring(1));
    }
}
