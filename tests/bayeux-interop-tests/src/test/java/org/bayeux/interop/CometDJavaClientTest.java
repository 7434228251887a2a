package org.bayeux.interop;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.server.ServerSession;
import org.bayeux.server.ext.AcknowledgedMessagesExtension;
import org.cometd.bayeux.Message;
import org.cometd.client.BayeuxClient;
import org.cometd.client.ext.AckExtension;
import org.cometd.client.transport.ClientTransport;
import org.cometd.common.JacksonJSONContextClient;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.bayeux.interop.CometDJavaClient.next;

/**
 * The CometD Java client 8.0 against our server, over every transport of {@link Interop#TRANSPORTS}, with both
 * JSON codecs.
 */
class CometDJavaClientTest {
    private static final String VARIANTS = "org.bayeux.interop.Interop#codecsAndTransports";

    @ParameterizedTest(name = "{0} codec, {1}")
    @MethodSource(VARIANTS)
    void handshakesAndConnectsOverTheChosenTransport(String codec, String transport) throws Exception {
        try (InteropServer server = new InteropServer(codec);
             CometDJavaClient client = new CometDJavaClient(server.url(), transport)) {
            String clientId = client.handshake();

            assertThat(clientId).matches("[A-Za-z0-9]{20,}");
            assertThat(client.bayeux.getTransport().getName()).isEqualTo(transport);
            assertThat(client.connectionTypes).containsExactly(transport);
            assertThat(server.engine.getSession(clientId)).isNotNull();
        }
    }

    @ParameterizedTest(name = "{0} codec, {1}")
    @MethodSource(VARIANTS)
    void wildcardSubscriptionsMatchOneOrManySegments(String codec, String transport) throws Exception {
        try (InteropServer server = new InteropServer(codec, InteropServer::inOrder);
             CometDJavaClient client = new CometDJavaClient(server.url(), transport)) {
            client.handshake();
            BlockingQueue<Message> one = client.subscribe("/w/*");
            BlockingQueue<Message> deep = client.subscribe("/w/**");

            for (String channel : List.of("/w", "/w/a", "/w/a/b", "/w/end")) {
                assertThat(client.publish(channel, Map.of("to", channel)).isSuccessful()).isTrue();
            }

            assertThat(channelsUntilEnd(one)).containsExactly("/w/a", "/w/end");
            assertThat(channelsUntilEnd(deep)).containsExactly("/w/a", "/w/a/b", "/w/end");
        }
    }

    @ParameterizedTest(name = "{0} codec, {1}")
    @MethodSource(VARIANTS)
    void publishesAndReceives(String codec, String transport) throws Exception {
        try (InteropServer server = new InteropServer(codec);
             CometDJavaClient client = new CometDJavaClient(server.url(), transport)) {
            client.handshake();
            BlockingQueue<Message> received = client.subscribe("/chat/room");
            Map<String, Object> data = Map.of("text", "hello", "n", 42, "list", List.of(1, "two", true));

            Message reply = client.publish("/chat/room", data);
            Message delivery = next(received);

            assertThat(reply.isSuccessful()).isTrue();
            assertThat(reply.containsKey(Message.DATA_FIELD)).as("a publish reply has no data").isFalse();
            assertThat(delivery.getChannel()).isEqualTo("/chat/room");
            assertThat(CometDJavaClient.dataOf(delivery)).containsEntry("text", "hello")
                    .containsEntry("list", List.of(1L, "two", true));
            assertThat(((Number) delivery.getDataAsMap().get("n")).intValue()).isEqualTo(42);
            assertThat(delivery.getClientId()).as("a delivery carries no clientId").isNull();
        }
    }

    @ParameterizedTest(name = "{0} codec, {1}")
    @MethodSource(VARIANTS)
    void unsubscribedChannelDeliversNoMore(String codec, String transport) throws Exception {
        try (InteropServer server = new InteropServer(codec, InteropServer::inOrder);
             CometDJavaClient client = new CometDJavaClient(server.url(), transport)) {
            client.handshake();
            BlockingQueue<Message> a = client.subscribe("/u/a");
            BlockingQueue<Message> fence = client.subscribe("/u/fence");
            client.publish("/u/a", Map.of("n", 1));
            assertThat(next(a).getDataAsMap()).containsEntry("n", 1L);

            client.unsubscribe("/u/a");
            client.publish("/u/a", Map.of("n", 2));
            client.publish("/u/fence", Map.of("n", 3));

            assertThat(next(fence).getDataAsMap()).containsEntry("n", 3L);
            assertThat(a).as("nothing after the unsubscribe").isEmpty();
            assertThat(server.subscribers("/u/a")).isEmpty();
        }
    }

