package org.bayeux.interop;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.bayeux.api.server.ServerSession;
import org.bayeux.server.ext.AcknowledgedMessagesExtension;
import org.bayeux.transport.http.TransportConfig;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The CometD JavaScript client 9 and Faye 1.4, each in its own Node.js process, against our server, over every
 * transport of {@link Interop#TRANSPORTS}, with both JSON codecs. The scenarios are in node/lib/scenarios.mjs; here
 * the server is started, the scenario run, and its result line checked.
 */
class NodeClientTest {
    private static final String VARIANTS = "org.bayeux.interop.Interop#nodeClients";
    private static final Duration RUN_LIMIT = Duration.ofSeconds(60);

    /**
     * The transport configuration of a scenario in which a socket is lost and the session must carry on over a new
     * one: the defaults. The CometD JS client on Node.js opens its sockets with the {@code ws} package, which sends
     * no cookies; at the default session binding ({@code COOKIE_ONCE_SHOWN}) a session whose client never sent its
     * cookie back is found by its clientId alone, so the new socket carries it (under {@code STRICT} it would get
     * {@code 402::session_unknown} and handshake again).
     */
    static TransportConfig sessionSurvivesNewSocket(String client, String transport) {
        return TransportConfig.defaults();
    }

    static Stream<Arguments> cometdJs() {
        return Interop.nodeClients().filter(arguments -> "cometd-js".equals(arguments.get()[0]));
    }

    @ParameterizedTest(name = "{0}, {1} codec, {2}")
    @MethodSource(VARIANTS)
    void handshakesAndConnectsOverTheChosenTransport(String client, String codec, String transport) throws Exception {
        try (InteropServer server = new InteropServer(codec)) {
            Map<String, Object> result = NodeScenario.start(client, server.url(), transport, "handshake")
                    .result(RUN_LIMIT);

            assertThat((String) result.get("clientId")).matches("[A-Za-z0-9]{20,}");
            assertThat(result.get("transport")).isEqualTo(transport);
            if ("faye".equals(client) && "websocket".equals(transport)) {
                // Faye handshakes over long-polling and moves to WebSocket once its probe of the server succeeds: on
                // a busy machine the probe can finish after its first connect went out over long-polling. Either
                // way it ends on WebSocket, and uses nothing else.
                assertThat(result.get("connectionTypes")).isIn(List.of(transport), List.of("long-polling", transport));
            } else {
                assertThat(result.get("connectionTypes")).isEqualTo(List.of(transport));
            }
            assertThat(server.awaitRemoved((String) result.get("clientId"))).as("expired").isFalse();
        }
    }

    @ParameterizedTest(name = "{0}, {1} codec, {2}")
    @MethodSource(VARIANTS)
    void wildcardSubscriptionsMatchOneOrManySegments(String client, String codec, String transport) throws Exception {
        try (InteropServer server = new InteropServer(codec, InteropServer::inOrder)) {
            Map<String, Object> result = NodeScenario.start(client, server.url(), transport, "wildcard")
                    .result(RUN_LIMIT);

            assertThat(result.get("star")).isEqualTo(List.of("/w/a", "/w/end"));
            assertThat(result.get("starStar")).isEqualTo(List.of("/w/a", "/w/a/b", "/w/end"));
        }
    }

    @ParameterizedTest(name = "{0}, {1} codec, {2}")
    @MethodSource(VARIANTS)
    void publishesAndReceives(String client, String codec, String transport) throws Exception {
        try (InteropServer server = new InteropServer(codec)) {
            Map<String, Object> result = NodeScenario.start(client, server.url(), transport, "publish")
                    .result(RUN_LIMIT);

            assertThat(result.get("received")).isEqualTo(
                    List.of(Map.of("channel", "/chat/room", "data", result.get("sent"))));
        }
    }

    @ParameterizedTest(name = "{0}, {1} codec, {2}")
    @MethodSource(VARIANTS)
    void unsubscribedChannelDeliversNoMore(String client, String codec, String transport) throws Exception {
        try (InteropServer server = new InteropServer(codec, InteropServer::inOrder)) {
            Map<String, Object> result = NodeScenario.start(client, server.url(), transport, "unsubscribe")
                    .result(RUN_LIMIT);

            assertThat(result.get("received")).isEqualTo(List.of(
                    Map.of("channel", "/u/a", "data", Map.of("n", 1L)),
                    Map.of("channel", "/u/fence", "data", Map.of("n", 3L))));
        }
    }

    @ParameterizedTest(name = "{0}, {1} codec, {2}")
    @MethodSource(VARIANTS)
    void disconnectEndsTheSessionOnTheServer(String client, String codec, String transport) throws Exception {
        try (InteropServer server = new InteropServer(codec)) {
            Map<String, Object> result = NodeScenario.start(client, server.url(), transport, "disconnect")
                    .result(RUN_LIMIT);

            assertThat(server.awaitRemoved((String) result.get("clientId"))).as("expired").isFalse();
            assertThat(server.remoteSessions()).isEmpty();
            if ("cometd-js".equals(client)) {
                assertThat(result.get("status")).isEqualTo("disconnected");
                assertDisconnectReplied(result, transport);
            }
        }
    }

    /**
     * A client may disconnect while its {@code /meta/connect} is still on its way, and the server may then read the
     * two in the other order. The session no longer exists when the connect is read, so the server answers it
     * {@code 402::session_unknown}, whatever its id. The extension forces the order: connects wait until the session
     * is removed, and the disconnect reply waits until a connect reply has left. (Long-polling only: on WebSocket one
     * socket carries both, in order.) The server's 402 itself is checked by the engine's ConnectTest.
     */
    @ParameterizedTest(name = "{0}, {1} codec, {2}")
    @MethodSource("cometdJsLongPolling")
    void connectReadAfterTheDisconnectIsRefusedAndTheClientEndsDisconnected(String client, String codec,
            String transport) throws Exception {
        try (InteropServer server = new InteropServer(codec)) {
            ConnectAfterDisconnect order = new ConnectAfterDisconnect(server.engine);
            server.engine.addExtension(order);
            Map<String, Object> result = NodeScenario.start(client, server.url(), transport, "disconnect")
                    .result(RUN_LIMIT);

            // A connect held when the session ended is answered as such; one read after it is refused.
            assertThat(order.lateConnectReplies()).as("connect replies after the session ended").isNotEmpty()
                    .isSubsetOf("402::session_unknown", "successful, reconnect none");
            assertThat(result.get("status")).isEqualTo("disconnected");
            assertDisconnectReplied(result, transport);
            assertThat(server.remoteSessions()).isEmpty();
        }
    }

    /**
     * The disconnect reply the CometD JS client reports: the server's successful one, or, on long-polling, the
     * client's own abort of its pending disconnect (httpCode 0, no reply read). The client aborts its requests when
     * it receives the {@code 402} of a connect that the server read after the disconnect; see the CometD JS quirks in
     * docs/interoperability.md. The server removed the session either way, which callers check.
     */
    @SuppressWarnings("unchecked")
    private static void assertDisconnectReplied(Map<String, Object> result, String transport) {
        Map<String, Object> reply = (Map<String, Object>) result.get("disconnectReply");
        assertThat(reply).isNotNull().containsEntry("channel", "/meta/disconnect");
        if (Boolean.TRUE.equals(reply.get("successful")) || !"long-polling".equals(transport)) {
            assertThat(reply).containsEntry("successful", true);
            return;
        }
        assertThat(reply.get("failure")).as("the client's own abort, not a server reply")
                .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP).containsEntry("httpCode", 0L);
    }

    static Stream<Arguments> cometdJsLongPolling() {
        return cometdJs().filter(arguments -> "long-polling".equals(arguments.get()[2]));
    }

    @ParameterizedTest(name = "{0}, {1} codec, {2}")
    @MethodSource(VARIANTS)
    void handshakesAgainAndResubscribesAfterTheServerExpiredTheSession(String client, String codec, String transport)
            throws Exception {
        try (InteropServer server = new InteropServer(codec, InteropServer::expiringQuickly)) {
            NodeScenario run = NodeScenario.start(client, server.proxiedUrl(), transport, "rehandshake",
                    Map.of("channel", "/r/a"));
            ServerSession first = server.awaitSubscriber("/r/a", null);

            server.expireBehindProxy(first);
            ServerSession second = server.awaitSubscriber("/r/a", first.getId());
            server.publish("/r/a", Map.of("after", "rehandshake"));
            Map<String, Object> result = run.resultAfterConnectionsCut(RUN_LIMIT);

            assertThat(result.get("clientIds")).isEqualTo(List.of(first.getId(), second.getId()));
            assertThat(result.get("received")).isEqualTo(List.of(
                    Map.of("channel", "/r/a", "data", Map.of("after", "rehandshake"), "handshakes", 2L)));
        }
    }

    @ParameterizedTest(name = "{0}, {1} codec, {2}")
    @MethodSource(VARIANTS)
    void receivesA100KiBMessage(String client, String codec, String transport) throws Exception {
        try (InteropServer server = new InteropServer(codec)) {
            NodeScenario run = NodeScenario.start(client, server.url(), transport, "receive",
                    Map.of("channel", "/big", "count", 1));
            server.awaitSubscribers("/big", 1);
            String blob = Interop.blob(Interop.LARGE);

            server.publish("/big", Map.of("blob", blob));
            Map<String, Object> result = run.result(RUN_LIMIT);

            assertThat(result.get("received")).isEqualTo(
                    List.of(Map.of("channel", "/big", "data", Map.of("blob", Interop.summary(blob)))));
        }
    }

    /** Faye sends any size; the CometD JS client needs its maxSendBayeuxMessageSize raised (8 KiB by default). */
    @ParameterizedTest(name = "{0}, {1} codec, {2}")
    @MethodSource(VARIANTS)
    void sendsA100KiBMessage(String client, String codec, String transport) throws Exception {
        Map<String, Object> args = "cometd-js".equals(client)
                ? Map.of("size", Interop.LARGE, "options", "{\"maxSendBayeuxMessageSize\":204800}")
                : Map.of("size", Interop.LARGE);
        try (InteropServer server = new InteropServer(codec)) {
            Map<String, Object> result = NodeScenario.start(client, server.url(), transport, "large-send", args)
                    .result(RUN_LIMIT);

            assertThat(result.get("publishError")).isNull();
            assertThat(result.get("received")).isEqualTo(List.of(Map.of("channel", "/big", "data",
                    Map.of("blob", Interop.summary(Interop.blob(Interop.LARGE))))));
        }
    }

    /**
     * The CometD JS client quirk that the previous test works around, kept visible: the message is never sent. (On
     * WebSocket the publish callback may not even be called; the scenario then reports its own time-out.)
     */
    @ParameterizedTest(name = "{0}, {1} codec, {2}")
    @MethodSource("cometdJs")
    void cometdJsRefusesToSendOver8KiBByDefault(String client, String codec, String transport) throws Exception {
        try (InteropServer server = new InteropServer(codec)) {
            Map<String, Object> result = NodeScenario.start(client, server.url(), transport, "large-send",
                    Map.of("size", Interop.LARGE)).result(RUN_LIMIT);

            assertThat(result.get("publishError")).isNotNull();
            assertThat(result.get("received")).isEqualTo(List.of());
        }
    }

    /**
     * A message over the server's maxMessageSizeBytes is refused, and the session carries on. The CometD JS client
     * on Node.js sends its bodies chunked, without a length. (Not Faye: a request that fails can make it abort
     * another one flushed in the same tick, its held connect included, and lose the messages in that response; see
     * docs/interoperability.md.)
     */
    @ParameterizedTest(name = "{0}, {1} codec, {2}")
    @MethodSource("cometdJs")
    void aMessageOverTheSizeLimitIsRefusedAndTheSessionCarriesOn(String client, String codec, String transport)
            throws Exception {
        try (InteropServer server = new InteropServer(codec, builder -> builder.maxMessageSizeBytes(64 * 1024),
                sessionSurvivesNewSocket(client, transport))) {
            Map<String, Object> result = NodeScenario.start(client, server.url(), transport, "oversize",
                    Map.of("size", 200 * 1024, "options", "{\"maxSendBayeuxMessageSize\":1048576}"))
                    .result(RUN_LIMIT);

            assertThat((String) result.get("refusal")).contains("failed");
            assertThat(result.get("received")).isEqualTo(List.of(Map.of("channel", "/o", "data", Map.of("n", 2L))));
        }
    }

    @ParameterizedTest(name = "{0}, {1} codec, {2}")
    @MethodSource(VARIANTS)
    void receivesAThousandServerMessagesInOrderOnce(String client, String codec, String transport) throws Exception {
        try (InteropServer server = new InteropServer(codec)) {
            NodeScenario run = NodeScenario.start(client, server.url(), transport, "feed",
                    Map.of("channel", "/feed", "count", 1000));
            server.awaitSubscribers("/feed", 1);

            for (int seq = 0; seq < 1000; seq++) {
                server.publish("/feed", Map.of("seq", seq));
            }
            Map<String, Object> result = run.result(RUN_LIMIT);

            assertThat(result).containsEntry("count", 1000L).containsEntry("distinct", 1000L)
                    .containsEntry("outOfOrder", 0L).containsEntry("first", 0L).containsEntry("last", 999L);
        }
    }

    /**
     * A client's own publishes come back in order when they reach the server in order and the server delivers only
     * in connect replies. The CometD JS client sends one request at a time, so publishing all at once keeps their
     * order; Faye posts batches on concurrent requests, so it publishes each after the previous one's reply.
     */
    @ParameterizedTest(name = "{0}, {1} codec, {2}")
    @MethodSource(VARIANTS)
    void ownThousandPublishesComeBackInOrderWithConnectOnlyDelivery(String client, String codec, String transport)
            throws Exception {
        String pace = "cometd-js".equals(client) ? "burst" : "reply";
        try (InteropServer server = new InteropServer(codec, InteropServer::inOrder)) {
            Map<String, Object> result = NodeScenario.start(client, server.url(), transport, "ordered",
                    Map.of("count", 1000, "pace", pace)).result(RUN_LIMIT);

            assertThat(result).containsEntry("count", 1000L).containsEntry("distinct", 1000L)
                    .containsEntry("outOfOrder", 0L).containsEntry("first", 0L).containsEntry("last", 999L);
        }
    }

    @ParameterizedTest(name = "{0}, {1} codec, {2}")
    @MethodSource(VARIANTS)
    void aThousandPublishesAtOnceComeBackOnceEach(String client, String codec, String transport) throws Exception {
        try (InteropServer server = new InteropServer(codec)) {
            Map<String, Object> result = NodeScenario.start(client, server.url(), transport, "ordered",
                    Map.of("count", 1000, "pace", "burst")).result(RUN_LIMIT);

            assertThat(result).containsEntry("count", 1000L).containsEntry("distinct", 1000L);
        }
    }

    /**
     * With the ack extension on both sides, a message whose reply was lost with its connection comes again, once,
     * in order, without a new handshake. (Faye has no ack extension.)
     */
    @ParameterizedTest(name = "{0}, {1} codec, {2}")
    @MethodSource("cometdJs")
    void ackExtensionRedeliversAReplyLostWithItsConnection(String client, String codec, String transport)
            throws Exception {
        try (InteropServer server = new InteropServer(codec, builder -> { }, sessionSurvivesNewSocket(client, transport))) {
            server.engine.addExtension(new AcknowledgedMessagesExtension());
            NodeScenario run = NodeScenario.start(client, server.proxiedUrl(), transport, "feed",
                    Map.of("channel", "/ack/a", "count", 3, "options", "{\"ack\":true}"));
            ServerSession session = server.awaitSubscriber("/ack/a", null);

            server.publishAndLoseTheReply(session, "/ack/a", Map.of("seq", 0));
            server.publish("/ack/a", Map.of("seq", 1));
            server.publish("/ack/a", Map.of("seq", 2));
            Map<String, Object> result = run.resultAfterConnectionsCut(RUN_LIMIT);

            assertThat(result.get("handshakeExt")).isEqualTo(Map.of("ack", true));
            assertThat(result).containsEntry("handshakes", 1L).containsEntry("count", 3L)
                    .containsEntry("distinct", 3L).containsEntry("outOfOrder", 0L).containsEntry("first", 0L)
                    .containsEntry("last", 2L);
        }
    }

    @ParameterizedTest(name = "{0}, {1} codec, {2}")
    @MethodSource("cometdJs")
    void remoteCallIsAnsweredByAService(String client, String codec, String transport) throws Exception {
        try (InteropServer server = new InteropServer(codec)) {
            Map<String, Object> result = NodeScenario.start(client, server.url(), transport, "remote-call")
                    .result(RUN_LIMIT);

            assertThat(result.get("answer")).isEqualTo(Map.of("echo", result.get("sent")));
        }
    }
}
