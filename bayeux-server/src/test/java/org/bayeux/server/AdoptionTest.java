package org.bayeux.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import org.bayeux.api.Message;
import org.bayeux.api.Promise;
import org.bayeux.api.server.BayeuxServer;
import org.bayeux.api.server.SecurityPolicy;
import org.bayeux.api.server.ServerChannel;
import org.bayeux.api.server.ServerExtension;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.api.server.SessionListener;
import org.bayeux.server.cluster.ChannelPosition;
import org.bayeux.server.cluster.ResumeFrom;
import org.bayeux.server.cluster.SessionState;
import org.bayeux.server.config.BayeuxServerConfig;
import org.bayeux.server.test.EngineHarness;
import org.bayeux.server.test.TestClient;
import org.bayeux.server.test.TestResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Adoption (issue 33, points 1, 2 and 7): two engines share a store that adopts; a session created on A is adopted by
 * B when its client's next message reaches B, with the same clientId and subscriptions, or refused with
 * {@code 402::session_unknown}, counted, when it cannot continue exactly.
 */
class AdoptionTest {
    private final SharedSessionStore shared = new SharedSessionStore();
    private final SharedSessionStore.Node storeA = shared.node("A");
    private final SharedSessionStore.Node storeB = shared.node("B");
    private final List<EngineHarness> engines = new ArrayList<>();
    private final Recovery recoveryB = new Recovery();

    @AfterEach
    void stop() {
        engines.forEach(EngineHarness::close);
    }

    private EngineHarness node(SharedSessionStore.Node store, Consumer<BayeuxServerConfig.Builder> config,
            Consumer<BayeuxServerImpl> setUp) {
        EngineHarness engine = EngineHarness.start(config, server -> {
            server.setSessionStore(store);
            setUp.accept(server);
        });
        engines.add(engine);
        return engine;
    }

    private EngineHarness nodeA() {
        return node(storeA, config -> { }, server -> { });
    }

    private EngineHarness nodeB(Consumer<BayeuxServerImpl> setUp) {
        return node(storeB, config -> { }, server -> {
            server.addExtension(recoveryB);
            setUp.accept(server);
        });
    }

    /** Stands for the cluster's recovery: answers each resuming subscribe recovered, and remembers where from. */
    static final class Recovery implements ServerExtension {
        final Map<String, ChannelPosition> resumedFrom = new ConcurrentHashMap<>();
        volatile boolean recovers = true;

        @Override
        public boolean rcvMeta(ServerSession session, ServerMessage.Mutable message) {
            if (Message.META_SUBSCRIBE.equals(message.getChannel()) && message.getExt() != null
                    && message.getExt().get("recovery") instanceof ResumeFrom resume) {
                String channel = (String) message.get(Message.SUBSCRIPTION_FIELD);
                resumedFrom.put(channel, resume.position());
                // What the cluster's recovery replays: queued before the session serves anything.
                session.deliver(null, channel, "replayed after " + resume.position(), Promise.noop());
            }
            return true;
        }

        @Override
        public boolean sendMeta(ServerSession receiver, ServerMessage.Mutable reply) {
            ServerMessage request = reply.getAssociated();
            if (recovers && Message.META_SUBSCRIBE.equals(reply.getChannel()) && reply.isSuccessful()
                    && request != null && request.getExt() != null
                    && request.getExt().get("recovery") instanceof ResumeFrom) {
                reply.getExt(true).put("recovery", Map.of("recovered", Boolean.TRUE));
            }
            return true;
        }
    }

    private static TestClient onNode(EngineHarness engine, String clientId) {
        TestClient client = engine.newClient();
        client.clientId(clientId);
        return client;
    }

    private static Map<String, Object> connectNow(TestClient client) {
        return client.call("[" + client.connectMessage(",\"advice\":{\"timeout\":0}") + "]").single("/meta/connect");
    }

    private static void assertUnknown(Map<String, Object> reply) {
        assertThat(reply).containsEntry("successful", false).containsEntry("error", "402::session_unknown");
        assertThat(reply.get("advice")).isEqualTo(Map.of("reconnect", "handshake", "interval", 0L));
    }

