package org.bayeux.client;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import org.bayeux.api.Message;
import org.bayeux.client.Clients.Received;
import org.bayeux.client.ext.AckExtension;
import org.bayeux.server.ext.AcknowledgedMessagesExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.bayeux.client.Clients.config;
import static org.bayeux.client.Clients.subscribe;

/**
 * With the {@code ack} extension on both sides, replies lost with their connection cost no message and bring none
 * twice.
 */
class AckTest {
    private static final int MESSAGES = 24;
    private static final int LOSE_EVERY = 4;

    @ParameterizedTest
    @ValueSource(strings = {"websocket", "long-polling"})
    void repliesLostWithTheirConnectionAreSentAgainAndNothingArrivesTwice(String transport) throws Exception {
        try (TestServer server = new TestServer(TestServer::holdingLong, transports -> { },
                engine -> engine.addExtension(new AcknowledgedMessagesExtension()))) {
            BayeuxClient client = new BayeuxClient(config(server.proxiedUrl(), transport).build());
            AckExtension ack = new AckExtension();
            client.addExtension(ack);
            try (client) {
                Clients.connected(client);
                Received received = subscribe(client, "/ack/a");
                assertThat(ack.isServerSupportingAcks()).isTrue();

                for (int n = 0; n < MESSAGES; n++) {
                    if (n % LOSE_EVERY == 1) {
                        server.publishAndLoseTheReply(client.getId(), "/ack/a", Map.of("n", n));
                    } else {
                        server.publish("/ack/a", Map.of("n", n));
                    }
                }
                server.publish("/ack/a", Map.of("n", -1));

                List<Long> numbers = numbersUntilEnd(received);
                assertThat(numbers).containsExactlyElementsOf(
                        LongStream.range(0, MESSAGES).boxed().collect(Collectors.toList()));
                // The last messages may come in the reply of the connect that reconnects, before its success.
                assertThat(client.waitFor(Clients.WAIT, BayeuxClient.State.CONNECTED)).isTrue();
            }
        }
    }

    /** The control: the same cut without the extension loses the message (long-polling, where a reply carries it). */
    @org.junit.jupiter.api.Test
    void withoutTheExtensionALostReplyLosesItsMessage() throws Exception {
        try (TestServer server = new TestServer(TestServer::holdingLong, transports -> { }, engine -> { });
             BayeuxClient client = Clients.connected(config(server.proxiedUrl(), "long-polling").build())) {
            Received received = subscribe(client, "/ack/a");

            server.publish("/ack/a", Map.of("n", 0));
            server.publishAndLoseTheReply(client.getId(), "/ack/a", Map.of("n", 1));
            server.publish("/ack/a", Map.of("n", 2));
            server.publish("/ack/a", Map.of("n", -1));

            assertThat(numbersUntilEnd(received)).containsExactly(0L, 2L);
        }
    }

    private static List<Long> numbersUntilEnd(Received received) throws InterruptedException {
        List<Long> numbers = new ArrayList<>();
        for (int i = 0; i < 2 * MESSAGES + 1; i++) {
            Message message = received.next();
            long n = (Long) message.getDataAsMap().get("n");
            if (n < 0) {
                return numbers;
            }
            numbers.add(n);
        }
        throw new AssertionError("No end among " + numbers);
    }
}
