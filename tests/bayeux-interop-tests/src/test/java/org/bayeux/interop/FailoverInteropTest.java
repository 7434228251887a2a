package org.bayeux.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import org.bayeux.backplane.redis.RedisProcess;
import org.bayeux.testsupport.DeliveryChecker;
import org.bayeux.testsupport.FailoverBalancer;
import org.awaitility.core.ConditionTimeoutException;
import org.cometd.bayeux.Channel;
import org.cometd.bayeux.Message;
import org.cometd.bayeux.client.ClientSessionChannel;
import org.cometd.client.ext.AckExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Failover end to end (issue 33, "Tests that must show it"): three standalone server processes on one redis-server
 * ({@code --backplane redis://... --set sessionStore=true}), a {@link FailoverBalancer} in front (three sticky fronts,
 * one per node, {@code /health/ready} checked every 250 ms, a failed node's connections cut with a reset), and
 * unmodified clients spread over the fronts: the CometD Java client with its {@link AckExtension} over WebSocket and
 * long-polling, CometD JS 9 with its {@code AckExtension} and Faye 1.4 in Node.js, each over both transports. Three
 * publishers (CometD Java clients without {@code ack}, one per front) publish {@code {from, seq}} to four channels,
 * each publish after the previous one's reply, about 240 deliveries a second in all; each subscriber is on two
 * channels. 12 CometD Java subscribers spread over the fronts; 8 Node.js ones, each client and transport once on
 * front 0 and once on another. Then a node goes away mid-stream:
 * <ul>
 * <li>T1: {@code kill -9} of the node a third of the clients are on; T1b: the same after black-holing its connections
 * (open and silent, as a machine that vanished), so that what it wrote last goes nowhere;</li>
 * <li>T2: a rolling restart of all three nodes (SIGTERM, wait for the exit, start again on the same port, wait until
 * the balancer sends it clients again, next).</li>
 * </ul>
 * The pass criteria are counts, per client and summed per client family ({@link DeliveryChecker}): lost = duplicated
 * = reordered = 0 for every subscriber and channel, clientId changes = re-handshakes = 0. Only counts are asserted,
 * never timings: phases end when enough publishes were acknowledged, and every wait is bounded.
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class FailoverInteropTest {
    private static final Duration START_LIMIT = Duration.ofSeconds(120);
    private static final Duration WAIT = Duration.ofSeconds(60);
    /** Drains end when their clients left; a restart waits at most this for the exit. */
    private static final Duration DRAIN_LIMIT = Duration.ofSeconds(40);
    private static final List<String> CHANNELS = List.of("/failover/0", "/failover/1", "/failover/2",
            "/failover/3");
    private static final int NODES = 3;
    private static final int PUBLISHERS = 3;
    /**
     * Each publisher's pace: 3 × 8 messages a second, each channel's to 10 subscribers (6 CometD Java, 4 Node.js),
     * about 240 deliveries a second.
     */
    private static final Duration PUBLISH_PERIOD = Duration.ofMillis(125);
    /** CometD Java clients with ack per transport. */
    private static final int JAVA_PER_TRANSPORT = 6;
    /** Messages every subscriber has received before the failure: the stream flows everywhere. */
    private static final int WARM_UP = 20;
    /** Publishes acknowledged after the failure before the run ends. */
    private static final int AFTER_FAILURE = 150;
    /** Publishes acknowledged between the steps of a rolling restart. */
    private static final int BETWEEN_RESTARTS = 60;
    private static final String SEQ_LINE = "INTEROP-SEQ ";
    /** The nodes log, at DEBUG, each session they dropped because it moved elsewhere: counted in T3. */
    private static final String NODE_LOGGING = "-Dlogback.configurationFile=" + resource("logback-failover-node.xml");
    /** RedisSessionStore's line for a session fenced off: a write refused, or found owned elsewhere on revalidation. */
    private static final String FENCED_LINE = "A session moved to another node; its copy here is dropped";
    /** SessionRegistry's line for a session dropped as moved (after a fence, or an ack above its last batch). */
    private static final String MOVED_LINE = " moved to another node";
    private static final String LEASE_HELD_AGAIN_LINE = "This node's lease is held again";
    /** The family prefix of Faye, which has no ack. */
    private static final String FAYE_FAMILY = "faye/";
    /** CometD Java clients without ack per transport in T1c, all on front 0. */
    private static final int NO_ACK_PER_TRANSPORT = 3;
    /** The family prefix of the clients without ack: their guarantee is at-most-once, not exact. */
    private static final String NO_ACK_FAMILY = "cometd-java/no-ack/";
    /**
     * What a client without ack may lose when its node dies: the messages of one connect reply, journaled then not
     * received. A subscriber here gets about 12 messages a second (2 of the 4 channels of 24 publishes a second)
     * and a held connect is answered as soon as one is queued, so a reply carries 1 to a few; 12 (a second of its
     * stream) bounds one reply with room for a slow write, and is far below what a resume from a stale position
     * would lose (every message since it).
     */
    private static final int NO_ACK_LOST_BOUND = 12;
    /** Publishes acknowledged in T4: about 30 s at 24 publishes a second. */
    private static final int ROUND_ROBIN_PUBLISHES = 720;
    /** Messages every subscriber receives, after node 0 stopped, before it runs again (T3). */
    private static final int WHILE_PAUSED = 24;

    private final List<AutoCloseable> closing = new ArrayList<>();
    private final List<ServerProcess> servers = new ArrayList<>();
    private final List<CometDJavaClient> javaClients = new ArrayList<>();
    private final List<Publisher> publishers = new ArrayList<>();
    /** Node.js subscriber name -> its run. */
    private final Map<String, NodeScenario> nodeSubscribers = new LinkedHashMap<>();
    /** Java subscriber name -> "channel|publisher" of every end marker received. */
    private final Map<String, Set<String>> javaEnds = new ConcurrentHashMap<>();
    private final DeliveryChecker checker = new DeliveryChecker();
    private final AtomicLong acknowledged = new AtomicLong();
    private final AtomicLong unacknowledged = new AtomicLong();
    /** "publisher#seq channel: why" of every publish not acknowledged, for the failure message. */
    private final Queue<String> notAcknowledged = new ConcurrentLinkedQueue<>();
    /** Java subscribers' "subscriber|channel|publisher" -> the highest seq received so far. */
    private final Map<String, Long> highestSeq = new ConcurrentHashMap<>();
    /** Java subscribers' deliveries below a seq they already had, with the time they arrived. */
    private final Queue<String> lateDeliveries = new ConcurrentLinkedQueue<>();
    /** What the test did to the nodes, with the time, for the failure message (to read beside the server logs). */
    private final Queue<String> events = new ConcurrentLinkedQueue<>();
    private FailoverBalancer balancer;

    @AfterEach
    void stopAll() throws Exception {
        publishers.forEach(Publisher::stop);
        nodeSubscribers.values().forEach(NodeScenario::kill);
        // In parallel: a client whose server is gone may wait out its disconnect.
        List<AutoCloseable> clients = new ArrayList<>(javaClients);
        publishers.forEach(publisher -> clients.add(publisher.client));
        clients.parallelStream().forEach(client -> {
            try {
                client.close();
            } catch (Exception ignored) {
                // Closing anyway.
            }
        });
        for (ServerProcess server : servers) {
            server.close();
        }
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
    }

    /**
     * The control: the same run with no failure counts zero everywhere, so that a count above zero in the other
     * scenarios comes from the failure, not from the harness.
     */
    @Test
    void withoutAFailureEveryCountIsZero() throws Exception {
        startCluster();
        startClientsAndPublishers();
        publishUntil(acknowledged.get() + AFTER_FAILURE, "in the control run");
        finishAndAssertExact("no failure");
        assertThat(balancer.nodesMarkedDown()).isZero();
        assertThat(balancer.connectionsCut()).isZero();
        assertThat(unacknowledged.get()).as("every publish acknowledged").isZero();
    }

    /** T1 and T1b: the node of front 0 killed with SIGKILL mid-stream, its connections first black-holed in T1b. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"kill -9", "blackhole, then kill -9"})
    void aNodeKilledMidStreamCostsItsClientsNothing(String failure) throws Exception {
        startCluster();
        startClientsAndPublishers();
        assertThat(balancer.openConnections(0)).as("clients on node 0 before it fails").isPositive();
        if (failure.startsWith("blackhole")) {
            balancer.blackhole(0);
            long dropped = balancer.bytesDropped();
            // Counts, not time: what node 0 wrote after the black hole reached no client.
            await("node 0's bytes dropped").atMost(WAIT).pollInterval(Duration.ofMillis(20))
                    .until(() -> balancer.bytesDropped() > dropped);
        }
        servers.get(0).kill();
        await("the balancer marked node 0 failed").atMost(WAIT).pollInterval(Duration.ofMillis(20))
                .until(() -> !balancer.isHealthy(0));
        publishUntil(acknowledged.get() + AFTER_FAILURE, "after the kill");
        finishAndAssertExact(failure);
        assertThat(balancer.nodesMarkedDown()).as("only node 0 failed").isEqualTo(1);
    }

    /**
     * T4: the balancer in round-robin mode (every new connection, on any front, to the next node) for the whole
     * run, about 30 s of publishes: sessions move whenever a client's next connection lands on another node.
     * Families with ack exact; Faye (no ack) at most once.
     *
     * <p>Not supported yet: a session bouncing between nodes on every connection is adopted back and forth, and a
     * subscribe that reaches a node just as the session moves away is refused ({@code 503::session_moved}), so a
     * subscriber may miss a channel (docs/cluster.md, "Failover": keep the balancer sticky).</p>
     */
    @Disabled("round-robin balancing is not supported yet: subscriptions made while a session moves are refused")
    @Test
    void roundRobinBalancingCostsTheClientsNothing() throws Exception {
        startCluster(FailoverBalancer.Routing.ROUND_ROBIN);
        startClientsAndPublishers();
        publishUntil(acknowledged.get() + ROUND_ROBIN_PUBLISHES, "with round-robin balancing");
        finishAndAssertExact("round robin", Set.of(NO_ACK_FAMILY, FAYE_FAMILY));
        assertThat(balancer.nodesMarkedDown()).as("no node failed").isZero();
    }

    /**
     * T1c: T1 (kill -9 of node 0) with, besides the usual clients, {@value #NO_ACK_PER_TRANSPORT} CometD Java
     * clients per transport WITHOUT the ack extension, all on front 0. With the default failoverDelivery
     * at-most-once, the adopting node resumes after the last batch node 0 journaled before sending it: none is
     * duplicated, and a client loses at most what that one reply carried if it never arrived. Faye (no ack either)
     * is exact: it sends a failed connect again with the same id, which proves its last reply lost; every family
     * with ack stays exact.
     */
    @Test
    void aNodeKilledMidStreamCostsClientsWithoutAckAtMostOneReply() throws Exception {
        startCluster();
        for (int i = 0; i < NO_ACK_PER_TRANSPORT; i++) {
            for (String transport : Interop.TRANSPORTS) {
                startJavaSubscriber("java-noack-" + i + "-" + transport, channelsOf(i), 0, transport, false);
            }
        }
        startClientsAndPublishers();
        assertThat(balancer.openConnections(0)).as("clients on node 0 before it fails").isPositive();
        servers.get(0).kill();
        events.add("kill -9 " + servers.get(0) + " at " + LocalTime.now());
        await("the balancer marked node 0 failed").atMost(WAIT).pollInterval(Duration.ofMillis(20))
                .until(() -> !balancer.isHealthy(0));
        publishUntil(acknowledged.get() + AFTER_FAILURE, "after the kill");
        finishAndAssertExact("kill -9 with clients without ack", Set.of(NO_ACK_FAMILY));
        assertThat(balancer.nodesMarkedDown()).as("only node 0 failed").isEqualTo(1);
    }

    /** T2: every node in turn SIGTERMed (it drains, handing its sessions over), restarted, back in the balancer. */
    @Test
    void aRollingRestartOfEveryNodeCostsTheClientsNothing() throws Exception {
        startCluster();
        startClientsAndPublishers();
        for (int node = 0; node < NODES; node++) {
            int index = node;
            ServerProcess server = servers.get(node);
            int exit = server.terminate(DRAIN_LIMIT);
            assertThat(exit).as("%s ended by SIGTERM, after its shutdown hook", server).isEqualTo(143);
            await("the balancer marked node " + node + " failed").atMost(WAIT).pollInterval(Duration.ofMillis(20))
                    .until(() -> !balancer.isHealthy(index));
            server.start();
            server.awaitReady(START_LIMIT);
            await("the balancer sends node " + node + " clients again").atMost(WAIT)
                    .pollInterval(Duration.ofMillis(20)).until(() -> balancer.isHealthy(index));
            publishUntil(acknowledged.get() + BETWEEN_RESTARTS, "after restarting node " + node);
        }
        finishAndAssertExact("rolling restart");
        assertThat(balancer.nodesMarkedDown()).as("each node failed once").isEqualTo(NODES);
    }

    /**
     * T3: the node of front 0 stopped with SIGSTOP (sockets open, a JVM in a pause) until the balancer marked it
     * failed and every subscriber, its clients included, received {@value #WHILE_PAUSED} more messages (so every
     * session of node 0 was adopted elsewhere: node 0 could serve none, and an adopter waits for node 0's lease,
     * 3 s, to lapse), then SIGCONT: node 0 must not serve a stale copy, and must drop its sessions (fenced: its
     * writes refused, or its copies found owned elsewhere when it holds its lease again). Families with ack
     * exact, Faye too (its resent connect proves a lost reply).
     */
    @Test
    void aNodePausedPastItsLeaseGivesUpItsSessionsAndCostsItsClientsNothing() throws Exception {
        startCluster();
        startClientsAndPublishers();
        assertThat(balancer.openConnections(0)).as("clients on node 0 before it stops").isPositive();
        ServerProcess paused = servers.get(0);
        Map<String, Long> atStop = deliveriesPerSubscriber();
        paused.suspend();
        events.add("SIGSTOP " + paused + " at " + LocalTime.now());
        try {
            await("the balancer marked node 0 failed").atMost(WAIT).pollInterval(Duration.ofMillis(20))
                    .until(() -> !balancer.isHealthy(0));
            events.add("node 0 marked failed at " + LocalTime.now());
            await("every subscriber served elsewhere while node 0 is stopped").atMost(WAIT)
                    .pollInterval(Duration.ofMillis(100)).until(() -> everySubscriberReceivedSince(atStop,
                            WHILE_PAUSED));
        } finally {
            paused.resume();
            events.add("SIGCONT " + paused + " at " + LocalTime.now());
        }
        await("the balancer sends node 0 clients again").atMost(WAIT).pollInterval(Duration.ofMillis(20))
                .until(() -> balancer.isHealthy(0));
        events.add("node 0 healthy again at " + LocalTime.now());
        publishUntil(acknowledged.get() + AFTER_FAILURE, "after node 0 runs again");
        // Node 0 drops its copies asynchronously after it ran again; the publishes above took seconds, and this
        // wait is bounded. Counted before the exact counts are asserted, so that a failure message has them too.
        eventually("node 0 dropped a moved session", WAIT, () -> count(paused, FENCED_LINE) > 0);
        long fenced = count(paused, FENCED_LINE);
        long moved = count(paused, MOVED_LINE);
        events.add(String.format("node 0's log: %d sessions fenced off, %d dropped as moved, %s", fenced, moved,
                paused.logLines().stream().filter(line -> line.contains(LEASE_HELD_AGAIN_LINE)).toList()));
        finishAndAssertExact("SIGSTOP past the lease, SIGCONT", Set.of(NO_ACK_FAMILY));
        assertThat(fenced).as("node 0's sessions fenced off (a write refused or found owned elsewhere): %s", events)
                .isPositive();
        assertThat(moved).as("node 0's sessions dropped as moved: %s", events).isPositive();
        assertThat(balancer.nodesMarkedDown()).as("only node 0 failed").isEqualTo(1);
    }

    private static long count(ServerProcess server, String text) throws IOException {
        return server.logLines().stream().filter(line -> line.contains(text)).count();
    }

    private Map<String, Long> deliveriesPerSubscriber() {
        Map<String, Long> counts = new LinkedHashMap<>();
        javaEnds.keySet().forEach(name -> counts.put(name, checker.distinctDeliveries(name)));
        nodeSubscribers.forEach((name, scenario) -> counts.put(name, (long) scenario.jsonLines(SEQ_LINE).size()));
        return counts;
    }

    private boolean everySubscriberReceivedSince(Map<String, Long> before, int more) {
        Map<String, Long> now = deliveriesPerSubscriber();
        return before.entrySet().stream().allMatch(entry -> now.get(entry.getKey()) >= entry.getValue() + more);
    }

    private static String resource(String name) {
        try {
            return Path.of(FailoverInteropTest.class.getClassLoader().getResource(name).toURI())
                    .toString();
        } catch (URISyntaxException impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    private void startCluster() throws Exception {
        startCluster(FailoverBalancer.Routing.STICKY);
    }

    private void startCluster(FailoverBalancer.Routing routing) throws Exception {
        RedisProcess redis = RedisProcess.start();
        closing.add(redis);
        List<Integer> ports = new ArrayList<>();
        for (int node = 0; node < NODES; node++) {
            int port = RedisProcess.freePort();
            ports.add(port);
            ServerProcess server = new ServerProcess("failover-node" + node, port, List.of(NODE_LOGGING), List.of(
                    "--backplane", redis.uri(), "--set", "sessionStore=true", "--set", "timeout=5s", "--set", "drainTimeout=20s"));
            servers.add(server);
            server.start();
        }
        for (ServerProcess server : servers) {
            server.awaitReady(START_LIMIT);
        }
        balancer = FailoverBalancer.builder(ports).routing(routing).start();
        closing.add(balancer);
    }

    private String front(int index) {
        return "http://127.0.0.1:" + balancer.frontPort(index % balancer.fronts()) + "/bayeux";
    }

    /** Subscribers on every front, then the publishers; returns once every subscriber has received some. */
    private void startClientsAndPublishers() throws Exception {
        int subscriber = 0;
        for (int i = 0; i < JAVA_PER_TRANSPORT; i++) {
            for (String transport : Interop.TRANSPORTS) {
                startJavaSubscriber(subscriber, transport);
                subscriber++;
            }
        }
        // Node.js subscribers, one process each (cometd-nodejs-client shares its cookie jar per process): each
        // client and transport twice, once on front 0 (the node T1 kills), once on front 1 or 2.
        int pair = 0;
        for (String client : Interop.NODE_CLIENTS) {
            for (String transport : Interop.TRANSPORTS) {
                startNodeSubscriber(subscriber++, 0, client, transport);
                startNodeSubscriber(subscriber++, 1 + pair++ % 2, client, transport);
            }
        }
        for (NodeScenario scenario : nodeSubscribers.values()) {
            await(scenario + " subscribed").atMost(WAIT).pollInterval(Duration.ofMillis(50))
                    .until(() -> scenario.printed("INTEROP-SUBSCRIBED"));
        }
        for (int p = 0; p < PUBLISHERS; p++) {
            Publisher publisher = new Publisher("publisher-" + p, new CometDJavaClient(front(p), "long-polling"));
            publishers.add(publisher);
            publisher.client.handshake();
        }
        publishers.forEach(Publisher::start);
        await("every subscriber receives").atMost(WAIT).pollInterval(Duration.ofMillis(100))
                .until(() -> everySubscriberReceived(WARM_UP));
    }

    private void startJavaSubscriber(int index, String transport) throws Exception {
        startJavaSubscriber("java-" + index, channelsOf(index), index, transport, true);
    }

    private void startJavaSubscriber(String name, List<String> channels, int front, String transport, boolean ack)
            throws Exception {
        CometDJavaClient client = new CometDJavaClient(front(front), transport);
        javaClients.add(client);
        if (ack) {
            client.bayeux.addExtension(new AckExtension());
        }
        checker.subscriber(name, (ack ? "cometd-java+ack/" : NO_ACK_FAMILY) + transport);
        client.bayeux.getChannel(Channel.META_HANDSHAKE).addListener((ClientSessionChannel.MessageListener)
                (channel, reply) -> {
                    if (reply.isSuccessful()) {
                        checker.handshake(name, reply.getClientId());
                    }
                });
        client.bayeux.getChannel(Channel.META_CONNECT).addListener((ClientSessionChannel.MessageListener)
                (channel, reply) -> {
                    if (reply.isSuccessful() && reply.getClientId() != null) {
                        checker.clientId(name, reply.getClientId());
                    }
                });
        Set<String> ends = ConcurrentHashMap.newKeySet();
        javaEnds.put(name, ends);
        client.handshake();
        for (String channel : channels) {
            checker.subscribed(name, channel);
            client.subscribe(channel, (from, message) -> received(name, ends, message));
        }
    }

    private void received(String name, Set<String> ends, Message message) {
        Map<String, Object> data = CometDJavaClient.dataOf(message);
        String from = String.valueOf(data.get("from"));
        if (Boolean.TRUE.equals(data.get("end"))) {
            ends.add(message.getChannel() + "|" + from);
        } else {
            long seq = ((Number) data.get("seq")).longValue();
            checker.delivered(name, message.getChannel(), from, seq);
            Long before = highestSeq.merge(name + "|" + message.getChannel() + "|" + from, seq, Math::max);
            if (before > seq) {
                lateDeliveries.add(String.format("%s %s %s#%d after #%d at %s", name, message.getChannel(), from,
                        seq, before, LocalTime.now()));
            }
        }
    }

    private void startNodeSubscriber(int index, int front, String client, String transport) {
        String name = client + "-" + index;
        checker.subscriber(name, ("cometd-js".equals(client) ? "cometd-js+ack/" : "faye/") + transport);
        List<String> channels = channelsOf(index);
        channels.forEach(channel -> checker.subscribed(name, channel));
        Map<String, Object> args = new LinkedHashMap<>(Map.of("channels", String.join(",", channels),
                "publishers", PUBLISHERS, "wait", 400_000, "timeout", 420_000));
        if ("cometd-js".equals(client)) {
            args.put("options", "{\"ack\":true}");
        }
        nodeSubscribers.put(name, NodeScenario.start(client, front(front), transport, "receive-seq", args));
    }

    private static List<String> channelsOf(int subscriber) {
        return List.of(CHANNELS.get(subscriber % CHANNELS.size()), CHANNELS.get((subscriber + 1) % CHANNELS.size()));
    }

    private boolean everySubscriberReceived(int count) {
        return javaEnds.keySet().stream().allMatch(name -> checker.distinctDeliveries(name) >= count)
                && nodeSubscribers.values().stream().allMatch(scenario -> scenario.jsonLines(SEQ_LINE).size()
                >= count);
    }

    private void publishUntil(long acknowledgedPublishes, String when) {
        await(acknowledgedPublishes + " publishes acknowledged " + when).atMost(Duration.ofMinutes(2))
                .pollInterval(Duration.ofMillis(100)).until(() -> acknowledged.get() >= acknowledgedPublishes);
    }

    /**
     * Stops the publishers, sends each one's end marker to every channel, waits (bounded) until every subscriber has
     * them all, feeds the Node.js clients' lines to the checker, and asserts the counts.
     */
    private void finishAndAssertExact(String scenario) {
        finishAndAssertExact(scenario, Set.of(NO_ACK_FAMILY));
    }

    /**
     * @param atMostOnce the prefixes of the families held to the guarantee without ack (at most once: nothing
     *                   duplicated, at most {@value #NO_ACK_LOST_BOUND} lost per subscriber, no new session) rather
     *                   than to exact counts
     */
    private void finishAndAssertExact(String scenario, Set<String> atMostOnce) {
        publishers.forEach(Publisher::stop);
        publishers.forEach(Publisher::publishEnds);
        int endsPerSubscriber = 2 * PUBLISHERS;
        boolean complete = eventually("every subscriber has every publisher's end marker", WAIT, () ->
                javaEnds.values().stream().allMatch(ends -> ends.size() >= endsPerSubscriber)
                        && nodeSubscribers.values().stream().noneMatch(NodeScenario::isAlive));
        Map<String, String> nodeOutcomes = new LinkedHashMap<>();
        nodeSubscribers.forEach((name, run) -> nodeOutcomes.put(name, feedNodeSubscriber(name, run)));

        DeliveryChecker.Report report = checker.report();
        String summary = String.format("%s: %s%n%spublishes acknowledged %d, not acknowledged %d; balancer: %d "
                        + "connections accepted, %d cut, %d reroutes, %d nodes marked down; Node.js runs: %s; every "
                        + "end marker arrived: %s; first lost: %s; not acknowledged: %s; Java subscribers' late "
                        + "deliveries (first 12): %s; events: %s", scenario, report.inexact().isEmpty() ? "exact" : "NOT exact",
                report.table(), acknowledged.get(), unacknowledged.get(), balancer.connectionsAccepted(),
                balancer.connectionsCut(), balancer.reroutes(), balancer.nodesMarkedDown(), nodeOutcomes, complete, checker.lost(12),
                notAcknowledged, lateDeliveries.stream().limit(12).toList(), events);
        System.out.println(summary);

        assertThat(report.perSubscriber()).as("every subscriber reported").hasSize(javaClients.size()
                + nodeSubscribers.size());
        report.perFamily().forEach((family, counts) -> {
            if (atMostOnce.stream().anyMatch(family::startsWith)) {
                // At-most-once: nothing twice, no new session; losses bounded per subscriber below.
                assertThat(counts.duplicated()).as("%s duplicated%n%s", family, summary).isZero();
                assertThat(counts.unexpected()).as("%s unexpected%n%s", family, summary).isZero();
                assertThat(counts.clientIdChanges()).as("%s clientId changes%n%s", family, summary).isZero();
                assertThat(counts.rehandshakes()).as("%s re-handshakes%n%s", family, summary).isZero();
                return;
            }
            assertThat(counts.lost()).as("%s lost%n%s", family, summary).isZero();
            assertThat(counts.duplicated()).as("%s duplicated%n%s", family, summary).isZero();
            assertThat(counts.reordered()).as("%s reordered%n%s", family, summary).isZero();
            assertThat(counts.unexpected()).as("%s unexpected%n%s", family, summary).isZero();
            assertThat(counts.clientIdChanges()).as("%s clientId changes%n%s", family, summary).isZero();
            assertThat(counts.rehandshakes()).as("%s re-handshakes%n%s", family, summary).isZero();
        });
        report.perSubscriber().forEach((subscriber, counts) -> {
            if (atMostOnce.stream().anyMatch(report.families().get(subscriber)::startsWith)) {
                assertThat(counts.lost()).as("%s (at most once) lost, at most one reply's messages%n%s", subscriber,
                        summary).isLessThanOrEqualTo(NO_ACK_LOST_BOUND);
            }
        });
        assertThat(report.perSubscriber()).as("every subscriber handshook and received%n%s", summary)
                .allSatisfy((name, counts) -> {
                    assertThat(counts.handshakes()).isEqualTo(1);
                    assertThat(counts.delivered()).isPositive();
                });
        assertThat(complete).as("every end marker arrived%n%s", summary).isTrue();
    }

    /** @return how the run ended, after its lines and handshakes went to the checker */
    private String feedNodeSubscriber(String name, NodeScenario run) {
        Map<String, Object> result;
        String outcome;
        try {
            result = run.anyResult(Duration.ofSeconds(5));
            outcome = Boolean.TRUE.equals(result.get("ok")) && Boolean.TRUE.equals(result.get("complete"))
                    ? "complete" : "incomplete: " + result.get("error");
        } catch (AssertionError unfinished) {
            result = Map.of();
            outcome = "killed unfinished";
        }
        List<Map<String, Object>> transport = run.jsonLines("INTEROP-TRANSPORT ");
        if (!transport.isEmpty()) {
            outcome += ", transport " + transport.stream().map(event -> String.valueOf(event.get("state")))
                    .collect(Collectors.joining(","));
        }
        List<Map<String, Object>> lines = run.jsonLines(SEQ_LINE);
        for (Map<String, Object> line : lines) {
            Object seq = line.get("seq");
            checker.delivered(name, String.valueOf(line.get("channel")), String.valueOf(line.get("from")),
                    seq instanceof Number number ? number.longValue() : Long.MIN_VALUE);
        }
        if (result.get("clientIds") instanceof List<?> clientIds) {
            clientIds.forEach(clientId -> checker.handshake(name, String.valueOf(clientId)));
        } else {
            // No result: the handshakes as the message lines saw them.
            Map<Object, Object> seen = new LinkedHashMap<>();
            lines.forEach(line -> seen.putIfAbsent(line.get("handshakes"), line.get("clientId")));
            seen.values().forEach(clientId -> checker.handshake(name, String.valueOf(clientId)));
        }
        return name + " " + outcome;
    }

    private static boolean eventually(String what, Duration limit, Callable<Boolean> condition) {
        try {
            await(what).atMost(limit).pollInterval(Duration.ofMillis(100)).until(condition);
            return true;
        } catch (ConditionTimeoutException late) {
            return false;
        }
    }

    /**
     * A CometD Java client without {@code ack} that publishes {@code {from, seq}} to the channels in turn, one
     * publish in flight at a time (so that its order is the server's), at most one per period; every publish is
     * told to the checker before it leaves (not acknowledged) and again once its reply is successful.
     */
    private final class Publisher {
        final String name;
        final CometDJavaClient client;
        private final ScheduledExecutorService ticks;
        private final AtomicBoolean inFlight = new AtomicBoolean();
        private long next;

        Publisher(String name, CometDJavaClient client) {
            this.name = name;
            this.client = client;
            this.ticks = Executors.newSingleThreadScheduledExecutor(runnable -> {
                Thread thread = new Thread(runnable, name);
                thread.setDaemon(true);
                return thread;
            });
        }

        void start() {
            ticks.scheduleAtFixedRate(this::tick, 0, PUBLISH_PERIOD.toMillis(), TimeUnit.MILLISECONDS);
        }

        private void tick() {
            if (!inFlight.compareAndSet(false, true)) {
                return;
            }
            long seq = next++;
            String channel = CHANNELS.get((int) (seq % CHANNELS.size()));
            checker.published(name, channel, seq, false);
            try {
                client.bayeux.getChannel(channel).publish(Map.of("from", name, "seq", seq), reply -> {
                    if (reply.isSuccessful()) {
                        checker.published(name, channel, seq, true);
                        acknowledged.incrementAndGet();
                    } else {
                        unacknowledged.incrementAndGet();
                        notAcknowledged.add(String.format("%s#%d %s at %s: %s", name, seq, channel,
                                LocalTime.now(), reply.getOrDefault(Message.ERROR_FIELD,
                                        reply.get("failure"))));
                    }
                    inFlight.set(false);
                });
            } catch (RuntimeException refused) {
                unacknowledged.incrementAndGet();
                notAcknowledged.add(name + "#" + seq + " " + channel + ": " + refused);
                inFlight.set(false);
            }
        }

        /** Stops publishing; waits (bounded) for the reply to the publish in flight. */
        void stop() {
            ticks.shutdownNow();
            eventually(name + "'s last reply", WAIT, () -> !inFlight.get());
        }

        /** An end marker to every channel, after the last publish: a subscriber that has it has all it will get. */
        void publishEnds() {
            for (String channel : CHANNELS) {
                try {
                    client.publish(channel, Map.of("from", name, "end", true));
                } catch (AssertionError noReply) {
                    // Counted by its absence at the subscribers.
                }
            }
        }
    }
}
