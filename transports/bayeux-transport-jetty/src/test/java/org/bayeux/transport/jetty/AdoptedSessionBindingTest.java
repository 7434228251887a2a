package org.bayeux.transport.jetty;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.bayeux.server.cluster.SessionState;
import org.bayeux.server.cluster.SessionStore;
import org.bayeux.transport.http.SessionBinding;
import org.bayeux.transport.http.TransportConfig;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.http.HttpCookieStore;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.websocket.client.ClientUpgradeRequest;
import org.eclipse.jetty.websocket.client.WebSocketClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Session binding across nodes (issue 33, point 2): a session created on node A whose client showed its browser
 * cookie is adopted by node B only for a carrier that presents that cookie (B knows it by its digest alone); a
 * {@code clientId} without it is refused on B exactly as on A, and before B takes the session over. Real servers on
 * port 0, long-polling and WebSocket; the two engines share a store in this JVM.
 */
class AdoptedSessionBindingTest {
    private static final String COOKIE = "BAYEUX_BROWSER";
    private final Store store = new Store();
    private HttpTestServer a;
    private HttpTestServer b;
    private HttpClient bare;
    private WebSocketClient bareWebSockets;

    /** What a node wrote of a session, as a store that adopts keeps it: the cookie's digest, never the cookie. */
    private record Stored(String sessionId, Duration maxInterval, String browserDigest, boolean browserCookieShown,
            long generation) implements SessionState {
        @Override
        public Set<String> subscriptions() {
            return Set.of();
        }

        @Override
        public long deliveryPosition() {
            return 0;
        }

        @Override
        public long ackBatch() {
            return -1;
        }
    }

    /** One store, two nodes' views; a killed node's writes are ignored. */
    private static final class Store {
        final Map<String, Stored> sessions = new ConcurrentHashMap<>();
        final AtomicInteger adopts = new AtomicInteger();
        volatile String dead;

        SessionStore node(String name) {
            return new SessionStore() {
                @Override
                public boolean adopts() {
                    return true;
                }

                @Override
                public void created(SessionState session) {
                    changed(session);
                }

                @Override
                public void changed(SessionState session) {
                    if (!name.equals(dead)) {
                        sessions.put(session.sessionId(), new Stored(session.sessionId(), session.maxInterval(),
                                session.browserDigest(), session.browserCookieShown(), session.generation()));
                    }
                }

                @Override
                public SessionState find(String sessionId) {
                    return sessions.get(sessionId);
                }

                @Override
                public CompletionStage<SessionState> adopt(String sessionId) {
                    adopts.incrementAndGet();
                    Stored taken = sessions.computeIfPresent(sessionId, (id, stored) -> new Stored(id,
                            stored.maxInterval(), stored.browserDigest(), stored.browserCookieShown(),
                            stored.generation() + 1));
                    return CompletableFuture.completedFuture(taken);
                }

                @Override
                public void removed(String sessionId) {
                    if (!name.equals(dead)) {
                        sessions.remove(sessionId);
                    }
                }
            };
        }
    }

    private void start() throws Exception {
        a = node("A");
        b = node("B");
        bare = new HttpClient();
        bare.setHttpCookieStore(new HttpCookieStore.Empty());
        bare.start();
        bareWebSockets = new WebSocketClient(bare);
        bareWebSockets.start();
    }