    @ParameterizedTest(name = "{0} codec, {1}")
    @MethodSource(VARIANTS)
    void disconnectEndsTheSessionOnTheServer(String codec, String transport) throws Exception {
        try (InteropServer server = new InteropServer(codec);
             CometDJavaClient client = new CometDJavaClient(server.url(), transport)) {
            String clientId = client.handshake();
            client.subscribe("/d/a");

            Message reply = client.disconnect();

            assertThat(reply.isSuccessful()).isTrue();
            assertThat(server.awaitRemoved(clientId)).as("expired").isFalse();
            assertThat(client.bayeux.waitFor(10_000, BayeuxClient.State.DISCONNECTED)).isTrue();
            assertThat(server.remoteSessions()).isEmpty();
        }
    }

    @ParameterizedTest(name = "{0} codec, {1}")
    @MethodSource(VARIANTS)
    void serverSideDisconnectStopsTheClient(String codec, String transport) throws Exception {
        try (InteropServer server = new InteropServer(codec);
             CometDJavaClient client = new CometDJavaClient(server.url(), transport)) {
            String clientId = client.handshake();
            ServerSession session = server.engine.getSession(clientId);
            await().atMost(10, TimeUnit.SECONDS).until(() -> server.engine.isConnectHeld(session));

            session.disconnect();

            assertThat(client.bayeux.waitFor(10_000, BayeuxClient.State.DISCONNECTED)).isTrue();
            assertThat(client.clientIds).as("no new handshake").containsExactly(clientId);
        }
    }

    @ParameterizedTest(name = "{0} codec, {1}")
    @MethodSource(VARIANTS)
    void handshakesAgainAfterTheServerExpiredTheSession(String codec, String transport) throws Exception {
        try (InteropServer server = new InteropServer(codec, InteropServer::expiringQuickly);
             CometDJavaClient client = new CometDJavaClient(server.proxiedUrl(), transport)) {
            String first = client.handshake();
            BlockingQueue<Message> received = client.subscribe("/r/a");

            server.expireBehindProxy(server.engine.getSession(first));
            ServerSession second = server.awaitSubscriber("/r/a", first);
            server.publish("/r/a", Map.of("after", "rehandshake"));

            assertThat(next(received).getDataAsMap()).containsEntry("after", "rehandshake");
            assertThat(client.clientIds).containsExactly(first, second.getId());
        }
    }

    @ParameterizedTest(name = "{0} codec, {1}")
    @MethodSource(VARIANTS)
    void carriesA100KiBMessage(String codec, String transport) throws Exception {
        try (InteropServer server = new InteropServer(codec);
             CometDJavaClient client = new CometDJavaClient(server.url(), transport)) {
            client.handshake();
            BlockingQueue<Message> received = client.subscribe("/big");
            String blob = Interop.blob(Interop.LARGE);

            Message reply = client.publish("/big", Map.of("blob", blob));
            assertThat(reply.isSuccessful()).as("publish reply %s", reply.get(Message.ERROR_FIELD)).isTrue();

            assertThat(next(received).getDataAsMap().get("blob")).isEqualTo(blob);
        }
    }

    /**
     * The CometD Java client buffers at most 1 MiB of a response, and fails the whole response (losing its messages)
     * beyond that; 2.5 MB queued at once must come in several responses. (Before the server capped responses, it
     * sent all 25 messages in one and the client received none.)
     */
    @ParameterizedTest(name = "{0} codec, {1}")
    @MethodSource(VARIANTS)
    void receivesMoreThanOneMiBQueuedAtOnce(String codec, String transport) throws Exception {
        try (InteropServer server = new InteropServer(codec);
             CometDJavaClient client = new CometDJavaClient(server.url(), transport)) {
            String clientId = client.handshake();
            BlockingQueue<Message> received = client.subscribe("/big");
            String blob = Interop.blob(Interop.LARGE);

            // The session's batch makes the 25 messages wait in its queue until all are there.
            server.engine.getSession(clientId).batch(() -> {
                for (int i = 0; i < 25; i++) {
                    server.publish("/big", Map.of("i", i, "blob", blob));
                }
            });

            for (long i = 0; i < 25; i++) {
                Map<String, Object> data = next(received).getDataAsMap();
                assertThat(data).containsEntry("i", i);
                assertThat(data.get("blob")).isEqualTo(blob);
            }
        }
    }

