package org.bayeux.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.server.ServerSession;
import org.bayeux.server.test.EngineHarness;
import org.bayeux.server.test.TestClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** An engine without a cluster answers presence from its own channels and ties, with real clients. */
class SingleNodePresenceTest {
    private final EngineHarness engine = EngineHarness.start();

    @AfterEach
    void stop() {
        engine.close();
    }

    private static <T> T now(java.util.concurrent.CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    @Test
    void membersUsersAndEventsOfOneNode() throws Exception {
        Presence presence = engine.server().presence();
        assertThat(engine.server().presence()).as("one object").isSameAs(presence);
        assertThat(presence.nodeId()).isEqualTo(SingleNodePresence.NODE_ID);
        List<PresenceEvent> events = new CopyOnWriteArrayList<>();
        presence.addListener(events::add);

        TestClient alice = engine.newClient();
        alice.handshake();
        alice.firstConnect();
        ServerSession session = engine.server().getSession(alice.clientId());
        assertThat(presence.associate("alice", session)).isTrue();
        assertThat(presence.associate("alice", session)).as("once").isFalse();
        alice.subscribe("/room/lobby");
        alice.subscribe("/room/*");

        PresenceEntry entry = new PresenceEntry(alice.clientId(), "alice", SingleNodePresence.NODE_ID);
        assertThat(now(presence.members("/room/lobby"))).containsExactly(entry);
        assertThat(now(presence.members("/room/*"))).as("wildcards are not tracked").isEmpty();
        assertThat(now(presence.userIds())).isEqualTo(Set.of("alice"));
        assertThat(now(presence.isPresent("alice"))).isTrue();
        assertThat(now(presence.isPresent("bob"))).isFalse();

        alice.disconnect();
        assertThat(now(presence.members("/room/lobby"))).isEmpty();
        assertThat(now(presence.isPresent("alice"))).as("the tie ends with the session").isFalse();
        PresenceEntry user = new PresenceEntry(null, "alice", SingleNodePresence.NODE_ID);
        assertThat(events).containsExactly(new PresenceEvent(null, user, true),
                new PresenceEvent("/room/lobby", entry, true),
                new PresenceEvent("/room/lobby", new PresenceEntry(alice.clientId(), "alice",
                        SingleNodePresence.NODE_ID), false),
                new PresenceEvent(null, user, false));
    }

    @Test
    void disassociateEndsTheUsersPresenceWithItsLastSession() throws Exception {
        Presence presence = engine.server().presence();
        TestClient one = engine.newClient();
        one.handshake();
        TestClient two = engine.newClient();
        two.handshake();
        ServerSession first = engine.server().getSession(one.clientId());
        ServerSession second = engine.server().getSession(two.clientId());
        presence.associate("bob", first);
        presence.associate("bob", second);
        List<PresenceEvent> events = new CopyOnWriteArrayList<>();
        presence.addListener(events::add);
        assertThat(presence.disassociate("bob", first)).isTrue();
        assertThat(presence.disassociate("bob", first)).isFalse();
        assertThat(now(presence.isPresent("bob"))).isTrue();
        assertThat(events).isEmpty();
        assertThat(presence.disassociate("bob", second)).isTrue();
        assertThat(now(presence.isPresent("bob"))).isFalse();
        assertThat(events).containsExactly(new PresenceEvent(null, new PresenceEntry(null, "bob",
                SingleNodePresence.NODE_ID), false));
    }
}
