package org.bayeux.oort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.Message;
import org.bayeux.api.server.LocalSession;
import org.bayeux.client.BayeuxClient;
import org.bayeux.client.transport.ClientTransport;
import org.bayeux.transport.http.TransportConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Messages between real nodes on loopback: once on every other node, never back, no loop whatever the globs. */
class OortForwardingTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
    }

    private OortTestNode node() throws Exception {
        OortTestNode node = new OortTestNode();
        closeables.add(node);
        return node;
    }

    private static void publish(LocalSession session, String channel, Object data) throws Exception {
        CompletableFuture<Message> reply = new CompletableFuture<>();
        session.getChannel(channel).publish(data, (c, message) -> reply.complete(message));
        assertThat(reply.get(5, TimeUnit.SECONDS).isSuccessful()).isTrue();
    }

    @Test
    void aPublishOnAReachesSubscribersOnBOnceAndNeverComesBackToA() throws Exception {
        OortTestNode a = node();
        OortTestNode b = node();
        b.start(oort -> oort.channels(List.of("/chat/**")));
        a.start(oort -> oort.seeds(List.of(b.url)).channels(List.of("/chat/**")));
        await().atMost(WAIT).until(() -> a.joined.size() == 1 && b.joined.size() == 1);
        List<Object> localOnB = b.subscribe("/chat/*");
        List<Object> localOnA = a.subscribe("/chat/room");
        BayeuxClient remote = new BayeuxClient(org.bayeux.client.BayeuxClientConfig.builder(b.url)
                .transports(ClientTransport.WEBSOCKET).build());
        closeables.add(remote);
        assertThat(remote.handshake(WAIT)).isEqualTo(BayeuxClient.State.CONNECTED);
        List<Object> clientOnB = new CopyOnWriteArrayList<>();
        assertThat(remote.getChannel("/chat/**").subscribeAsync((c, m) -> clientOnB.add(m.getData()))
                .get(10, TimeUnit.SECONDS).isSuccessful()).isTrue();

        LocalSession speaker = a.connected("speaker");
        publish(speaker, "/chat/room", Map.of("text", "hello"));
        // A second message behind the first: once it is in, anything the first could have caused is in too.
        publish(speaker, "/chat/room", Map.of("text", "marker"));

        await().atMost(WAIT).until(() -> localOnB.size() >= 2 && clientOnB.size() >= 2);
        assertThat(localOnB).containsExactly(Map.of("text", "hello"), Map.of("text", "marker"));
        assertThat(clientOnB).containsExactly(Map.of("text", "hello"), Map.of("text", "marker"));
        assertThat(localOnA).as("delivered at once on A, never again")
                .containsExactly(Map.of("text", "hello"), Map.of("text", "marker"));
        assertThat(a.oort.stats().forwarded()).isEqualTo(2);
        assertThat(b.oort.stats().received()).isEqualTo(2);
        assertThat(b.oort.stats().forwarded()).as("B sends nothing on").isZero();
        assertThat(a.oort.stats().received()).isZero();
        assertThat(b.oort.stats().duplicates() + b.oort.stats().gaps()).isZero();
    }

    @Test
    void aBurstCrossesTheLinkInOrderInFewerBatchesThanMessages() throws Exception {
        assertThat(burst(node(), node())).isEqualTo(ClientTransport.WEBSOCKET);
    }

    @Test
    void aBurstCrossesLinksOverLongPollingInOrder() throws Exception {
        TransportConfig noWebSocket = TransportConfig.builder().set(TransportConfig.WEBSOCKET, false).build();
        OortTestNode a = new OortTestNode(noWebSocket);
        closeables.add(a);
        OortTestNode b = new OortTestNode(noWebSocket);
        closeables.add(b);
        assertThat(burst(a, b)).isEqualTo(ClientTransport.LONG_POLLING);
    }

    /** @return the transport the link used */
    private String burst(OortTestNode a, OortTestNode b) throws Exception {
        b.start(oort -> oort.channels(List.of("/burst/**")));
        a.start(oort -> oort.seeds(List.of(b.url)).channels(List.of("/burst/**")));
        await().atMost(WAIT).until(() -> a.joined.size() == 1 && b.joined.size() == 1);
        List<Object> onB = b.subscribe("/burst/room");
        LocalSession speaker = a.connected("speaker");
        int count = Integer.getInteger("burst.count", 5_000);
        long start = System.nanoTime();
        for (int i = 1; i <= count; i++) {
            // Without waiting for replies: the link's queue takes them faster than the peer answers.
            speaker.getChannel("/burst/room").publish(Map.of("n", i), null);
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> onB.size() >= count);
        long millis = (System.nanoTime() - start) / 1_000_000;
        List<Object> expected = new ArrayList<>();
        for (int i = 1; i <= count; i++) {
            expected.add(Map.of("n", (long) i));
        }
        assertThat(onB).as("once each, in order").isEqualTo(expected);
        Link link = a.oort.linkTo(b.url);
        assertThat(link).isNotNull();
        long batches = link.forwards().batches();
        // Not a timing: a burst must share frames, whatever the machine's speed (two batches in flight at most).
        assertThat(batches).as("batches for %d forwards", count).isLessThan(count);
        assertThat(b.oort.stats().duplicates() + b.oort.stats().gaps() + b.oort.stats().outOfOrder()).isZero();
        await().atMost(WAIT).until(() -> link.forwards().size() == 0);
        System.out.printf("burst over %s: %d forwards in %d batches, all delivered in %d ms%n",
                link.transportName(), count, batches, millis);
        return link.transportName();
    }

    @Test
    void withFanOutLanesEachChannelKeepsItsOrderWhileChannelsAreFannedOutInParallel() throws Exception {
        OortTestNode a = node();
        OortTestNode b = node();
        b.start(oort -> oort.channels(List.of("/lanes/**")).fanOutLanes(4));
        a.start(oort -> oort.seeds(List.of(b.url)).channels(List.of("/lanes/**")));
        await().atMost(WAIT).until(() -> a.joined.size() == 1 && b.joined.size() == 1);
        Map<String, List<Long>> byChannel = new ConcurrentHashMap<>();
        Set<String> threads = ConcurrentHashMap.newKeySet();
        CompletableFuture<Message> subscribed = new CompletableFuture<>();
        b.connected("subscriber").getChannel("/lanes/*").subscribe((c, message) -> {
            byChannel.computeIfAbsent(message.getChannel(), x -> new CopyOnWriteArrayList<>())
                    .add((Long) message.getData());
            threads.add(Thread.currentThread().getName());
        }, (c, message) -> subscribed.complete(message));
        assertThat(subscribed.get(5, TimeUnit.SECONDS).isSuccessful()).isTrue();
        int channels = 8;
        int each = 500;
        List<Thread> publishers = new ArrayList<>();
        for (int ch = 0; ch < channels; ch++) {
            LocalSession speaker = a.connected("speaker" + ch);
            String channel = "/lanes/" + ch;
            // One publisher per channel, all at once: the origin interleaves the channels.
            publishers.add(new Thread(() -> {
                for (long n = 0; n < each; n++) {
                    speaker.getChannel(channel).publish(n, null);
                }
            }));
        }
        publishers.forEach(Thread::start);
        for (Thread publisher : publishers) {
            publisher.join(WAIT.toMillis());
        }
        await().atMost(Duration.ofSeconds(60))
                .until(() -> byChannel.values().stream().mapToInt(List::size).sum() >= channels * each);
        List<Long> expected = new ArrayList<>();
        for (long n = 0; n < each; n++) {
            expected.add(n);
        }
        assertThat(byChannel).hasSize(channels);
        byChannel.forEach((channel, ns) -> assertThat(ns).as("%s: once each, in order", channel).isEqualTo(expected));
        assertThat(threads).as("fanned out on the lanes, not on the thread that reads the link")
                .allMatch(name -> name.startsWith("oort-fan-out-"));
    }

    @Test
    void aMessageLargerThanTheLinkLimitIsNotForwardedAndItsPublishFails() throws Exception {
        OortTestNode a = node();
        OortTestNode b = node();
        b.start(oort -> { });
        a.start(oort -> oort.seeds(List.of(b.url)).maxMessageBytes(1024));
        await().atMost(WAIT).until(() -> a.joined.size() == 1 && b.joined.size() == 1);
        List<Object> onB = b.subscribe("/chat/room");
        LocalSession speaker = a.connected("speaker");

        CompletableFuture<Message> reply = new CompletableFuture<>();
        speaker.getChannel("/chat/room").publish("x".repeat(2000), (c, message) -> reply.complete(message));
        assertThat(reply.get(5, TimeUnit.SECONDS).isSuccessful()).isFalse();
        publish(speaker, "/chat/room", "small");

        await().atMost(WAIT).until(() -> onB.size() >= 1);
        assertThat(onB).containsExactly("small");
        assertThat(a.oort.stats().oversize()).isEqualTo(1);
    }

    @Test
    void aJavaClientOnAReachesAJavaClientOnB() throws Exception {
        OortTestNode a = node();
        OortTestNode b = node();
        b.start(oort -> { });
        a.start(oort -> oort.seeds(List.of(b.url)));
        await().atMost(WAIT).until(() -> a.joined.size() == 1 && b.joined.size() == 1);
        BayeuxClient onA = client(a.url);
        BayeuxClient onB = client(b.url);
        List<Object> received = new CopyOnWriteArrayList<>();
        assertThat(onB.getChannel("/chat/room").subscribeAsync((c, m) -> received.add(m.getData()))
                .get(10, TimeUnit.SECONDS).isSuccessful()).isTrue();

        for (int n = 0; n < 50; n++) {
            assertThat(onA.getChannel("/chat/room").publishAsync(n).get(10, TimeUnit.SECONDS).isSuccessful()).isTrue();
        }

        await().atMost(WAIT).until(() -> received.size() >= 50);
        assertThat(received).hasSize(50);
        assertThat(received).extracting(data -> ((Number) data).intValue())
                .containsExactlyElementsOf(java.util.stream.IntStream.range(0, 50).boxed().toList());
    }

    private BayeuxClient client(String url) throws Exception {
        BayeuxClient client = new BayeuxClient(org.bayeux.client.BayeuxClientConfig.builder(url)
                .transports(ClientTransport.WEBSOCKET).build());
        closeables.add(client);
        assertThat(client.handshake(WAIT)).isEqualTo(BayeuxClient.State.CONNECTED);
        return client;
    }

    @Test
    void channelsNotObservedStayOnTheirNode() throws Exception {
        OortTestNode a = node();
        OortTestNode b = node();
        b.start(oort -> oort.channels(List.of("/chat/**")));
        a.start(oort -> oort.seeds(List.of(b.url)).channels(List.of("/chat/**")));
        await().atMost(WAIT).until(() -> a.joined.size() == 1 && b.joined.size() == 1);
        List<Object> onB = b.subscribe("/**");

        LocalSession speaker = a.connected("speaker");
        publish(speaker, "/news/today", "not observed");
        publish(speaker, "/chat/room", "observed");

        await().atMost(WAIT).until(() -> onB.size() >= 1);
        assertThat(onB).containsExactly("observed");
        assertThat(a.oort.stats().forwarded()).isEqualTo(1);
    }

    @Test
    void threeNodesObservingEverythingDeliverEachMessageOnceEverywhereWithoutALoop() throws Exception {
        OortTestNode a = node();
        OortTestNode b = node();
        OortTestNode c = node();
        c.start(oort -> { });
        b.start(oort -> oort.seeds(List.of(c.url)));
        a.start(oort -> oort.seeds(List.of(b.url, c.url)));
        await().atMost(WAIT).until(() -> a.joined.size() == 2 && b.joined.size() == 2 && c.joined.size() == 2);
        List<OortTestNode> nodes = List.of(a, b, c);
        List<List<Object>> received = new ArrayList<>();
        for (OortTestNode node : nodes) {
            received.add(node.subscribe("/**"));
        }

        int perNode = 20;
        for (int n = 0; n < perNode; n++) {
            for (int i = 0; i < nodes.size(); i++) {
                publish(nodes.get(i).connected("speaker-" + i + "-" + n), "/chat/room", "node" + i + "-" + n);
            }
        }

        int total = perNode * nodes.size();
        await().atMost(WAIT).until(() -> received.stream().allMatch(list -> list.size() >= total));
        for (int i = 0; i < nodes.size(); i++) {
            List<Object> onNode = received.get(i);
            assertThat(onNode).as("node %d", i).hasSize(total).doesNotHaveDuplicates();
            for (int from = 0; from < nodes.size(); from++) {
                String prefix = "node" + from + "-";
                List<Object> fromOne = onNode.stream().filter(d -> ((String) d).startsWith(prefix)).toList();
                List<Object> expected = new ArrayList<>();
                for (int n = 0; n < perNode; n++) {
                    expected.add(prefix + n);
                }
                assertThat(fromOne).as("node %d, in the order node %d published", i, from).isEqualTo(expected);
            }
            OortStats stats = nodes.get(i).oort.stats();
            assertThat(stats.forwarded()).as("each of its own messages once to each of 2 peers")
                    .isEqualTo(2L * perNode);
            assertThat(stats.received()).isEqualTo(2L * perNode);
            assertThat(stats.duplicates() + stats.gaps()).isZero();
        }
    }
}