    @ParameterizedTest(name = "{0} codec, {1}")
    @MethodSource(VARIANTS)
    void aMessageOverTheSizeLimitIsRefusedAndTheSessionCarriesOn(String codec, String transport) throws Exception {
        try (InteropServer server = new InteropServer(codec, builder -> builder.maxMessageSizeBytes(64 * 1024));
             CometDJavaClient client = new CometDJavaClient(server.url(), transport)) {
            client.handshake();
            BlockingQueue<Message> received = client.subscribe("/o");

            Message refused = client.publish("/o", Map.of("blob", Interop.blob(200 * 1024)));
            Message accepted = client.publish("/o", Map.of("n", 2));

            assertThat(refused.isSuccessful()).isFalse();
            assertThat(accepted.isSuccessful()).isTrue();
            assertThat(next(received).getDataAsMap()).isEqualTo(Map.of("n", 2L));
        }
    }

    @ParameterizedTest(name = "{0} codec, {1}")
    @MethodSource(VARIANTS)
    void receivesAThousandServerMessagesInOrderOnce(String codec, String transport) throws Exception {
        try (InteropServer server = new InteropServer(codec);
             CometDJavaClient client = new CometDJavaClient(server.url(), transport)) {
            client.handshake();
            BlockingQueue<Message> received = client.subscribe("/feed");

            for (int seq = 0; seq < 1000; seq++) {
                server.publish("/feed", Map.of("seq", seq));
            }
            server.publish("/feed", Map.of("seq", "end"));

            assertThat(seqsUntilEnd(received)).isEqualTo(zeroTo(1000));
        }
    }

    /**
     * A client's own publishes come back in order when it publishes one after the other and the server delivers
     * only in connect replies. (With piggy-backed deliveries, as in CometD's default, two responses in flight may
     * be processed by the client in either order; and the CometD Java client sends publishes that do not wait
     * for each other on concurrent requests, which the server may process in any order.)
     */
    @ParameterizedTest(name = "{0} codec, {1}")
    @MethodSource(VARIANTS)
    void ownThousandPublishesComeBackInOrderWithConnectOnlyDelivery(String codec, String transport) throws Exception {
        try (InteropServer server = new InteropServer(codec, InteropServer::inOrder);
             CometDJavaClient client = new CometDJavaClient(server.url(), transport)) {
            client.handshake();
            BlockingQueue<Message> received = client.subscribe("/seq");

            for (int seq = 0; seq < 1000; seq++) {
                assertThat(client.publish("/seq", Map.of("seq", seq)).isSuccessful()).isTrue();
            }
            client.publish("/seq", Map.of("seq", "end"));

            assertThat(seqsUntilEnd(received)).isEqualTo(zeroTo(1000));
        }
    }

