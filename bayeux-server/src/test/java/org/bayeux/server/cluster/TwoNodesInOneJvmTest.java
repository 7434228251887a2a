package org.bayeux.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.Message;
import org.bayeux.api.server.LocalSession;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.server.BayeuxEngine;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Two engines joined by nothing but the cluster SPI. */
class TwoNodesInOneJvmTest {
    private final List<BayeuxEngine> engines = new ArrayList<>();

    @AfterEach
    void stopAll() {
        engines.forEach(BayeuxEngine::stop);
    }

    private BayeuxEngine node(Cluster cluster) {
        BayeuxEngine engine = BayeuxEngine.create();
        engine.setCluster(cluster);
        engine.start();
        engines.add(engine);
        return engine;
    }

    private static LocalSession connected(BayeuxEngine engine, String name) throws Exception {
        LocalSession session = engine.newLocalSession(name);
        CompletableFuture<Message> reply = new CompletableFuture<>();
        session.handshake(null, (channel, message) -> reply.complete(message));
        assertThat(reply.get(5, TimeUnit.SECONDS).isSuccessful()).isTrue();
        return session;
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
        return reply.get(5, TimeUnit.SECONDS);
    }

    @Test
    void aMeshDeliversAPublishOnAToSubscribersOfBOnceAndNeverBackToA() throws Exception {
        List<LoopbackCluster> network = new CopyOnWriteArrayList<>();
        LoopbackCluster clusterA = new LoopbackCluster(network, false);
        LoopbackCluster clusterB = new LoopbackCluster(network, false);
        BayeuxEngine a = node(clusterA);
        BayeuxEngine b = node(clusterB);
        List<Object> onA = subscribe(connected(a, "listenerA"), "/chat/*");
        List<Object> onB = subscribe(connected(b, "listenerB"), "/chat/**");

        assertThat(publish(connected(a, "speaker"), "/chat/room", Map.of("text", "hello")).isSuccessful()).isTrue();

        assertThat(onB).containsExactly(Map.of("text", "hello"));
        assertThat(onA).as("delivered at once on the publishing node, and not again").containsExactly(
                Map.of("text", "hello"));
        assertThat(clusterA.published()).hasSize(1);
        assertThat(clusterB.published()).as("a message that came in never goes out again").isEmpty();
        ClusterMessage left = clusterA.published().get(0);
        assertThat(left.channel()).isEqualTo("/chat/room");
        assertThat(left.message().isFrozen()).isTrue();
        assertThat(new String(left.json(), StandardCharsets.UTF_8)).contains("\"hello\"")
                .doesNotContain(Message.CLIENT_ID_FIELD);
    }

    @Test
    void aBackplaneDeliversThroughTheClusterOnEveryNodeIncludingThePublishers() throws Exception {
        List<LoopbackCluster> network = new CopyOnWriteArrayList<>();
        LoopbackCluster clusterA = new LoopbackCluster(network, true);
        LoopbackCluster clusterB = new LoopbackCluster(network, true);
        BayeuxEngine a = node(clusterA);
        BayeuxEngine b = node(clusterB);
        List<Object> onA = subscribe(connected(a, "listenerA"), "/feed");
        List<Object> onB = subscribe(connected(b, "listenerB"), "/feed");

        assertThat(publish(connected(a, "speaker"), "/feed", 1).isSuccessful()).isTrue();
        assertThat(publish(connected(b, "speaker"), "/feed", 2).isSuccessful()).isTrue();

        assertThat(onA).as("parsed from the bytes on every node").containsExactly(1L, 2L);
        assertThat(onB).containsExactly(1L, 2L);
        assertThat(clusterA.published()).hasSize(1);
        assertThat(clusterB.published()).hasSize(1);
    }

    @Test
    void servicePublishesStayOnTheirNode() throws Exception {
        List<LoopbackCluster> network = new CopyOnWriteArrayList<>();
        LoopbackCluster clusterA = new LoopbackCluster(network, false);
        BayeuxEngine a = node(clusterA);
        node(new LoopbackCluster(network, false));
        publish(connected(a, "caller"), "/service/echo", "x");
        assertThat(clusterA.published()).isEmpty();
    }

    @Test
    void aClusterThatCannotTakeAMessageFailsThePublishAndTheNodeKeepsWorking() throws Exception {
        List<LoopbackCluster> network = new CopyOnWriteArrayList<>();
        LoopbackCluster clusterA = new LoopbackCluster(network, false);
        BayeuxEngine a = node(clusterA);
        LocalSession speaker = connected(a, "speaker");
        clusterA.failWith(new IllegalStateException("link down"));
        assertThat(publish(speaker, "/x", 1).isSuccessful()).isFalse();
        clusterA.failWith(null);
        assertThat(publish(speaker, "/x", 2).isSuccessful()).isTrue();
    }

