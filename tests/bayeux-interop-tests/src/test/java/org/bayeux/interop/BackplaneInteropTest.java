package org.bayeux.interop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.bayeux.api.server.LocalSession;
import org.bayeux.api.server.ServerChannel;
import org.bayeux.backplane.redis.RedisProcess;
import org.bayeux.standalone.StandaloneOptions;
import org.bayeux.standalone.StandaloneServer;
import org.cometd.bayeux.Message;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Three standalone servers joined by the Redis backplane (one redis-server of the test's own), with the unmodified
 * CometD Java client, CometD JavaScript client and Faye each subscribed on a different node and each publishing, at
 * the same time, from yet another node to the same channel: every subscriber gets every message exactly once, all
 * three in the same order, each publisher's messages in its order, and the position the backplane writes into
 * {@code ext} changes nothing they see.
 */
class BackplaneInteropTest {
    private static final Logger LOG = LoggerFactory.getLogger(BackplaneInteropTest.class);
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Duration RUN_LIMIT = Duration.ofSeconds(90);
    private static final String CHANNEL = "/cluster/room";
    /** Messages each of the three publishers sends, each after the previous one's reply. */
    private static final int PER_PUBLISHER = 25;
    private static final int TOTAL = 3 * PER_PUBLISHER;

    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void stopAll() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"long-polling", "websocket"})
    void everySubscriberOnEveryNodeGetsEveryMessageOnceInOneOrder(String transport) throws Exception {
        RedisProcess redis = RedisProcess.start();
        resources.add(redis);
        List<StandaloneServer> nodes = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            // History (and so positions) is opt-in: turned on for the channel, whose position the clients must ignore.
            StandaloneServer node = new StandaloneServer(StandaloneOptions.parse("--backplane", redis.uri(),
                    "--set", "timeout=5s", "--set", "historyRules=/cluster/**").port(0).host("127.0.0.1"));
            resources.add(node);
            nodes.add(node);
        }
        await("every node reads from Redis").atMost(WAIT)
                .until(() -> nodes.stream().allMatch(node -> node.getBackplane().isConnected()));

        // Subscribers: the CometD Java client on node 0, the CometD JS client on node 1, Faye on node 2.
        CometDJavaClient javaReceiver = new CometDJavaClient(url(nodes.get(0)), transport);
        resources.add(javaReceiver);
        javaReceiver.handshake();
        BlockingQueue<Message> javaQueue = javaReceiver.subscribe(CHANNEL);
        Map<String, Object> wait = Map.of("channel", CHANNEL, "count", TOTAL, "wait", 60_000, "timeout", 80_000);
        NodeScenario jsReceiver = NodeScenario.start("cometd-js", url(nodes.get(1)), transport, "receive", wait);
        resources.add(jsReceiver::kill);
        NodeScenario fayeReceiver = NodeScenario.start("faye", url(nodes.get(2)), transport, "receive", wait);
        resources.add(fayeReceiver::kill);
        for (StandaloneServer node : nodes) {
            await("the subscriber on its node").atMost(WAIT).pollInterval(Duration.ofMillis(20))
                    .until(() -> remoteSubscribers(node) == 1);
        }

        Set<Object> publishing = watch(nodes.get(1));

        // Publishers, all at once: Faye on node 0, the CometD Java client on node 1, the CometD JS client on node 2.
        Map<String, Object> send = Map.of("channel", CHANNEL, "count", PER_PUBLISHER, "timeout", 80_000);
        NodeScenario fayeSender = NodeScenario.start("faye", url(nodes.get(0)), transport, "send", send);
        resources.add(fayeSender::kill);
        NodeScenario jsSender = NodeScenario.start("cometd-js", url(nodes.get(2)), transport, "send", send);
        resources.add(jsSender::kill);
        try (CometDJavaClient javaSender = new CometDJavaClient(url(nodes.get(1)), transport)) {
            javaSender.handshake();
            // The Node.js processes take a while to start: the Java client publishes once both have begun.
            await("both Node.js publishers under way").atMost(WAIT).pollInterval(Duration.ofMillis(5))
                    .until(() -> publishing.containsAll(Interop.NODE_CLIENTS));
            for (long seq = 0; seq < PER_PUBLISHER; seq++) {
                Message reply = javaSender.publish(CHANNEL, Map.of("from", CometDJavaClient.NAME, "seq", seq));
                assertThat(reply.isSuccessful()).as("publish " + seq + " acknowledged").isTrue();
            }
            javaSender.disconnect();
        }
        assertThat(((Number) fayeSender.result(RUN_LIMIT).get("sent")).intValue()).isEqualTo(PER_PUBLISHER);
        assertThat(((Number) jsSender.result(RUN_LIMIT).get("sent")).intValue()).isEqualTo(PER_PUBLISHER);

        List<String> javaOrder = new ArrayList<>();
        for (int i = 0; i < TOTAL; i++) {
            Message message = CometDJavaClient.next(javaQueue);
            assertThat(message.getChannel()).isEqualTo(CHANNEL);
            assertThat(message.getExt()).as("the position rides in ext").containsKey("position");
            javaOrder.add(key(CometDJavaClient.dataOf(message)));
        }
        List<String> jsOrder = keys(jsReceiver.result(RUN_LIMIT));
        List<String> fayeOrder = keys(fayeReceiver.result(RUN_LIMIT));

        List<String> expected = new ArrayList<>();
        for (String publisher : Interop.CLIENTS) {
            for (long seq = 0; seq < PER_PUBLISHER; seq++) {
                expected.add(publisher + "#" + seq);
            }
        }
        for (List<String> order : List.of(javaOrder, jsOrder, fayeOrder)) {
            assertThat(order).as("every message once").doesNotHaveDuplicates()
                    .containsExactlyInAnyOrderElementsOf(expected);
            assertThat(perPublisher(order)).as("each publisher's order kept").allSatisfy((publisher, seqs) ->
                    assertThat(seqs).isSorted());
        }
        LOG.info("{}: the publisher changes {} times in the order of {} messages", transport, switches(javaOrder),
                TOTAL);
        assertThat(jsOrder).as("the CometD JS client saw the Java client's order").isEqualTo(javaOrder);
        assertThat(fayeOrder).as("Faye saw the Java client's order").isEqualTo(javaOrder);
        assertThat(javaQueue.poll(200, TimeUnit.MILLISECONDS)).as("nothing more").isNull();
    }

    /** @return the publishers ("from") seen so far by a server-side subscriber on the node */
    private Set<Object> watch(StandaloneServer node) throws Exception {
        Set<Object> from = ConcurrentHashMap.newKeySet();
        LocalSession watcher = node.getEngine().newLocalSession("watcher");
        CompletableFuture<org.bayeux.api.Message> handshake = new CompletableFuture<>();
        watcher.handshake(null, (channel, message) -> handshake.complete(message));
        assertThat(handshake.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).isSuccessful()).isTrue();
        CompletableFuture<org.bayeux.api.Message> subscribed = new CompletableFuture<>();
        watcher.getChannel(CHANNEL).subscribe((channel, message) -> {
            if (message.getData() instanceof Map<?, ?> data) {
                from.add(data.get("from"));
            }
        }, (channel, message) -> subscribed.complete(message));
        assertThat(subscribed.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).isSuccessful()).isTrue();
        return from;
    }

    private static int switches(List<String> order) {
        int switches = 0;
        for (int i = 1; i < order.size(); i++) {
            if (!order.get(i).split("#")[0].equals(order.get(i - 1).split("#")[0])) {
                switches++;
            }
        }
        return switches;
    }

    private static String url(StandaloneServer node) {
        return "http://127.0.0.1:" + node.getPort() + "/bayeux";
    }

    private static long remoteSubscribers(StandaloneServer node) {
        ServerChannel channel = node.getEngine().getChannel(CHANNEL);
        return channel == null ? 0
                : channel.getSubscribers().stream().filter(session -> !session.isLocalSession()).count();
    }

    private static String key(Map<String, ?> data) {
        return data.get("from") + "#" + ((Number) data.get("seq")).longValue();
    }

    @SuppressWarnings("unchecked")
    private static List<String> keys(Map<String, Object> result) {
        List<Map<String, Object>> received = (List<Map<String, Object>>) result.get("received");
        assertThat(received).hasSize(TOTAL);
        return received.stream().peek(message -> assertThat(message.get("channel")).isEqualTo(CHANNEL))
                .map(message -> key((Map<String, ?>) message.get("data"))).collect(Collectors.toList());
    }

    private static Map<String, List<Long>> perPublisher(List<String> order) {
        Map<String, List<Long>> seqs = new HashMap<>();
        for (String key : order) {
            int hash = key.lastIndexOf('#');
            seqs.computeIfAbsent(key.substring(0, hash), k -> new ArrayList<>()).add(Long.parseLong(key.substring(hash + 1)));
        }
        return seqs;
    }
}
