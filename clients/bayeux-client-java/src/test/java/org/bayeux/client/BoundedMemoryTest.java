package org.bayeux.client;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.Message;
import org.bayeux.api.server.ServerSession;
import org.bayeux.client.Clients.Received;
import org.bayeux.client.ext.AckExtension;
import org.bayeux.server.config.BayeuxServerConfig;
import org.bayeux.server.ext.AcknowledgedMessagesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.bayeux.client.Clients.config;
import static org.bayeux.client.Clients.connected;

/**
 * A slow listener makes messages wait on the server, not in the client; the server's queue limit then decides. A
 * client that sends faster than it gets replies is stopped at {@code maxPendingMessages}.
 */
class BoundedMemoryTest {
    private static final int MESSAGES = 200;

    @ParameterizedTest
    @ValueSource(strings = {"websocket", "long-polling"})
    void whileAListenerIsBusyTheMessagesWaitOnTheServer(String transport) throws Exception {
        try (TestServer server = new TestServer(TestServer::holdingLong, transports -> { },
                engine -> engine.addExtension(new AcknowledgedMessagesExtension()))) {
            BayeuxClient client = new BayeuxClient(config(server.url(), transport).build());
            client.addExtension(new AckExtension());
            try (client) {
                connected(client);
                SlowListener slow = new SlowListener();
                Clients.await(client.getChannel("/slow/a").subscribeAsync(slow));
                ServerSession session = server.engine().getSession(client.getId());

                server.publish("/slow/a", Map.of("n", 0));
                assertThat(slow.busy.await(Clients.WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
                for (int n = 1; n < MESSAGES; n++) {
                    server.publish("/slow/a", Map.of("n", n));
                }

                assertThat(session.getQueueSize()).as("every later message waits on the server")
                        .isEqualTo(MESSAGES - 1);
                slow.release.countDown();
                await().atMost(Clients.WAIT).until(() -> slow.received.size() == MESSAGES);
                List<Long> expected = new ArrayList<>();
                for (long n = 0; n < MESSAGES; n++) {
                    expected.add(n);
                }
                assertThat(slow.received).containsExactlyElementsOf(expected);
            }
        }
    }

    @Test
    void aListenerTooSlowForTheServersQueueLimitMakesTheClientHandshakeAgain() throws Exception {
        try (TestServer server = new TestServer(engine -> TestServer.holdingLong(engine.maxQueue(50)
                .maxQueuePolicy(BayeuxServerConfig.MaxQueuePolicy.DISCONNECT)), transports -> { }, engine -> { });
             BayeuxClient client = connected(config(server.url(), "long-polling").build())) {
            SlowListener slow = new SlowListener();
            Clients.await(client.getChannel("/slow/b").subscribeAsync(slow));
            String first = client.getId();

            server.publish("/slow/b", Map.of("n", 0));
            assertThat(slow.busy.await(Clients.WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
            for (int n = 1; n <= 60; n++) {
                server.publish("/slow/b", Map.of("n", n));
            }
            await().atMost(Clients.WAIT).until(() -> server.engine().getSession(first) == null);
            slow.release.countDown();

            await().atMost(Clients.WAIT).until(() -> client.isConnected() && !first.equals(client.getId()));
            assertThat(server.subscribers("/slow/b")).hasSize(1);
        }
    }

    @Test
    void sendingFasterThanRepliesComeStopsAtMaxPendingMessages() throws Exception {
        try (TestServer server = new TestServer();
             BayeuxClient client = connected(config(server.proxiedUrl(), "long-polling").maxPendingMessages(5)
                     .build())) {
            Received received = Clients.subscribe(client, "/fast/a");
            List<CompletableFuture<Message>> replies = new ArrayList<>();

            server.proxy().pause();
            try {
                for (int n = 0; n < 8; n++) {
                    replies.add(client.getChannel("/fast/a").publishAsync(Map.of("n", n)));
                }
                for (int n = 5; n < 8; n++) {
                    assertThat(replies.get(n)).as("refused at once").isCompleted();
                    assertThat(replies.get(n).join().getError()).isEqualTo(ClientErrors.TOO_MANY_PENDING);
                }
                assertThat(replies.subList(0, 5)).noneMatch(CompletableFuture::isDone);
            } finally {
                server.proxy().resume();
            }

            for (int n = 0; n < 5; n++) {
                assertThat(Clients.await(replies.get(n)).isSuccessful()).isTrue();
            }
            // Over long-polling each publish is a request of its own: they may arrive in any order.
            List<Object> numbers = new ArrayList<>();
            for (int n = 0; n < 5; n++) {
                numbers.add(received.next().getDataAsMap().get("n"));
            }
            assertThat(numbers).containsExactlyInAnyOrder(0L, 1L, 2L, 3L, 4L);
        }
    }

    /** Takes its first message and keeps the client's thread until released, as slow application code would. */
    private static final class SlowListener implements org.bayeux.api.client.ClientSessionChannel.MessageListener {
        final CountDownLatch busy = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final List<Long> received = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public void onMessage(org.bayeux.api.client.ClientSessionChannel channel, Message message) {
            received.add((Long) message.getDataAsMap().get("n"));
            busy.countDown();
            try {
                if (!release.await(Clients.WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                    throw new IllegalStateException("Never released");
                }
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