    private String handshakenOnA(EngineHarness a, String... channels) {
        TestClient client = a.newClient();
        client.handshake();
        client.firstConnect();
        for (String channel : channels) {
            assertThat(client.subscribe(channel)).containsEntry("successful", true);
        }
        return client.clientId();
    }

    @Test
    void anUnknownClientIdFoundInTheStoreIsAdoptedWithItsSubscriptions() throws Exception {
        EngineHarness a = nodeA();
        List<String> told = new CopyOnWriteArrayList<>();
        EngineHarness b = nodeB(server -> server.addSessionListener(new SessionListener() {
            @Override
            public void sessionAdded(ServerSession session, ServerMessage handshake) {
                told.add("added");
            }

            @Override
            public void sessionAdopted(ServerSession session) {
                told.add("adopted " + session.getId());
            }
        }));
        String id = handshakenOnA(a, "/chat/a", "/chat/b");
        ChannelPosition subscribedAt = shared.stored(id).state().subscribedAt().get("/chat/a");
        ChannelPosition subscribedAtB = shared.stored(id).state().subscribedAt().get("/chat/b");
        shared.kill("A");

        TestClient client = onNode(b, id);
        // CometD's retry connect: answered at once, with what the recovery replayed.
        TestResponse first = client.call("[" + client.connectMessage(",\"advice\":{\"timeout\":0}") + "]");
        assertThat(first.single("/meta/connect")).containsEntry("successful", true);
        assertThat(first.deliveries()).extracting(message -> message.get("data")).containsExactlyInAnyOrder(
                "replayed after " + subscribedAt, "replayed after " + subscribedAtB);

        ServerSession adopted = b.server().getSession(id);
        assertThat(adopted).isNotNull();
        assertThat(adopted.getSubscriptions()).extracting(ServerChannel::getId)
                .containsExactlyInAnyOrder("/chat/a", "/chat/b");
        assertThat(recoveryB.resumedFrom).containsEntry("/chat/a", subscribedAt).containsEntry("/chat/b", subscribedAtB);
        assertThat(told).containsExactly("adopted " + id);
        assertThat(b.server().statistics().adoptions()).isEqualTo(1);
        assertThat(shared.stored(id).owner()).isEqualTo("B");
        assertThat(((ServerSessionImpl) adopted).generation()).isEqualTo(2);
        assertThat(b.server().dump()).contains("+- adoptions: looked up 1, adopted 1");

        // It lives here now: a message published on B reaches it.
        CompletableFuture<TestResponse> held = client.connect();
        TestClient publisher = b.newClient();
        publisher.handshake();
        publisher.publish("/chat/a", "\"hello\"");
        assertThat(held.get(10, TimeUnit.SECONDS).deliveries()).extracting(message -> message.get("data"))
                .containsExactly("hello");
    }

    @Test
    void aMadeUpClientIdCostsOneLookUpAndGets402() {
        EngineHarness b = nodeB(server -> { });
        Map<String, Object> reply = connectNow(onNode(b, "nosuchsession0000000000000"));
        assertUnknown(reply);
        assertThat(shared.finds).hasValue(1);
        assertThat(shared.adopts).hasValue(0);
        assertThat(b.server().statistics().adoptionsRefused()).isEqualTo(1);
        // Not even a look-up for what cannot be an id.
        assertUnknown(connectNow(onNode(b, "not/an-id")));
        assertThat(shared.finds).hasValue(1);
    }

    @Test
    void anAuthorizerThatRefusesASubscriptionAgainRefusesTheAdoption() {
        EngineHarness a = nodeA();
        EngineHarness b = nodeB(server -> server.setSecurityPolicy(new SecurityPolicy() {
            @Override
            public boolean canSubscribe(BayeuxServer server, ServerSession session, ServerChannel channel,
                    ServerMessage message) {
                return !channel.getId().equals("/secret");
            }
        }));
        String id = handshakenOnA(a, "/chat/a", "/secret");
        shared.kill("A");

        assertUnknown(connectNow(onNode(b, id)));
        assertThat(b.server().getSession(id)).isNull();
        assertThat(b.server().getChannel("/chat/a") == null
                || b.server().getChannel("/chat/a").getSubscribers().isEmpty()).isTrue();
        assertThat(b.server().statistics().adoptionsRefused()).isEqualTo(1);
        assertThat(b.server().statistics().adoptions()).isZero();
    }