    private HttpTestServer node(String name) throws Exception {
        return new HttpTestServer("jackson", engine -> engine.timeout(Duration.ofMillis(3000)),
                transport -> transport.set(TransportConfig.SESSION_BINDING, SessionBinding.COOKIE_ONCE_SHOWN),
                engine -> engine.setSessionStore(store.node(name)));
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable closing : new AutoCloseable[] {bareWebSockets::stop, bare::stop, a, b}) {
            try {
                if (closing != null) {
                    closing.close();
                }
            } catch (Exception | Error ignored) {
                // Not started: nothing to stop.
            }
        }
    }

    private List<Map<String, Object>> call(HttpTestServer node, String cookie, String json) {
        Request request = bare.newRequest(node.uri("/bayeux")).method("POST").timeout(20, TimeUnit.SECONDS)
                .body(new StringRequestContent("application/json;charset=UTF-8", json, StandardCharsets.UTF_8));
        if (cookie != null) {
            request.headers(h -> h.put(HttpHeader.COOKIE, COOKIE + "=" + cookie));
        }
        ContentResponse response = node.send(request);
        assertThat(response.getStatus()).isEqualTo(200);
        return node.messages(response);
    }

    private static String connect(String clientId, String type) {
        return "[{\"channel\":\"/meta/connect\",\"connectionType\":\"" + type + "\",\"advice\":{\"timeout\":0},"
                + "\"clientId\":\"" + clientId + "\"}]";
    }

    private static void assertUnknown(List<Map<String, Object>> replies) {
        assertThat(replies.get(replies.size() - 1)).containsEntry("successful", false)
                .containsEntry("error", "402::session_unknown");
    }

    private static void assertConnected(List<Map<String, Object>> replies) {
        assertThat(replies.get(replies.size() - 1)).containsEntry("channel", "/meta/connect")
                .containsEntry("successful", true);
    }

    @Test
    void overLongPollingAClientIdWithoutItsCookieIsRefusedOnTheAdoptingNode() throws Exception {
        start();
        String cookie = "victimbrowser0001";
        Map<String, Object> handshake = call(a, cookie, "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"supportedConnectionTypes\":[\"long-polling\"]}]").get(0);
        String id = (String) handshake.get("clientId");
        assertConnected(call(a, cookie, connect(id, "long-polling")));
        assertThat(store.sessions.get(id).browserCookieShown()).isTrue();
        assertThat(store.sessions.get(id).browserDigest()).hasSize(64).doesNotContain(cookie);
        // On one node: refused without the cookie.
        assertUnknown(call(a, null, connect(id, "long-polling")));
        store.dead = "A";

        long foreignBefore = b.engine.getForeignClientIdCount();
        assertUnknown(call(b, null, connect(id, "long-polling")));
        assertUnknown(call(b, "someoneelse000001", connect(id, "long-polling")));
        assertThat(b.engine.getForeignClientIdCount() - foreignBefore).isEqualTo(2);
        assertThat(store.adopts).as("refused before the store was asked to hand the session over").hasValue(0);
        assertThat(b.engine.getSession(id)).isNull();

        assertConnected(call(b, cookie, connect(id, "long-polling")));
        assertThat(b.engine.getSession(id)).isNotNull();
        assertThat(b.engine.browserOf(b.engine.getSession(id))).isEqualTo(cookie);
        assertThat(store.adopts).hasValue(1);
        // Adopted, it is bound as on its first node.
        assertUnknown(call(b, null, connect(id, "long-polling")));
    }

    @Test
    void overWebSocketAClientIdWithoutItsCookieIsRefusedOnTheAdoptingNode() throws Exception {
        start();
        String cookie = "victimbrowser0002";
        WsClient victim = socket(a, cookie);
        victim.handshake();
        assertConnected(victim.connectNow());
        String id = victim.clientId;
        assertThat(store.sessions.get(id).browserCookieShown()).isTrue();
        store.dead = "A";
        victim.drop();

        for (String other : new String[] {null, "someoneelse000002"}) {
            WsClient attacker = socket(b, other);
            attacker.clientId = id;
            assertUnknown(attacker.connectNow());
            attacker.close();
        }
        assertThat(store.adopts).hasValue(0);
        assertThat(b.engine.getSession(id)).isNull();

        WsClient resumed = socket(b, cookie);
        resumed.clientId = id;
        assertConnected(resumed.connectNow());
        assertThat(b.engine.getSession(id)).isNotNull();
        assertThat(b.engine.getSession(id).getTransportName()).isEqualTo("websocket");
    }

    private WsClient socket(HttpTestServer node, String cookie) throws Exception {
        ClientUpgradeRequest upgrade = new ClientUpgradeRequest(
                URI.create("ws://127.0.0.1:" + node.connector.getLocalPort() + "/bayeux"));
        if (cookie != null) {
            upgrade.setHeader("Cookie", COOKIE + "=" + cookie);
        }
        return WsClient.open(bareWebSockets, upgrade, node.codec());
    }
}
