package org.bayeux.interop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.stream.Stream;

import org.cometd.bayeux.Message;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Messages between different clients through our server: for each ordered pair of the CometD Java client, the
 * CometD JavaScript client and Faye, one publishes and the other receives, over every transport and both codecs. The
 * data holds non-ASCII and astral characters, escapes and every JSON type, and must arrive unchanged.
 */
class CrossClientTest {
    private static final Duration RUN_LIMIT = Duration.ofSeconds(60);
    /**
     * Every punctuation character of the Bayeux 1.0 channel grammar, which all three clients accept. (The server,
     * like CometD's, also accepts space # + . { }; a Faye client dies on a message on such a channel, see
     * docs/interoperability.md.)
     */
    private static final String CHANNEL = "/cross/room-1_a!b~c(d)e$f@g";
    private static final int COUNT = 3;
    /** The same as TRICKY_TEXT in node/lib/scenarios.mjs: what JSON encoders get wrong. */
    private static final String TRICKY_TEXT =
            "h\u00e9llo \u2603 \ud83d\ude00 \u2028\u2029 \u0001\u001f \"q\" \\ </script> \t\n";
    /** The same as TRICKY_LIST there, as a JSON parser in Java gives it back. */
    private static final List<Object> TRICKY_LIST = Arrays.asList(1L, 1.5, -2L, true, false, null, Map.of(),
            Map.of("empty", List.of()), "x");

    /** @return (publisher, receiver, codec, transport) for every ordered pair of different clients */
    static Stream<Arguments> pairs() {
        return Interop.CLIENTS.stream().flatMap(publisher -> Interop.CLIENTS.stream()
                .filter(receiver -> !receiver.equals(publisher))
                .flatMap(receiver -> Interop.codecsAndTransports().map(variant ->
                        Arguments.of(publisher, receiver, variant.get()[0], variant.get()[1]))));
    }

    @ParameterizedTest(name = "{0} to {1}, {2} codec, {3}")
    @MethodSource("pairs")
    void messagesPublishedByOneClientReachAnother(String publisher, String receiver, String codec, String transport)
            throws Exception {
        try (InteropServer server = new InteropServer(codec)) {
            Receiving receiving = receive(receiver, server.url(), transport, CHANNEL, COUNT);
            try {
                server.awaitSubscribers(CHANNEL, 1);

                send(publisher, server.url(), transport);

                List<Object> expected = new ArrayList<>();
                for (long seq = 0; seq < COUNT; seq++) {
                    expected.add(Map.of("channel", CHANNEL, "data", data(publisher, seq)));
                }
                assertThat(receiving.messages()).isEqualTo(expected);
            } finally {
                receiving.close();
            }
        }
    }

    /** The CometD JS client cannot send 100 KiB by default, but receives it: here from the CometD Java client. */
    @ParameterizedTest(name = "{0} codec, {1}")
    @MethodSource("org.bayeux.interop.Interop#codecsAndTransports")
    void a100KiBMessageFromTheJavaClientReachesBothJavaScriptClients(String codec, String transport) throws Exception {
        try (InteropServer server = new InteropServer(codec)) {
            List<NodeScenario> receivers = new ArrayList<>();
            for (String client : Interop.NODE_CLIENTS) {
                receivers.add(NodeScenario.start(client, server.url(), transport, "receive",
                        Map.of("channel", "/big", "count", 1)));
            }
            server.awaitSubscribers("/big", receivers.size());
            String blob = Interop.blob(Interop.LARGE);

            try (CometDJavaClient java = new CometDJavaClient(server.url(), transport)) {
                java.handshake();
                assertThat(java.publish("/big", Map.of("blob", blob)).isSuccessful()).isTrue();
            }

            for (NodeScenario receiver : receivers) {
                assertThat(receiver.result(RUN_LIMIT).get("received")).isEqualTo(
                        List.of(Map.of("channel", "/big", "data", Map.of("blob", Interop.summary(blob)))));
            }
        }
    }

    private static Map<String, Object> data(String from, long seq) {
        return Map.of("from", from, "seq", seq, "text", TRICKY_TEXT, "list", TRICKY_LIST);
    }

    private static void send(String client, String url, String transport) throws Exception {
        if (CometDJavaClient.NAME.equals(client)) {
            try (CometDJavaClient java = new CometDJavaClient(url, transport)) {
                java.handshake();
                for (long seq = 0; seq < COUNT; seq++) {
                    assertThat(java.publish(CHANNEL, data(client, seq)).isSuccessful()).isTrue();
                }
                java.disconnect();
            }
        } else {
            NodeScenario.start(client, url, transport, "send", Map.of("channel", CHANNEL, "count", COUNT))
                    .result(RUN_LIMIT);
        }
    }

    private static Receiving receive(String client, String url, String transport, String channel, int count)
            throws Exception {
        if (CometDJavaClient.NAME.equals(client)) {
            CometDJavaClient java = new CometDJavaClient(url, transport);
            java.handshake();
            BlockingQueue<Message> queue = java.subscribe(channel);
            return new Receiving() {
                @Override
                public List<Object> messages() {
                    List<Object> messages = new ArrayList<>();
                    for (int i = 0; i < count; i++) {
                        Message message = CometDJavaClient.next(queue);
                        messages.add(Map.of("channel", message.getChannel(), "data", CometDJavaClient.dataOf(message)));
                    }
                    return messages;
                }

                @Override
                public void close() {
                    java.close();
                }
            };
        }
        NodeScenario run = NodeScenario.start(client, url, transport, "receive",
                Map.of("channel", channel, "count", count));
        return new Receiving() {
            @Override
            @SuppressWarnings("unchecked")
            public List<Object> messages() {
                return (List<Object>) run.result(RUN_LIMIT).get("received");
            }

            @Override
            public void close() {
                run.kill();
            }
        };
    }

    /** A receiving client, in this JVM or in a Node.js process. */
    private interface Receiving extends AutoCloseable {
        /** @return the messages received, as {channel, data} maps, once all are in */
        List<Object> messages();

        @Override
        void close();
    }
}