    @Test
    void aSubscriptionNotResumedExactlyRefusesTheAdoption() {
        EngineHarness a = nodeA();
        EngineHarness b = nodeB(server -> { });
        recoveryB.recovers = false;
        String id = handshakenOnA(a, "/chat/a");
        shared.kill("A");
        assertUnknown(connectNow(onNode(b, id)));
        assertThat(b.server().getSession(id)).isNull();
    }

    @Test
    void aWildcardSubscriptionCannotBeResumed() {
        EngineHarness a = nodeA();
        EngineHarness b = nodeB(server -> { });
        String id = handshakenOnA(a, "/chat/*");
        shared.kill("A");
        assertUnknown(connectNow(onNode(b, id)));
        assertThat(b.server().getSession(id)).isNull();
        assertThat(b.server().statistics().adoptionsRefused()).isEqualTo(1);
        assertThat(shared.adopts).as("refused before the take-over").hasValue(0);
    }

    @Test
    void anAdoptionListenerMayRefuseAndOneThatThrowsRefuses() {
        EngineHarness a = nodeA();
        AtomicInteger asked = new AtomicInteger();
        EngineHarness b = nodeB(server -> server.addSessionAdoptionListener((session, portable) -> {
            if (asked.incrementAndGet() == 1) {
                return false;
            }
            throw new IllegalStateException("expected by the test");
        }));
        String first = handshakenOnA(a, "/chat/a");
        String second = handshakenOnA(a, "/chat/a");
        shared.kill("A");
        assertUnknown(connectNow(onNode(b, first)));
        assertUnknown(connectNow(onNode(b, second)));
        assertThat(asked).hasValue(2);
        assertThat(b.server().getSessions()).isEmpty();
        assertThat(b.server().getChannel("/chat/a") == null
                || b.server().getChannel("/chat/a").getSubscribers().isEmpty()).isTrue();
        assertThat(b.server().statistics().adoptionsRefused()).isEqualTo(2);
    }

    @Test
    void portableAttributesAreStoredAndSetAgainOnTheAdoptedSession() {
        EngineHarness a = node(storeA, config -> { }, server -> {
            server.addPortableAttribute("user");
            server.addPortableAttribute("roles");
            server.setSecurityPolicy(new SecurityPolicy() {
                @Override
                public boolean canHandshake(BayeuxServer server, ServerSession session, ServerMessage message) {
                    session.setAttribute("user", "alice");
                    session.setAttribute("roles", List.of("admin"));
                    session.setAttribute("private", "not portable");
                    return true;
                }
            });
        });
        List<Map<String, String>> seen = new CopyOnWriteArrayList<>();
        EngineHarness b = nodeB(server -> server.addSessionAdoptionListener((session, portable) -> {
            seen.add(portable);
            return "alice".equals(session.getAttribute("user"));
        }));
        String id = handshakenOnA(a, "/chat/a");
        shared.kill("A");
        assertThat(connectNow(onNode(b, id))).containsEntry("successful", true);
        assertThat(seen).containsExactly(Map.of("user", "alice"));
        ServerSession adopted = b.server().getSession(id);
        assertThat(adopted.getAttribute("user")).isEqualTo("alice");
        assertThat(adopted.getAttribute("roles")).isNull();
        assertThat(adopted.getAttribute("private")).isNull();
    }