    @ParameterizedTest(name = "{0} codec, {1}")
    @MethodSource(VARIANTS)
    void aThousandPublishesAtOnceComeBackOnceEach(String codec, String transport) throws Exception {
        try (InteropServer server = new InteropServer(codec);
             CometDJavaClient client = new CometDJavaClient(server.url(), transport)) {
            client.handshake();
            BlockingQueue<Message> received = client.subscribe("/seq");

            for (int seq = 0; seq < 1000; seq++) {
                client.bayeux.getChannel("/seq").publish(Map.of("seq", seq));
            }
            List<Long> seqs = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                seqs.add((Long) next(received).getDataAsMap().get("seq"));
            }
            server.publish("/seq", Map.of("seq", "end"));

            assertThat(next(received).getDataAsMap()).as("nothing after the 1000th").containsEntry("seq", "end");
            assertThat(seqs).containsExactlyInAnyOrderElementsOf(zeroTo(1000));
        }
    }

    /**
     * With the ack extension on both sides, a message whose reply was lost with its connection comes again, once,
     * in order, without a new handshake.
     */
    @ParameterizedTest(name = "{0} codec, {1}")
    @MethodSource(VARIANTS)
    void ackExtensionRedeliversAReplyLostWithItsConnection(String codec, String transport) throws Exception {
        try (InteropServer server = new InteropServer(codec);
             CometDJavaClient client = new CometDJavaClient(server.proxiedUrl(), transport)) {
            server.engine.addExtension(new AcknowledgedMessagesExtension());
            client.bayeux.addExtension(new AckExtension());
            String clientId = client.handshake();
            BlockingQueue<Message> received = client.subscribe("/ack/a");

            server.publishAndLoseTheReply(server.engine.getSession(clientId), "/ack/a", Map.of("seq", 0));
            server.publish("/ack/a", Map.of("seq", 1));
            server.publish("/ack/a", Map.of("seq", 2));

            for (long seq = 0; seq < 3; seq++) {
                assertThat(next(received).getDataAsMap()).containsEntry("seq", seq);
            }
            server.publish("/ack/a", Map.of("seq", "end"));
            assertThat(next(received).getDataAsMap()).as("nothing twice").containsEntry("seq", "end");
            assertThat(client.clientIds).containsExactly(clientId);
        }
    }

    @ParameterizedTest(name = "{0} codec, {1}")
    @MethodSource(VARIANTS)
    void remoteCallIsAnsweredByAService(String codec, String transport) throws Exception {
        try (InteropServer server = new InteropServer(codec);
             CometDJavaClient client = new CometDJavaClient(server.url(), transport)) {
            client.handshake();
            Map<String, Object> question = new LinkedHashMap<>();
            question.put("question", "ping");
            question.put("n", 7);

            Message answer = client.remoteCall("echo", question);

            assertThat(answer.isSuccessful()).isTrue();
            assertThat(answer.getDataAsMap()).containsOnlyKeys("echo");
            assertThat(answer.getDataAsMap().get("echo")).isEqualTo(Map.of("question", "ping", "n", 7L));
        }
    }

    /** Takes a subscription's messages {seq} up to the one with seq "end", and returns the numbers before it. */
    private static List<Long> seqsUntilEnd(BlockingQueue<Message> queue) {
        List<Long> seqs = new ArrayList<>();
        while (true) {
            Object seq = next(queue).getDataAsMap().get("seq");
            if ("end".equals(seq)) {
                return seqs;
            }
            seqs.add((Long) seq);
        }
    }

    private static List<Long> zeroTo(long end) {
        List<Long> numbers = new ArrayList<>();
        for (long n = 0; n < end; n++) {
            numbers.add(n);
        }
        return numbers;
    }

    /**
     * Arrays of arrays reach the CometD Java client configured with its Jackson JSON context. With its default
     * context, Jetty's AsyncJSON (12.0 and 12.1) throws ClassCastException on an array held directly in an array
     * inside an object, the client fails the whole response and the message is lost: a client bug, documented in
     * docs/interoperability.md, that no server can work around.
     */
    @ParameterizedTest(name = "{0} codec, {1}")
    @MethodSource(VARIANTS)
    void receivesArraysOfArraysWithTheJacksonJsonContext(String codec, String transport) throws Exception {
        Map<String, Object> options = Map.of(ClientTransport.JSON_CONTEXT_OPTION, new JacksonJSONContextClient());
        try (InteropServer server = new InteropServer(codec);
             CometDJavaClient client = new CometDJavaClient(server.url(), transport, options)) {
            client.handshake();
            BlockingQueue<Message> received = client.subscribe("/matrix");

            server.publish("/matrix", Map.of("matrix", List.of(List.of(1, 2), List.of(3))));

            // Jackson gives Integers where the default context gives Longs: compare the text.
            assertThat(String.valueOf(next(received).getDataAsMap().get("matrix"))).isEqualTo("[[1, 2], [3]]");
        }
    }

    /** Drains a subscription's messages up to the one on /w/end, and returns their channels. */
    private static List<String> channelsUntilEnd(BlockingQueue<Message> queue) {
        List<String> channels = new ArrayList<>();
        String channel;
        do {
            channel = next(queue).getChannel();
            channels.add(channel);
        } while (!"/w/end".equals(channel));
        return channels;
    }
}
