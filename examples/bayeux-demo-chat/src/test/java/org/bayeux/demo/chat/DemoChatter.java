package org.bayeux.demo.chat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.bayeux.api.Message;
import org.bayeux.client.BayeuxClient;
import org.bayeux.client.BayeuxClientConfig;
import org.bayeux.client.transport.ClientTransport;
import org.bayeux.standalone.StandaloneServer;

/**
 * One chat client of the clustered demo's tests (our Java client, as the page uses the chat): its room messages, its
 * newest member list (by version), its private messages; and the conversation both clustered demos must pass.
 */
final class DemoChatter implements AutoCloseable {
    static final Duration WAIT = Duration.ofSeconds(20);

    final BayeuxClient client;
    final BlockingQueue<Map<String, Object>> said = new LinkedBlockingQueue<>();
    final BlockingQueue<Map<String, Object>> privately = new LinkedBlockingQueue<>();
    final AtomicReference<Map<String, Object>> members = new AtomicReference<>(Map.of("version", -1L));

    DemoChatter(StandaloneServer node, String name, String transport) throws Exception {
        client = new BayeuxClient(BayeuxClientConfig.builder("http://127.0.0.1:" + node.getPort() + "/bayeux")
                .transports(transport).build());
        Message shaken = client.handshakeAsync(Map.of("ext", Map.of("chat", Map.of("name", name))))
                .get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(shaken.isSuccessful()).isTrue();
        client.getChannel("/chat/private").addListener((channel, message) -> privately.add(message.getDataAsMap()));
        Message subscribed = client.getChannel("/chat/room/lobby").subscribeAsync((channel, message) -> {
            Map<String, Object> data = message.getDataAsMap();
            if ("members".equals(data.get("type"))) {
                // As the page does: keep the list of the highest version.
                members.accumulateAndGet(data, (old, fresh) -> ((Number) fresh.get("version")).longValue()
                        > ((Number) old.get("version")).longValue() ? fresh : old);
            } else {
                said.add(data);
            }
        }).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(subscribed.isSuccessful()).isTrue();
    }

    private static List<Object> texts(List<Map<String, Object>> messages) {
        return messages.stream().map(m -> m.get("text")).toList();
    }

    Object memberList() {
        return members.get().get("members");
    }

    @Override
    public void close() {
        client.close();
    }

    /**
     * Ann on node a (WebSocket) and Bob on node b (long-polling): one member list on both, each room message once on
     * both, a private message from a to b; then Bob disconnects and leaves Ann's list. Returns with Ann connected.
     *
     * @return Ann, still connected, for more checks
     */
    static DemoChatter converse(StandaloneServer a, StandaloneServer b) throws Exception {
        DemoChatter ann = new DemoChatter(a, "Ann", ClientTransport.WEBSOCKET);
        try (DemoChatter bob = new DemoChatter(b, "Bob", ClientTransport.LONG_POLLING)) {
            await("one member list on both nodes").atMost(WAIT).untilAsserted(() -> {
                assertThat(ann.memberList()).isEqualTo(List.of("Ann", "Bob"));
                assertThat(bob.memberList()).isEqualTo(List.of("Ann", "Bob"));
            });
            assertThat(DemoNodes.chatOf(a).chat().members("lobby")).containsExactly("Ann", "Bob");
            assertThat(DemoNodes.chatOf(b).chat().members("lobby")).containsExactly("Ann", "Bob");
            Message answer = bob.client.remoteCallAsync("/service/chat/members", Map.of("room", "lobby"), WAIT)
                    .get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(answer.getDataAsMap()).containsEntry("members", List.of("Ann", "Bob"));

            assertThat(ann.client.getChannel("/chat/room/lobby").publishAsync(Map.of("text", "hi Bob"))
                    .get(WAIT.toMillis(), TimeUnit.MILLISECONDS).isSuccessful()).isTrue();
            assertThat(bob.said.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS)).containsEntry("type", "message")
                    .containsEntry("from", "Ann").containsEntry("text", "hi Bob");
            assertThat(ann.said.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS)).containsEntry("from", "Ann");
            // Both nodes keep it (b from the cluster's forward), before the next one, so that their order is known.
            await("the first message in both histories").atMost(WAIT).until(() ->
                    texts(DemoNodes.chatOf(a).chat().history().recent("lobby")).equals(List.of("hi Bob"))
                    && texts(DemoNodes.chatOf(b).chat().history().recent("lobby")).equals(List.of("hi Bob")));
            assertThat(bob.client.getChannel("/chat/room/lobby").publishAsync(Map.of("text", "hi Ann"))
                    .get(WAIT.toMillis(), TimeUnit.MILLISECONDS).isSuccessful()).isTrue();
            assertThat(ann.said.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS)).containsEntry("from", "Bob")
                    .containsEntry("text", "hi Ann");
            assertThat(bob.said.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS)).containsEntry("from", "Bob");

            Message sent = ann.client.remoteCallAsync("/service/chat/private", Map.of("to", "Bob", "text",
                    "psst"), WAIT).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(((Number) sent.getDataAsMap().get("delivered")).intValue()).isEqualTo(1);
            assertThat(bob.privately.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS))
                    .containsEntry("type", "private").containsEntry("from", "Ann").containsEntry("text", "psst");
            Message back = bob.client.remoteCallAsync("/service/chat/private", Map.of("to", "Ann", "text",
                    "hush"), WAIT).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(((Number) back.getDataAsMap().get("delivered")).intValue()).isEqualTo(1);
            assertThat(ann.privately.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS))
                    .containsEntry("from", "Bob").containsEntry("text", "hush");

            assertThat(bob.client.disconnectAsync().get(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isNotNull();
            await("Bob left the list on Ann's node").atMost(WAIT)
                    .untilAsserted(() -> assertThat(ann.memberList()).isEqualTo(List.of("Ann")));
            assertThat(ann.said).as("each message once").isEmpty();
            assertThat(ann.privately).isEmpty();
            assertThat(bob.privately).as("each private message once").isEmpty();

            // Someone who joins late, on either node, gets the room's last messages, whichever node they were sent on.
            await("both messages in both histories").atMost(WAIT).until(() ->
                    texts(DemoNodes.chatOf(a).chat().history().recent("lobby")).equals(List.of("hi Bob", "hi Ann"))
                    && texts(DemoNodes.chatOf(b).chat().history().recent("lobby")).equals(List.of("hi Bob", "hi Ann")));
            try (DemoChatter carol = new DemoChatter(b, "Carol", ClientTransport.LONG_POLLING)) {
                Map<String, Object> history = carol.said.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                assertThat(history).containsEntry("type", "history").containsEntry("room", "lobby");
                @SuppressWarnings("unchecked")
                List<Map<String, Object>> messages = (List<Map<String, Object>>) history.get("messages");
                assertThat(texts(messages)).containsExactly("hi Bob", "hi Ann");
                assertThat(messages).extracting(m -> m.get("from")).containsExactly("Ann", "Bob");
                assertThat(carol.client.disconnectAsync().get(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isNotNull();
            }
            await("Carol left the list on Ann's node").atMost(WAIT)
                    .untilAsserted(() -> assertThat(ann.memberList()).isEqualTo(List.of("Ann")));
            assertThat(ann.said).as("the history only to the joiner").isEmpty();
            return ann;
        } catch (Exception | AssertionError failure) {
            ann.close();
            throw failure;
        }
    }
}
