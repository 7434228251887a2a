package org.bayeux.backplane.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.Message;
import org.bayeux.api.server.LocalSession;
import org.bayeux.api.server.ServerChannel;
import org.bayeux.api.server.ServerSession;
import org.bayeux.server.BayeuxEngine;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Presence of a session another node adopts, with two backplanes on one redis-server: node A, which reaches Redis
 * through a {@link TcpProxy} (cut: a node that died, as Redis sees it; resumed: a paused node that comes back), and
 * node B, which adopts A's session (its subscription made again on B under the same clientId, as the adopting
 * engine does). The session must stay one member: no leave and join when it moves, no leave when A's entries expire,
 * and none when A comes back and drops its copy.
 */
class PresenceAdoptionTest {
    private static final Duration WAIT = BackplaneFixture.WAIT;
    private static final String CHANNEL = "/chat/presence";
    @RegisterExtension
    final BackplaneFixture fixture = new BackplaneFixture();
    private final List<BayeuxEngine> engines = new ArrayList<>();
    private TcpProxy proxy;

    @BeforeEach
    void startProxy() throws Exception {
        proxy = fixture.closing(new TcpProxy(fixture.redis().port()));
    }

    private RedisBackplane node(String uri) {
        RedisBackplane backplane = new RedisBackplane(RedisBackplaneConfig.builder().uri(uri)
                .operationTimeout(Duration.ofSeconds(2)).presenceTtl(Duration.ofSeconds(1)).build());
        engines.add(fixture.engine(backplane));
        return backplane;
    }

    /** @return a session of another node's, by id only: what the adopting engine's subscription listeners see */
    private static ServerSession adopted(String id) {
        return (ServerSession) Proxy.newProxyInstance(ServerSession.class.getClassLoader(),
                new Class<?>[] {ServerSession.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getId" -> id;
                    case "hashCode" -> id.hashCode();
                    case "equals" -> proxy == args[0];
                    case "toString" -> "adopted session";
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    private static Map<String, String> presence(RedisBackplane backplane) throws Exception {
        return backplane.presence(CHANNEL).toCompletableFuture().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Test
    void anAdoptedSessionStaysOneMemberWithNoLeaveNorJoin() throws Exception {
        RedisBackplane a = node("redis://127.0.0.1:" + proxy.port());
        RedisBackplane b = node(fixture.redis().uri());
        List<PresenceEvent> seen = new CopyOnWriteArrayList<>();
        b.addPresenceListener(seen::add);

        LocalSession alice = BackplaneFixture.connected(engines.get(0), "alice");
        CompletableFuture<Message> subscribed = new CompletableFuture<>();
        alice.getChannel(CHANNEL).subscribe((c, m) -> { }, (c, m) -> subscribed.complete(m));
        assertThat(subscribed.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).isSuccessful()).isTrue();
        String id = alice.getServerSession().getId();
        PresenceEvent joined = new PresenceEvent(CHANNEL, id, a.nodeId(), true);
        await("the join").atMost(WAIT).until(() -> seen.contains(joined));

        // A dies (as Redis sees it); B adopts the session and subscribes it again.
        proxy.cut();
        ServerChannel channel = engines.get(1).createChannelIfAbsent(CHANNEL);
        b.presenceTracker().subscribed(adopted(id), channel, null);
        await("B's entry").atMost(WAIT).until(() -> b.nodeId().equals(presence(b).get(id)));
        // Long past A's entry's TTL (1 s): B's sweeps ran, and B refreshed the entry it took over.
        long rounds = b.presenceTracker().rounds();
        await("B's refresh and sweep rounds").atMost(WAIT).until(() -> b.presenceTracker().rounds() >= rounds + 6);
        assertThat(presence(b)).isEqualTo(Map.of(id, b.nodeId()));

        // A comes back (it was only paused): its refreshes do not take the session back, and when it drops its copy
        // (the session moved) no leave is told.
        proxy.resume(fixture.redis().port());
        await("A reconnected").atMost(WAIT).until(a::isConnected);
        long roundsOfA = a.presenceTracker().rounds();
        await("A's refresh rounds").atMost(WAIT).until(() -> a.presenceTracker().rounds() >= roundsOfA + 3);
        assertThat(presence(b)).isEqualTo(Map.of(id, b.nodeId()));
        a.presenceTracker().unsubscribed(alice.getServerSession(), engines.get(0).getChannel(CHANNEL), null);

        // The control: B's own leave is told, once.
        b.presenceTracker().unsubscribed(adopted(id), channel, null);
        PresenceEvent left = new PresenceEvent(CHANNEL, id, b.nodeId(), false);
        await("B's leave").atMost(WAIT).until(() -> seen.contains(left));
        assertThat(seen).as("one join, one leave, nothing between").containsExactly(joined, left);
        assertThat(presence(b)).isEmpty();
    }
}
