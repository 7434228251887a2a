package org.bayeux.transport.jetty;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.bayeux.api.server.LocalSession;
import org.bayeux.api.server.ServerSession;
import org.bayeux.api.Promise;
import org.bayeux.api.server.BayeuxServer;
import org.bayeux.api.server.SecurityPolicy;
import org.bayeux.api.server.ServerMessage;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Session binding (issue 16, item 3): a victim's clientId, stolen by an attacker who does not have the victim's
 * browser cookie (none, or a cookie of its own) and is not on the victim's socket, is worth nothing: every message
 * gets {@code 402::session_unknown}, and the victim keeps its held connect, its subscriptions and its messages.
 * Over real long-polling and WebSocket; the attacker's HTTP client keeps no cookies unless a test adds one.
 */
class SessionBindingTest {
    private static final long TIMEOUT_MS = 3000;
    private static final String COOKIE = "BAYEUX_BROWSER";
    private HttpTestServer server;
    private HttpClient bare;
    private WebSocketClient webSockets;
    private WebSocketClient bareWebSockets;

    private void start(boolean binding, String... allowedOrigins) throws Exception {
        start(SessionBinding.COOKIE_ONCE_SHOWN, binding, allowedOrigins);
    }

    private void start(SessionBinding mode, String... allowedOrigins) throws Exception {
        start(mode, true, allowedOrigins);
    }