    @Test
    void concurrentMessagesNamingOneClientIdShareOneLookUp() throws Exception {
        EngineHarness a = nodeA();
        EngineHarness b = nodeB(server -> { });
        String id = handshakenOnA(a, "/chat/a");
        shared.kill("A");
        shared.holdLookUps();
        List<CompletableFuture<TestResponse>> replies = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            TestClient client = onNode(b, id);
            replies.add(client.send("[{\"channel\":\"/chat/other\",\"data\":" + i + ",\"clientId\":\"" + id + "\"}]"));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> shared.heldLookUps.size() == 1);
        shared.releaseLookUps();
        for (CompletableFuture<TestResponse> reply : replies) {
            assertThat(reply.get(10, TimeUnit.SECONDS).single("/chat/other")).containsEntry("successful", true);
        }
        assertThat(shared.finds).hasValue(1);
        assertThat(shared.adopts).hasValue(1);
        assertThat(b.server().statistics().adoptions()).isEqualTo(1);
    }

    @Test
    void aFloodOfMadeUpClientIdsIsBoundedInFlightAndQueued() throws Exception {
        int inFlight = 4;
        int queued = 8;
        int flood = 100;
        EngineHarness b = node(storeB, config -> config.maxAdoptionsInFlight(inFlight).maxAdoptionsQueued(queued),
                server -> { });
        shared.holdLookUps();
        List<CompletableFuture<TestResponse>> replies = new ArrayList<>();
        for (int i = 0; i < flood; i++) {
            String madeUp = UUID.randomUUID().toString().replace("-", "");
            replies.add(onNode(b, madeUp).send("[{\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\","
                    + "\"clientId\":\"" + madeUp + "\"}]"));
        }
        // Beyond the places in flight and in the queue: answered at once, without a look-up.
        await().atMost(Duration.ofSeconds(10)).until(() -> replies.stream().filter(CompletableFuture::isDone).count()
                == flood - inFlight - queued);
        assertThat(shared.heldLookUps).hasSize(inFlight);
        assertThat(b.server().statistics().adoptionsShed()).isEqualTo(flood - inFlight - queued);
        assertThat(b.server().dump()).contains("in flight " + inFlight + ", queued " + queued);

        // Each held look-up that ends lets a queued one in; release until every reply came.
        for (int round = 0; round < 10 && replies.stream().anyMatch(reply -> !reply.isDone()); round++) {
            shared.releaseLookUps();
            shared.holdLookUps();
            await().atMost(Duration.ofSeconds(10)).until(() -> replies.stream().allMatch(CompletableFuture::isDone)
                    || shared.heldLookUps.stream().anyMatch(held -> !held.isDone()));
        }
        shared.releaseLookUps();
        for (CompletableFuture<TestResponse> reply : replies) {
            assertUnknown(reply.get(10, TimeUnit.SECONDS).single("/meta/connect"));
        }
        assertThat(shared.finds).hasValue(inFlight + queued);
        assertThat(b.server().statistics().adoptionLookups()).isEqualTo(inFlight + queued);
        assertThat(b.server().dump()).contains("in flight 0, queued 0");
    }

    @Test
    void aSessionThatMovedIsDroppedTellingNeitherItsClientNorTheStore() throws Exception {
        EngineHarness a = nodeA();
        List<String> removed = new CopyOnWriteArrayList<>();
        a.server().addSessionListener(new SessionListener() {
            @Override
            public void sessionRemoved(ServerSession session, ServerMessage message, boolean expired) {
                removed.add(session.getState() + " " + expired + " " + message);
            }
        });
        TestClient socket = a.newSocketClient();
        socket.handshake();
        socket.firstConnect();
        socket.subscribe("/chat/a");
        String id = socket.clientId();
        ServerSession session = a.server().getSession(id);
        storeA.fence(id);

        assertThat(a.server().getSession(id)).isNull();
        assertThat(session.getState()).isEqualTo(ServerSession.State.MOVED);
        assertThat(removed).containsExactly("MOVED false null");
        assertThat(shared.removals).hasValue(0);
        assertThat(shared.stored(id)).isNotNull();
        assertThat(socket.frames()).isEmpty();
        assertThat(a.server().getChannel("/chat/a").getSubscribers()).isEmpty();
        assertThat(a.server().statistics().sessionsMoved()).isEqualTo(1);
    }

    @Test
    void aHeldConnectOfASessionThatMovedIsAnsweredWithNothing() throws Exception {
        EngineHarness a = nodeA();
        TestClient client = a.newClient();
        client.handshake();
        client.firstConnect();
        CompletableFuture<TestResponse> held = client.connect();
        await().atMost(Duration.ofSeconds(10)).until(() -> a.server().isConnectHeld(
                a.server().getSession(client.clientId())));
        storeA.fence(client.clientId());
        TestResponse response = held.get(10, TimeUnit.SECONDS);
        assertThat(response.status()).as("closed as superseded: no reply, no batch number the new owner never issued")
                .isEqualTo(TestResponse.SUPERSEDED);
        assertThat(response.messages()).isEmpty();
    }

    @Test
    void resumePositionsFollowTheAckJournalOrTheChosenDelivery() {
        ChannelPosition subscribed = new ChannelPosition("e", 3);
        ChannelPosition acked = new ChannelPosition("e", 5);
        ChannelPosition batch6 = new ChannelPosition("e", 8);
        ChannelPosition batch7 = new ChannelPosition("e", 9);
        java.util.TreeMap<Long, Map<String, ChannelPosition>> journal = new java.util.TreeMap<>(Map.of(
                6L, Map.of("/a", batch6), 7L, Map.of("/a", batch7)));
        SharedSessionStore.Snapshot ack = new SharedSessionStore.Snapshot("s", Set.of("/a", "/b"), 0, 5,
                Map.of("/a", acked), null, 1, null, false, false, Map.of("/a", subscribed, "/b", subscribed), true, 7,
                journal, Map.of());
        SessionAdoptions atMostOnce = adoptionsOf(BayeuxServerConfig.FailoverDelivery.AT_MOST_ONCE);
        // The client says it has what the store says it acknowledged: the stored positions, else the seam.
        assertThat(atMostOnce.resumePositions(ack, 5)).isEqualTo(Map.of("/a", acked, "/b", subscribed));
        // It acknowledged a later batch, journaled: the journal's positions.
        assertThat(atMostOnce.resumePositions(ack, 6)).isEqualTo(Map.of("/a", batch6, "/b", subscribed));
        // A batch the journal does not hold cannot be resumed exactly.
        assertThat(atMostOnce.resumePositions(ack, 9)).isNull();

        SharedSessionStore.Snapshot plain = new SharedSessionStore.Snapshot("s", Set.of("/a"), 0, -1,
                Map.of("/a", acked), null, 1, null, false, false, Map.of("/a", subscribed), false, 7, journal,
                Map.of());
        assertThat(atMostOnce.resumePositions(plain, -1)).isEqualTo(Map.of("/a", batch7));
        assertThat(adoptionsOf(BayeuxServerConfig.FailoverDelivery.AT_LEAST_ONCE).resumePositions(plain, -1))
                .isEqualTo(Map.of("/a", batch6));
        assertThat(atMostOnce.resumePositions(plain.withSubscriptions(Set.of("/a", "/a/*")), -1)).isNull();
    }

    @Test
    void theAcknowledgedBatchsJournalEntryWinsOverLazilyWrittenPositions() {
        ChannelPosition subscribed = new ChannelPosition("e", 3);
        ChannelPosition lagging = new ChannelPosition("e", 4);
        ChannelPosition batch5 = new ChannelPosition("e", 6);
        SharedSessionStore.Snapshot ack = new SharedSessionStore.Snapshot("s", Set.of("/a"), 0, 5,
                Map.of("/a", lagging), null, 1, null, false, false, Map.of("/a", subscribed), true, 6,
                new java.util.TreeMap<>(Map.of(5L, Map.of("/a", batch5))), Map.of());
        SessionAdoptions adoptions = adoptionsOf(BayeuxServerConfig.FailoverDelivery.AT_MOST_ONCE);
        assertThat(adoptions.resumePositions(ack, 5)).as("the stored positions may lag the stored batch")
                .isEqualTo(Map.of("/a", batch5));
        assertThat(adoptions.resumePositions(ack, 0)).as("nothing received yet: the seams")
                .isEqualTo(Map.of("/a", subscribed));
    }

    @Test
    void aConnectSentAgainWithTheLastRepliesIdResumesBeforeThatReply() {
        ChannelPosition batch6 = new ChannelPosition("e", 8);
        ChannelPosition batch7 = new ChannelPosition("e", 9);
        SharedSessionStore.Snapshot plain = new SharedSessionStore.Snapshot("s", Set.of("/a"), 0, -1, Map.of(),
                null, 1, null, false, false, Map.of("/a", new ChannelPosition("e", 3)), false, 7,
                new java.util.TreeMap<>(Map.of(6L, Map.of("/a", batch6), 7L, Map.of("/a", batch7))), Map.of());
        SessionState withIds = new WithJournalRequests(plain, Map.of(6L, "41", 7L, "42"));
        SessionAdoptions atMostOnce = adoptionsOf(BayeuxServerConfig.FailoverDelivery.AT_MOST_ONCE);
        assertThat(atMostOnce.resumePositions(withIds, -1, "42")).as("Faye resent the connect reply 7 answered: "
                + "reply 7 never arrived").isEqualTo(Map.of("/a", batch6));
        assertThat(atMostOnce.resumePositions(withIds, -1, "43")).as("a new connect: reply 7 arrived")
                .isEqualTo(Map.of("/a", batch7));
        assertThat(atMostOnce.resumePositions(withIds, -1, null)).isEqualTo(Map.of("/a", batch7));
    }

    /** A stored session whose journal keeps the ids of the connects its replies answered. */
    private record WithJournalRequests(SharedSessionStore.Snapshot base, Map<Long, String> journalRequests)
            implements SessionState {
        @Override
        public String sessionId() {
            return base.sessionId();
        }

        @Override
        public Set<String> subscriptions() {
            return base.subscriptions();
        }

        @Override
        public long deliveryPosition() {
            return base.deliveryPosition();
        }

        @Override
        public long ackBatch() {
            return base.ackBatch();
        }

        @Override
        public Map<String, ChannelPosition> positions() {
            return base.positions();
        }

        @Override
        public Map<String, ChannelPosition> subscribedAt() {
            return base.subscribedAt();
        }

        @Override
        public boolean acknowledges() {
            return base.acknowledges();
        }

        @Override
        public long lastBatch() {
            return base.lastBatch();
        }

        @Override
        public java.util.NavigableMap<Long, Map<String, ChannelPosition>> journal() {
            return base.journal();
        }
    }

    private SessionAdoptions adoptionsOf(BayeuxServerConfig.FailoverDelivery delivery) {
        EngineHarness engine = node(shared.node("C"), config -> config.failoverDelivery(delivery), server -> { });
        return new SessionAdoptions(engine.server().getConfig(), null, null, engine.server()::getSessionStore,
                new EngineEvents(), new ExtensionChain(), engine.server().statistics(), (session, subscribe) -> null);
    }

    /** A stand-in for the ack extension's state: records how the engine continues its numbering. */
    static final class Numbering implements org.bayeux.api.server.SessionExtension,
            org.bayeux.server.cluster.AcknowledgedBatch {
        final long acknowledged;
        final long last;
        final List<String> continued = new CopyOnWriteArrayList<>();

        Numbering(long acknowledged, long last) {
            this.acknowledged = acknowledged;
            this.last = last;
        }

        @Override
        public long acknowledgedBatch() {
            return acknowledged;
        }

        @Override
        public long lastBatch() {
            return last;
        }

        @Override
        public void continueFrom(long lastBatch, long acknowledged, Map<String, ChannelPosition> positions) {
            continued.add(lastBatch + " " + acknowledged + " " + positions);
        }
    }

    /** A stand-in for the ack extension: gives adopted sessions a {@link Numbering}. */
    static final class Acknowledgements implements ServerExtension,
            org.bayeux.server.cluster.AdoptedAcknowledgements {
        final List<Numbering> installed = new CopyOnWriteArrayList<>();

        @Override
        public org.bayeux.server.cluster.AcknowledgedBatch resumeOn(ServerSession adopted) {
            Numbering numbering = new Numbering(0, 0);
            adopted.addExtension(numbering);
            installed.add(numbering);
            return numbering;
        }
    }

    @Test
    void anAcknowledgingSessionContinuesItsNumberingFromWhatItsClientAcknowledged() {
        EngineHarness a = nodeA();
        Acknowledgements acknowledgements = new Acknowledgements();
        EngineHarness b = nodeB(server -> server.addExtension(acknowledgements));
        String id = handshakenOnA(a, "/chat/a");
        a.server().getSession(id).addExtension(new Numbering(4, 6));
        a.server().getSession(id).setMaxInterval(Duration.ofSeconds(42));
        ChannelPosition subscribedAt = shared.stored(id).state().subscribedAt().get("/chat/a");
        // A change the store writes: the ack state is part of it now.
        a.newClient().handshake();
        TestClient onA = onNode(a, id);
        onA.subscribe("/chat/b");
        onA.unsubscribe("/chat/b");
        assertThat(shared.stored(id).state().acknowledges()).isTrue();
        assertThat(shared.stored(id).state().ackBatch()).isEqualTo(4);
        shared.kill("A");

        TestClient client = onNode(b, id);
        assertThat(client.call("[" + client.connectMessage(",\"ext\":{\"ack\":4},\"advice\":{\"timeout\":0}")
                + "]").single("/meta/connect")).containsEntry("successful", true);
        assertThat(acknowledgements.installed).hasSize(1);
        assertThat(acknowledgements.installed.get(0).continued)
                .containsExactly("6 4 " + Map.of("/chat/a", subscribedAt));
        assertThat(b.server().getSession(id).getMaxInterval()).isEqualTo(Duration.ofSeconds(42));
    }

    @Test
    void anAcknowledgingSessionIsNotAdoptedByANodeWithoutTheAckExtension() {
        EngineHarness a = nodeA();
        EngineHarness b = nodeB(server -> { });
        String id = handshakenOnA(a, "/chat/a");
        a.server().getSession(id).addExtension(new Numbering(0, 0));
        onNode(a, id).subscribe("/chat/b");
        shared.kill("A");
        assertUnknown(connectNow(onNode(b, id)));
        assertThat(b.server().getSession(id)).isNull();
    }

    @Test
    void aConnectAcknowledgingABatchNeverIssuedHereDropsTheSessionAsMovedAndAdoptsItAgain() {
        Acknowledgements acknowledgements = new Acknowledgements();
        Recovery recovery = new Recovery();
        EngineHarness a = node(storeA, config -> { }, server -> {
            server.addExtension(acknowledgements);
            server.addExtension(recovery);
        });
        String id = handshakenOnA(a, "/chat/a");
        ServerSession before = a.server().getSession(id);
        before.addExtension(new Numbering(3, 3));
        // Another node served it since and wrote so: its client acknowledged batch 5.
        onNode(a, id).subscribe("/chat/b");
        onNode(a, id).unsubscribe("/chat/b");
        shared.rewrite(id, state -> new SharedSessionStore.Snapshot(state.sessionId(), state.subscriptions(), 0, 5,
                state.positions(), state.maxInterval(), state.generation() + 1, null, false, false,
                state.subscribedAt(), true, 5, state.journal(), Map.of()));

        TestClient client = onNode(a, id);
        assertThat(client.call("[" + client.connectMessage(",\"ext\":{\"ack\":5},\"advice\":{\"timeout\":0}")
                + "]").single("/meta/connect")).containsEntry("successful", true);
        assertThat(before.getState()).isEqualTo(ServerSession.State.MOVED);
        ServerSession after = a.server().getSession(id);
        assertThat(after).isNotNull().isNotSameAs(before);
        assertThat(a.server().statistics().sessionsMoved()).isEqualTo(1);
        assertThat(a.server().statistics().adoptions()).isEqualTo(1);
        assertThat(acknowledgements.installed.get(0).continued).hasSize(1);
        assertThat(acknowledgements.installed.get(0).continued.get(0)).startsWith("5 5 ");
        assertThat(shared.removals).hasValue(0);
    }

    @Test
    void theAckExtensionGivesAnAdoptedSessionItsStateOnce() {
        EngineHarness b = nodeB(server -> server.addExtension(
                new org.bayeux.server.ext.AcknowledgedMessagesExtension()));
        TestClient client = b.newClient();
        client.handshake();
        ServerSession session = b.server().getSession(client.clientId());
        org.bayeux.server.cluster.AcknowledgedBatch state =
                org.bayeux.server.ext.AcknowledgedMessagesExtension.installOnAdopted(session);
        assertThat(state).isNotNull();
        assertThat(session.isMetaConnectDeliveryOnly()).isTrue();
        assertThat(org.bayeux.server.ext.AcknowledgedMessagesExtension.isAcknowledging(session)).isTrue();
        assertThat(org.bayeux.server.ext.AcknowledgedMessagesExtension.installOnAdopted(session)).isSameAs(state);
        assertThat(((ServerSessionImpl) session).acknowledges()).isTrue();
    }

    @Test
    void aDrainingNodeAdoptsNothingAndTellsTheClientToRetry() {
        EngineHarness a = nodeA();
        EngineHarness b = nodeB(server -> { });
        String id = handshakenOnA(a, "/chat/a");
        shared.kill("A");
        b.server().drain(Duration.ZERO);
        Map<String, Object> reply = connectNow(onNode(b, id));
        assertThat(reply).containsEntry("successful", false).containsEntry("error", "503::draining");
        assertThat(reply.get("advice")).asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
                .containsEntry("reconnect", "retry");
        assertThat(shared.finds).hasValue(0);
        assertThat(shared.stored(id).owner()).isEqualTo("A");
    }

    @Test
    void failoverDeliveryIsReadFromText() {
        assertThat(BayeuxServerConfig.fromMap(Map.of("failoverDelivery", "at-least-once")).failoverDelivery())
                .isEqualTo(BayeuxServerConfig.FailoverDelivery.AT_LEAST_ONCE);
        assertThat(BayeuxServerConfig.defaults().failoverDelivery())
                .isEqualTo(BayeuxServerConfig.FailoverDelivery.AT_MOST_ONCE);
        assertThat(BayeuxServerConfig.defaults().maxAdoptionsInFlight()).isEqualTo(256);
    }

    @Test
    void theStoreKnowsTheBrowserByItsDigestAndTheAdoptingNodeChecksIt() {
        EngineHarness a = nodeA();
        EngineHarness b = nodeB(server -> { });
        TestClient client = a.newClient();
        client.handshake();
        ServerSession session = a.server().getSession(client.clientId());
        a.server().bindToBrowser(session, "cookie-1");
        a.server().browserCookieShown(session);
        SharedSessionStore.Snapshot stored = shared.stored(client.clientId()).state();
        assertThat(stored.browserDigest()).isEqualTo(SessionSettings.digest("cookie-1")).hasSize(64)
                .doesNotContain("cookie-1");
        assertThat(stored.browserCookieShown()).isTrue();
        shared.kill("A");

        // The test's carriers check no cookie: the session is adopted, and what binds it is the digest alone.
        assertThat(connectNow(onNode(b, client.clientId()))).containsEntry("successful", true);
        ServerSession rebuilt = b.server().getSession(client.clientId());
        assertThat(b.server().isBoundToBrowser(rebuilt)).isTrue();
        assertThat(b.server().hasShownBrowserCookie(rebuilt)).isTrue();
        assertThat(b.server().browserOf(rebuilt)).isNull();
        assertThat(b.server().isBrowserOf(rebuilt, "cookie-2")).isFalse();
        assertThat(b.server().isBrowserOf(rebuilt, null)).isFalse();
        assertThat(b.server().isBrowserOf(rebuilt, "cookie-1")).isTrue();
        // Known now: compared as it is from now on.
        assertThat(b.server().browserOf(rebuilt)).isEqualTo("cookie-1");
        // Another cookie never rebinds it.
        b.server().bindToBrowser(rebuilt, "cookie-3");
        assertThat(b.server().browserOf(rebuilt)).isEqualTo("cookie-1");
    }
}