    @Test
    void aClusterOutOfReachFailsThePublishWith503AndItsReason() throws Exception {
        List<LoopbackCluster> network = new CopyOnWriteArrayList<>();
        LoopbackCluster clusterA = new LoopbackCluster(network, true);
        BayeuxEngine a = node(clusterA);
        LocalSession speaker = connected(a, "speaker");
        clusterA.failWith(new ClusterUnavailableException("backplane_unavailable", "Redis is away", null));
        Message refused = publish(speaker, "/x", 1);
        assertThat(refused.isSuccessful()).isFalse();
        assertThat(refused.get(Message.ERROR_FIELD)).isEqualTo("503::backplane_unavailable");
        clusterA.failWith(null);
        assertThat(publish(speaker, "/x", 2).isSuccessful()).isTrue();
        assertThatThrownBy(() -> new ClusterUnavailableException("Not a word", "x", null))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theWayInRefusesWhatNoClientCouldPublish() {
        List<LoopbackCluster> network = new CopyOnWriteArrayList<>();
        LoopbackCluster cluster = new LoopbackCluster(network, false);
        node(cluster);
        ClusterNode node = cluster.node();
        for (String bad : List.of("{\"channel\":\"/meta/connect\"}", "{\"channel\":\"/a/*\"}",
                "{\"channel\":\"/service/x\"}", "{\"data\":1}", "not json", "[{\"channel\":\"/a\"}]")) {
            assertThatThrownBy(() -> node.deliver(bad.getBytes(StandardCharsets.UTF_8))).as(bad)
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void aParsedMessageIsQueuedForOneSessionAtATimeAndSharedByThem() throws Exception {
        List<LoopbackCluster> network = new CopyOnWriteArrayList<>();
        LoopbackCluster cluster = new LoopbackCluster(network, false);
        BayeuxEngine engine = node(cluster);
        BayeuxEngine other = node(new LoopbackCluster(network, false));
        LocalSession first = connected(engine, "first");
        LocalSession second = connected(engine, "second");
        LocalSession third = connected(engine, "third");
        List<Object> toFirst = subscribe(first, "/feed");
        List<Object> toSecond = subscribe(second, "/feed");
        List<Object> toThird = subscribe(third, "/feed");
        List<ServerMessage> seen = new CopyOnWriteArrayList<>();
        for (LocalSession session : List.of(first, second)) {
            session.getServerSession().addMessageListener((to, from, message) -> {
                seen.add(message);
                return true;
            });
        }
        ClusterNode node = cluster.node();

        ServerMessage parsed = node.parse("{\"channel\":\"/feed\",\"data\":7}".getBytes(StandardCharsets.UTF_8));
        assertThat(node.deliverTo(first.getServerSession(), parsed)).isTrue();
        assertThat(node.deliverTo(second.getServerSession(), parsed)).isTrue();

        assertThat(toFirst).containsExactly(7L);
        assertThat(toSecond).containsExactly(7L);
        assertThat(toThird).as("only the sessions it was queued for").isEmpty();
        assertThat(seen).hasSize(2);
        assertThat(seen.get(0)).as("one message, encoded once, for both").isSameAs(seen.get(1));
        ServerSession stranger = connected(other, "stranger").getServerSession();
        assertThatThrownBy(() -> node.deliverTo(stranger, parsed)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> node.parse("{\"channel\":\"/meta/x\"}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void membershipIsToldOncePerMemberWhateverTheClusterReports() {
        List<LoopbackCluster> network = new CopyOnWriteArrayList<>();
        LoopbackCluster cluster = new LoopbackCluster(network, false);
        BayeuxEngine engine = node(cluster);
        List<String> events = new CopyOnWriteArrayList<>();
        engine.addClusterListener(new ClusterListener() {
            @Override
            public void joined(ClusterMember member) {
                events.add("joined " + member.id());
            }

            @Override
            public void left(ClusterMember member) {
                events.add("left " + member.id());
            }
        });
        ClusterNode node = cluster.node();
        ClusterMember first = new ClusterMember("n2-1", "ws://127.0.0.1:1/bayeux");
        ClusterMember restarted = new ClusterMember("n2-2", "ws://127.0.0.1:1/bayeux");
        node.left(first);
        node.joined(first);
        node.joined(first);
        node.left(first);
        node.left(first);
        node.joined(first);
        node.joined(restarted);
        assertThat(events).containsExactly("joined n2-1", "left n2-1", "joined n2-2");
    }

    @Test
    void theSessionStoreSeesSessionsCreatedChangedAndRemoved() throws Exception {
        List<String> events = new CopyOnWriteArrayList<>();
        BayeuxEngine engine = BayeuxEngine.create();
        engines.add(engine);
        SessionStore[] inner = new SessionStore[1];
        inner[0] = new InMemorySessionStore(id -> (SessionState) engine.getSession(id));
        engine.setSessionStore(new SessionStore() {
            @Override
            public void created(SessionState session) {
                events.add("created " + session.sessionId());
            }

            @Override
            public void changed(SessionState session) {
                events.add("changed " + session.subscriptions());
            }

            @Override
            public SessionState find(String sessionId) {
                return inner[0].find(sessionId);
            }

            @Override
            public void removed(String sessionId) {
                events.add("removed " + sessionId);
            }
        });
        engine.start();
        LocalSession session = connected(engine, "stored");
        subscribe(session, "/a");
        SessionState state = engine.getSessionStore().find(session.getId());
        assertThat(state.sessionId()).isEqualTo(session.getId());
        assertThat(state.subscriptions()).containsExactly("/a");
        assertThat(state.ackBatch()).isEqualTo(-1);
        CompletableFuture<Message> gone = new CompletableFuture<>();
        session.disconnect((c, m) -> gone.complete(m));
        gone.get(5, TimeUnit.SECONDS);
        assertThat(events).containsExactly("created " + session.getId(), "changed [/a]", "changed []",
                "removed " + session.getId());
        assertThat(engine.getSessionStore().find(session.getId())).isNull();
    }

    @Test
    void theClusterAndStoreAreSetBeforeTheEngineStarts() {
        BayeuxEngine engine = node(null);
        assertThatThrownBy(() -> engine.setCluster(new LoopbackCluster(new ArrayList<>(), false)))
                .isInstanceOf(IllegalStateException.class);
    }
}