    private void start(SessionBinding mode, boolean requireBrowserCookie, String... allowedOrigins) throws Exception {
        server = new HttpTestServer("jackson", engine -> engine.timeout(Duration.ofMillis(TIMEOUT_MS)),
                transport -> transport.set(TransportConfig.SESSION_BINDING, mode)
                        .set(TransportConfig.REQUIRE_BROWSER_COOKIE, requireBrowserCookie)
                        .allowedOrigins(allowedOrigins));
        bare = new HttpClient();
        bare.setHttpCookieStore(new HttpCookieStore.Empty());
        bare.start();
        webSockets = new WebSocketClient();
        webSockets.start();
        bareWebSockets = new WebSocketClient(bare);
        bareWebSockets.start();
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable closing : new AutoCloseable[] {bareWebSockets::stop, webSockets::stop, bare::stop, server}) {
            try {
                closing.close();
            } catch (Exception | Error ignored) {
                // Not started: nothing to stop.
            }
        }
    }

    private static ConditionFactory await() {
        return Awaitility.await().atMost(Duration.ofSeconds(10)).pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(10));
    }

    // ---- a client over long-polling whose cookie the test controls -------------------------------------------

    /** One HTTP client identity: a browser cookie (null for none) that it sends on every request. */
    private final class HttpPeer {
        String cookie;
        String clientId;

        HttpPeer(String cookie) {
            this.cookie = cookie;
        }

        Request post(String json) {
            Request request = bare.newRequest(server.uri("/bayeux")).method("POST").timeout(20, TimeUnit.SECONDS)
                    .body(new StringRequestContent("application/json;charset=UTF-8", json, StandardCharsets.UTF_8));
            if (cookie != null) {
                request.headers(h -> h.put(HttpHeader.COOKIE, COOKIE + "=" + cookie));
            }
            return request;
        }

        List<Map<String, Object>> call(String json) {
            ContentResponse response = server.send(post(json));
            assertThat(response.getStatus()).isEqualTo(200);
            String setCookie = response.getHeaders().get(HttpHeader.SET_COOKIE);
            if (setCookie != null && setCookie.startsWith(COOKIE + "=")) {
                cookie = setCookie.substring(COOKIE.length() + 1, setCookie.indexOf(';'));
            }
            return server.messages(response);
        }

        HttpPeer handshake() {
            Map<String, Object> reply = call("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                    + "\"supportedConnectionTypes\":[\"long-polling\"]}]").get(0);
            assertThat(reply).containsEntry("successful", true);
            clientId = (String) reply.get("clientId");
            call(connect(clientId, ",\"advice\":{\"timeout\":0}"));
            return this;
        }

        CompletableFuture<ContentResponse> holdConnect() {
            CompletableFuture<ContentResponse> held = server.sendAsync(post(connect(clientId, "")));
            await().until(() -> server.engine.isConnectHeld(session(clientId)));
            return held;
        }
    }

    private static String connect(String clientId, String extra) {
        return "[{\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\",\"clientId\":\"" + clientId + "\""
                + extra + "}]";
    }

    private ServerSession session(String clientId) {
        return server.engine.getSession(clientId);
    }

    /** Every way to act as a session, each as its own batch. */
    private static List<String> hijackAttempts(String clientId, String connectionType) {
        String id = ",\"clientId\":\"" + clientId + "\"}]";
        return List.of(
                "[{\"channel\":\"/chat/a\",\"data\":{\"from\":\"attacker\"}" + id,
                "[{\"channel\":\"/meta/subscribe\",\"subscription\":\"/**\"" + id,
                "[{\"channel\":\"/meta/unsubscribe\",\"subscription\":\"/chat/a\"" + id,
                "[{\"channel\":\"/meta/connect\",\"connectionType\":\"" + connectionType + "\",\"advice\":{\"timeout\":0}" + id,
                "[{\"channel\":\"/meta/connect\",\"connectionType\":\"" + connectionType + "\"" + id,
                "[{\"channel\":\"/meta/disconnect\"" + id);
    }

    private static void assertUnknownSession(List<Map<String, Object>> replies) {
        assertThat(replies).hasSize(1);
        assertThat(replies.get(0)).containsEntry("successful", false).containsEntry("error", "402::session_unknown");
    }

    /** The victim is untouched: still held, still subscribed, and the next publish reaches it. */
    private void assertVictimUnharmed(String victim, CompletableFuture<ContentResponse> victimPoll) throws Exception {
        ServerSession session = session(victim);
        assertThat(session).isNotNull();
        assertThat(session.isHandshook()).isTrue();
        assertThat(server.engine.isConnectHeld(session)).as("the victim's poll is still held").isTrue();
        assertThat(victimPoll).isNotDone();
        assertThat(session.getSubscriptions()).hasSize(1);
        assertThat(server.engine.getChannel("/chat/a").getSubscribers()).containsExactly(session);
        assertThat(server.engine.getChannel("/**")).isNull();
    }

    private void longPollingAttacker(String cookie) throws Exception {
        HttpPeer victim = new HttpPeer(null).handshake();
        assertThat(victim.cookie).as("the handshake set the victim's cookie").isNotNull();
        victim.call("[{\"channel\":\"/meta/subscribe\",\"subscription\":\"/chat/a\",\"clientId\":\"" + victim.clientId + "\"}]");
        CompletableFuture<ContentResponse> victimPoll = victim.holdConnect();

        HttpPeer attacker = new HttpPeer(cookie);
        long refusedBefore = server.engine.getForeignClientIdCount();
        for (String attempt : hijackAttempts(victim.clientId, "long-polling")) {
            assertUnknownSession(attacker.call(attempt));
        }
        assertThat(server.engine.getForeignClientIdCount() - refusedBefore).isEqualTo(6);
        assertVictimUnharmed(victim.clientId, victimPoll);

        HttpPeer publisher = new HttpPeer(null).handshake();
        publisher.call("[{\"channel\":\"/chat/a\",\"data\":{\"n\":1},\"clientId\":\"" + publisher.clientId + "\"}]");
        ContentResponse delivered = victimPoll.get(10, TimeUnit.SECONDS);
        assertThat(delivered.getStatus()).isEqualTo(200);
        assertThat(server.messages(delivered)).extracting(m -> m.get("channel")).containsExactly("/chat/a", "/meta/connect");
        assertThat(server.messages(delivered).get(0)).containsEntry("data", Map.of("n", 1L));
    }

    @Test
    void aStolenClientIdWithoutACookieIsUnknownOverLongPolling() throws Exception {
        start(true);
        longPollingAttacker(null);
    }

    @Test
    void aStolenClientIdWithAnotherBrowsersCookieIsUnknownOverLongPolling() throws Exception {
        start(true);
        HttpPeer other = new HttpPeer(null).handshake();
        longPollingAttacker(other.cookie);
    }

    @Test
    void aStolenLongPollingClientIdIsUnknownOnAnAttackersSocket() throws Exception {
        start(true);
        HttpPeer victim = new HttpPeer(null).handshake();
        victim.call("[{\"channel\":\"/meta/subscribe\",\"subscription\":\"/chat/a\",\"clientId\":\"" + victim.clientId + "\"}]");
        // The victim's own socket, opened without the cookie as Faye's is, names the session first: it awaits no
        // other socket (FirstSocketAdoptions), and the attacker's sockets come from the same address as the victim.
        WsClient victimSocket = socket(null);
        victimSocket.clientId = victim.clientId;
        assertThat(victimSocket.call("[{\"channel\":\"/meta/subscribe\",\"subscription\":\"/chat/b\",\"clientId\":\""
                + victim.clientId + "\"}]").get(0)).containsEntry("successful", true);
        victim.call("[{\"channel\":\"/meta/unsubscribe\",\"subscription\":\"/chat/b\",\"clientId\":\""
                + victim.clientId + "\"}]");
        CompletableFuture<ContentResponse> victimPoll = victim.holdConnect();

        for (String cookie : new String[] {null, "someoneelse12345"}) {
            WsClient attacker = socket(cookie);
            for (String attempt : hijackAttempts(victim.clientId, "websocket")) {
                assertUnknownSession(attacker.call(attempt));
            }
            attacker.close();
        }
        assertVictimUnharmed(victim.clientId, victimPoll);
    }

    // ---- WebSocket --------------------------------------------------------------------------------------------

    private URI wsUri() {
        return URI.create("ws://127.0.0.1:" + server.connector.getLocalPort() + "/bayeux");
    }

    /** A socket from the cookie-less client, sending the given browser cookie on its upgrade (null: none). */
    private WsClient socket(String cookie) throws Exception {
        ClientUpgradeRequest upgrade = new ClientUpgradeRequest(wsUri());
        if (cookie != null) {
            upgrade.setHeader("Cookie", COOKIE + "=" + cookie);
        }
        return WsClient.open(bareWebSockets, upgrade, server.codec());
    }

    /** Strict binding: even a client that never sent a cookie owns its socket's session. */
    @Test
    void aStolenClientIdIsUnknownOnAnotherSocketWithOrWithoutACookie() throws Exception {
        start(SessionBinding.STRICT);
        stolenSocketSession(null);
    }

    /** The default binding: a client that sent its cookie on its upgrade (a browser) owns its session. */
    @Test
    void aStolenClientIdOfASessionThatShowedItsCookieIsUnknownOnAnotherSocketOrOverHttp() throws Exception {
        start(SessionBinding.COOKIE_ONCE_SHOWN);
        stolenSocketSession("victimbrowser001");
    }

    private void stolenSocketSession(String victimCookie) throws Exception {
        WsClient victim = socket(victimCookie);
        victim.handshake();
        victim.connectNow();
        assertThat(victim.subscribe("/chat/a")).containsEntry("successful", true);
        victim.send(victim.connectMessage(""));
        await().until(() -> server.engine.isConnectHeld(session(victim.clientId)));

        HttpPeer other = new HttpPeer(null).handshake();
        for (String cookie : new String[] {null, other.cookie}) {
            WsClient attacker = socket(cookie);
            for (String attempt : hijackAttempts(victim.clientId, "websocket")) {
                assertUnknownSession(attacker.call(attempt));
            }
            attacker.close();
            HttpPeer httpAttacker = new HttpPeer(cookie);
            for (String attempt : hijackAttempts(victim.clientId, "long-polling")) {
                assertUnknownSession(httpAttacker.call(attempt));
            }
        }
        ServerSession session = session(victim.clientId);
        assertThat(server.engine.isConnectHeld(session)).isTrue();
        assertThat(server.engine.getChannel("/chat/a").getSubscribers()).containsExactly(session);
        assertThat(server.engine.getChannel("/**")).isNull();
        assertThat(victim.frames).as("nothing reached the victim's socket").isEmpty();

        other.call("[{\"channel\":\"/chat/a\",\"data\":{\"n\":1},\"clientId\":\"" + other.clientId + "\"}]");
        List<Map<String, Object>> push = victim.next();
        assertThat(push).extracting(m -> m.get("channel")).containsExactly("/chat/a");
        assertThat(push.get(0)).containsEntry("data", Map.of("n", 1L));
    }

    /** Faye's way: a handshake over HTTP, then the same browser's socket; and a browser's new socket after a drop. */
    @Test
    void theSameBrowserMayMoveItsSessionToASocket() throws Exception {
        start(true);
        HttpPeer browser = new HttpPeer(null).handshake();
        WsClient socket = socket(browser.cookie);
        socket.clientId = browser.clientId;
        List<Map<String, Object>> reply = socket.connectNow();
        assertThat(reply.get(reply.size() - 1)).containsEntry("successful", true);

        // A browser's new socket after a drop carries its cookie, and so keeps the session; a socket without it
        // does not, and its client must handshake again.
        WsClient first = socket("browser000000001");
        first.handshake();
        first.connectNow();
        first.drop();
        WsClient stranger = socket(null);
        stranger.clientId = first.clientId;
        assertUnknownSession(stranger.connectNow());
        WsClient second = socket("browser000000001");
        second.clientId = first.clientId;
        List<Map<String, Object>> resumed = second.connectNow();
        assertThat(resumed.get(resumed.size() - 1)).containsEntry("successful", true);
    }

    /**
     * Faye opens its socket while its first handshake is on its way over HTTP, so the socket has no cookie: it may
     * take the new session, once, from the handshake's address; after that no cookie-less socket may.
     */
    @Test
    void aSocketOpenedBeforeTheFirstHandshakeMayTakeItsSessionOnce() throws Exception {
        start(true);
        WsClient early = socket(null);
        HttpPeer browser = new HttpPeer(null).handshake();
        early.clientId = browser.clientId;
        List<Map<String, Object>> adopted = early.connectNow();
        assertThat(adopted.get(adopted.size() - 1)).containsEntry("successful", true);
        assertThat(early.subscribe("/chat/a")).containsEntry("successful", true);

        WsClient late = socket(null);
        late.clientId = browser.clientId;
        assertUnknownSession(late.connectNow());
        // The browser's own requests, with its cookie, still reach it.
        assertThat(browser.call("[{\"channel\":\"/chat/a\",\"data\":1,\"clientId\":\"" + browser.clientId + "\"}]")
                .stream().filter(m -> "/chat/a".equals(m.get("channel")) && m.containsKey("successful")))
                .allSatisfy(reply -> assertThat(reply).containsEntry("successful", true));

        // A session whose handshake came with a cookie awaits no socket: a cookie-less one is refused.
        HttpPeer cookied = new HttpPeer("browser000000002").handshake();
        WsClient cookieless = socket(null);
        cookieless.clientId = cookied.clientId;
        assertUnknownSession(cookieless.connectNow());
    }

    /**
     * Faye's cookie race made deterministic, in the order that cost it a 402 under strict binding: its socket opens
     * without a cookie and is given one (G); its handshake over HTTP is given another (B) and its first connect shows
     * B; the socket then carries the session; and from then on Faye's jar holds G, the cookie that arrived last, on
     * its requests and its next sockets. Each step must be accepted, in both modes that bind.
     */
    @ParameterizedTest(name = "{0}, socket first: {1}")
    @CsvSource({"COOKIE_ONCE_SHOWN,false", "COOKIE_ONCE_SHOWN,true", "STRICT,false", "STRICT,true"})
    void fayesEarlySocketAndItsCookieNeverRaceIntoA402(SessionBinding mode, boolean socketFirst) throws Exception {
        start(mode);
        WsClient early = socket(null);
        String given = cookieSetOn(early);
        assertThat(given).as("the upgrade gave the socket a cookie").isNotNull();
        HttpPeer faye = new HttpPeer(null);
        Map<String, Object> handshake = faye.call("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"supportedConnectionTypes\":[\"long-polling\",\"websocket\"]}]").get(0);
        faye.clientId = (String) handshake.get("clientId");
        assertThat(faye.cookie).as("the handshake's own cookie").isNotNull().isNotEqualTo(given);
        early.clientId = faye.clientId;
        String showTheCookie = connect(faye.clientId, ",\"advice\":{\"timeout\":0}");
        List<Map<String, Object>> adopted;
        if (socketFirst) {
            // The socket names the session before the handshake's cookie comes back over HTTP.
            adopted = early.connectNow();
            assertThat(faye.call(showTheCookie).get(0)).containsEntry("successful", true);
        } else {
            assertThat(faye.call(showTheCookie).get(0)).containsEntry("successful", true);
            adopted = early.connectNow();
        }
        assertThat(server.engine.hasShownBrowserCookie(session(faye.clientId))).isTrue();
        assertThat(adopted.get(adopted.size() - 1)).containsEntry("successful", true);
        assertThat(early.subscribe("/chat/a")).containsEntry("successful", true);

        faye.cookie = given;
        List<Map<String, Object>> overHttp = faye.call("[{\"channel\":\"/chat/a\",\"data\":1,\"clientId\":\""
                + faye.clientId + "\"}]");
        assertThat(overHttp).filteredOn(m -> m.containsKey("successful"))
                .allSatisfy(reply -> assertThat(reply).containsEntry("successful", true));
        early.drop();
        WsClient next = socket(given);
        next.clientId = faye.clientId;
        List<Map<String, Object>> resumed = next.connectNow();
        assertThat(resumed.get(resumed.size() - 1)).containsEntry("successful", true);
        // Still nobody else's: a cookie-less socket and a stranger's cookie are refused.
        WsClient stranger = socket("someoneelse12345");
        stranger.clientId = faye.clientId;
        assertUnknownSession(stranger.connectNow());
        WsClient cookieless = socket(null);
        cookieless.clientId = faye.clientId;
        assertUnknownSession(cookieless.connectNow());
    }

    /** @return the browser cookie the socket's upgrade response set, or null */
    private static String cookieSetOn(WsClient socket) {
        String setCookie = socket.session().getUpgradeResponse().getHeader("Set-Cookie");
        if (setCookie == null || !setCookie.startsWith(COOKIE + "=")) {
            return null;
        }
        int end = setCookie.indexOf(';');
        return setCookie.substring(COOKIE.length() + 1, end < 0 ? setCookie.length() : end);
    }

    /** A socket from an origin allowed only by "*" is any site's page: its cookie proves nothing, and it adopts nothing. */
    @Test
    void aSocketFromAnOriginAllowedOnlyByStarCannotUseTheBrowsersCookie() throws Exception {
        start(true, "*");
        HttpPeer victim = new HttpPeer(null).handshake();
        ClientUpgradeRequest upgrade = new ClientUpgradeRequest(wsUri());
        upgrade.setHeader("Origin", "https://evil.example");
        upgrade.setHeader("Cookie", COOKIE + "=" + victim.cookie);
        WsClient evil = WsClient.open(bareWebSockets, upgrade, server.codec());
        evil.clientId = victim.clientId;
        assertUnknownSession(evil.connectNow());
        ClientUpgradeRequest cookieless = new ClientUpgradeRequest(wsUri());
        cookieless.setHeader("Origin", "https://evil.example");
        WsClient evilWithoutCookie = WsClient.open(bareWebSockets, cookieless, server.codec());
        evilWithoutCookie.clientId = victim.clientId;
        assertUnknownSession(evilWithoutCookie.connectNow());
        // The victim's own socket still may.
        WsClient own = socket(victim.cookie);
        own.clientId = victim.clientId;
        List<Map<String, Object>> reply = own.connectNow();
        assertThat(reply.get(reply.size() - 1)).containsEntry("successful", true);
    }

    @Test
    void aRemoteMessageCannotActAsALocalSession() throws Exception {
        start(true);
        LocalSession bot = server.engine.newLocalSession("bot");
        bot.handshake();
        String botId = bot.getId();
        assertThat(botId).isNotNull();
        HttpPeer attacker = new HttpPeer(null);
        for (String attempt : hijackAttempts(botId, "long-polling")) {
            assertUnknownSession(attacker.call(attempt));
        }
        WsClient socket = socket(null);
        for (String attempt : hijackAttempts(botId, "websocket")) {
            assertUnknownSession(socket.call(attempt));
        }
        assertThat(server.engine.getSession(botId).isHandshook()).isTrue();
        assertThat(server.engine.getChannel("/**")).isNull();
    }

    /** With binding off, a clientId alone finds its session again, for cross-origin clients that lose cookies. */
    @Test
    void withoutBindingAClientIdAloneIsEnough() throws Exception {
        start(false);
        HttpPeer client = new HttpPeer(null).handshake();
        HttpPeer cookieless = new HttpPeer(null);
        List<Map<String, Object>> reply = cookieless.call(connect(client.clientId, ",\"advice\":{\"timeout\":0}"));
        assertThat(reply.get(reply.size() - 1)).containsEntry("successful", true);
        // A local session stays out of reach whatever the setting.
        LocalSession bot = server.engine.newLocalSession("bot");
        bot.handshake();
        assertUnknownSession(cookieless.call(connect(bot.getId(), ",\"advice\":{\"timeout\":0}")));
    }

    // ---- the default binding: cookie-less clients keep their sessions; a shown cookie binds ---------------------

    /**
     * A client that keeps no cookies (CometD JS or ours in Node.js): its socket is given a cookie it never sends
     * back, so its session is found by clientId alone, on a new socket after a drop and over long-polling.
     */
    @Test
    void aCookielessClientKeepsItsSessionAcrossSocketsAndTransportsByDefault() throws Exception {
        start(SessionBinding.COOKIE_ONCE_SHOWN);
        WsClient first = socket(null);
        first.handshake();
        first.connectNow();
        assertThat(first.subscribe("/chat/a")).containsEntry("successful", true);
        first.drop();
        for (int cut = 0; cut < 3; cut++) {
            WsClient next = socket(null);
            next.clientId = first.clientId;
            List<Map<String, Object>> resumed = next.connectNow();
            assertThat(resumed.get(resumed.size() - 1)).as("reconnection %d", cut).containsEntry("successful", true);
            next.drop();
        }
        HttpPeer overHttp = new HttpPeer(null);
        List<Map<String, Object>> reply = overHttp.call(connect(first.clientId, ",\"advice\":{\"timeout\":0}"));
        assertThat(reply.get(reply.size() - 1)).containsEntry("successful", true);
        assertThat(server.engine.getChannel("/chat/a").getSubscribers()).containsExactly(session(first.clientId));
    }

    /**
     * A cookie the server set binds nothing until the client sends it back; from then on a request without it is
     * refused, the window being the client's first request after its handshake.
     */
    @Test
    void aGivenCookieBindsTheSessionOnceTheClientSendsItBack() throws Exception {
        start(SessionBinding.COOKIE_ONCE_SHOWN);
        HttpPeer browser = new HttpPeer(null);
        Map<String, Object> handshake = browser.call("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"supportedConnectionTypes\":[\"long-polling\"]}]").get(0);
        browser.clientId = (String) handshake.get("clientId");
        assertThat(browser.cookie).as("the handshake set a cookie").isNotNull();
        assertThat(server.engine.hasShownBrowserCookie(session(browser.clientId))).isFalse();

        List<Map<String, Object>> first = browser.call(connect(browser.clientId, ",\"advice\":{\"timeout\":0}"));
        assertThat(first.get(first.size() - 1)).containsEntry("successful", true);
        assertThat(server.engine.hasShownBrowserCookie(session(browser.clientId))).isTrue();
        HttpPeer attacker = new HttpPeer(null);
        for (String attempt : hijackAttempts(browser.clientId, "long-polling")) {
            assertUnknownSession(attacker.call(attempt));
        }
        // (A cookie-less socket from the handshake's own address could still adopt it once, the Faye allowance that
        // aStolenLongPollingClientIdIsUnknownOnAnAttackersSocket covers; a socket with a cookie of its own cannot.)
        WsClient attackerSocket = socket("someoneelse12345");
        for (String attempt : hijackAttempts(browser.clientId, "websocket")) {
            assertUnknownSession(attackerSocket.call(attempt));
        }
        assertThat(session(browser.clientId).isHandshook()).isTrue();
    }

    /**
     * Strict binding, as before this mode existed: a cookie-less client's new socket cannot prove anything, and its
     * client must handshake again.
     */
    @Test
    void strictBindingRefusesACookielessClientsNewSocket() throws Exception {
        start(SessionBinding.STRICT);
        WsClient first = socket(null);
        first.handshake();
        first.connectNow();
        first.drop();
        WsClient next = socket(null);
        next.clientId = first.clientId;
        assertUnknownSession(next.connectNow());
    }

    // ---- a session pinned to its handshake's socket -----------------------------------------------------------

    /** Pins every session whose handshake asks for it in {@code ext.pin}, as Oort pins its verified peers. */
    private void pinOnRequest() {
        server.engine.setSecurityPolicy(new SecurityPolicy() {
            @Override
            public void canHandshake(BayeuxServer bayeux, ServerSession session, ServerMessage message,
                    Promise<Boolean> promise) {
                Map<String, Object> ext = message.getExt();
                if (ext != null && Boolean.TRUE.equals(ext.get("pin"))) {
                    server.engine.pinToHandshakeCarrier(session);
                }
                promise.succeed(true);
            }
        });
    }

    /**
     * A pinned session (an Oort peer's) is carried only by the socket it was handshaken on: not by another socket,
     * nor over long-polling, even with its own cookie and clientId; the socket itself keeps working.
     */
    @Test
    void aPinnedSessionIsCarriedOnlyByItsHandshakesSocketEvenWithItsCookie() throws Exception {
        start(SessionBinding.COOKIE_ONCE_SHOWN);
        pinOnRequest();
        String cookie = "peerlinkcookie01";
        WsClient link = socket(cookie);
        Map<String, Object> handshake = link.call("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"supportedConnectionTypes\":[\"websocket\"],\"ext\":{\"pin\":true}}]").get(0);
        assertThat(handshake).containsEntry("successful", true);
        link.clientId = (String) handshake.get("clientId");
        assertThat(link.connectNow().get(0)).containsEntry("successful", true);
        assertThat(link.subscribe("/chat/a")).containsEntry("successful", true);

        long refusedBefore = server.engine.getForeignClientIdCount();
        WsClient copy = socket(cookie);
        for (String attempt : hijackAttempts(link.clientId, "websocket")) {
            assertUnknownSession(copy.call(attempt));
        }
        HttpPeer overHttp = new HttpPeer(cookie);
        for (String attempt : hijackAttempts(link.clientId, "long-polling")) {
            assertUnknownSession(overHttp.call(attempt));
        }
        assertThat(server.engine.getForeignClientIdCount() - refusedBefore).isEqualTo(12);
        assertThat(server.engine.getChannel("/chat/a").getSubscribers()).containsExactly(session(link.clientId));
        assertThat(server.engine.getChannel("/**")).isNull();
        assertThat(link.connectNow().get(0)).as("the pinned socket still carries it").containsEntry("successful", true);

        // Once its socket is gone, nothing carries it: the peer must join again.
        link.drop();
        WsClient again = socket(cookie);
        again.clientId = link.clientId;
        assertUnknownSession(again.connectNow());
    }

    /**
     * A session pinned but handshaken over long-polling (an Oort link refused WebSocket) has no one connection: it is
     * bound to its handshake's cookie, strictly, whatever the mode, and no socket may take it, even with that cookie.
     */
    @Test
    void aSessionPinnedOverLongPollingNeedsItsCookieAndNoSocketMayTakeIt() throws Exception {
        start(SessionBinding.COOKIE_ONCE_SHOWN);
        pinOnRequest();
        HttpPeer link = new HttpPeer(null);
        Map<String, Object> handshake = link.call("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"supportedConnectionTypes\":[\"long-polling\"],\"ext\":{\"pin\":true}}]").get(0);
        assertThat(handshake).containsEntry("successful", true);
        link.clientId = (String) handshake.get("clientId");
        assertThat(link.cookie).isNotNull();

        // Before its cookie came back, an unpinned session would be found by clientId alone; a pinned one is not.
        HttpPeer cookieless = new HttpPeer(null);
        for (String attempt : hijackAttempts(link.clientId, "long-polling")) {
            assertUnknownSession(cookieless.call(attempt));
        }
        List<Map<String, Object>> own = link.call(connect(link.clientId, ",\"advice\":{\"timeout\":0}"));
        assertThat(own.get(own.size() - 1)).containsEntry("successful", true);
        for (String cookie : new String[] {null, link.cookie}) {
            WsClient socket = socket(cookie);
            for (String attempt : hijackAttempts(link.clientId, "websocket")) {
                assertUnknownSession(socket.call(attempt));
            }
            socket.close();
        }
        List<Map<String, Object>> again = link.call(connect(link.clientId, ",\"advice\":{\"timeout\":0}"));
        assertThat(again.get(again.size() - 1)).containsEntry("successful", true);
    }

    /** Pinning is per session: the same client's unpinned sessions move between sockets as the mode allows. */
    @Test
    void anUnpinnedSessionOfTheSameClientStillMovesToANewSocket() throws Exception {
        start(SessionBinding.COOKIE_ONCE_SHOWN);
        pinOnRequest();
        WsClient plain = socket("somebrowser00001");
        plain.handshake();
        plain.connectNow();
        plain.drop();
        WsClient next = socket("somebrowser00001");
        next.clientId = plain.clientId;
        List<Map<String, Object>> resumed = next.connectNow();
        assertThat(resumed.get(resumed.size() - 1)).containsEntry("successful", true);
    }
}
