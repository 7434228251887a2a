package org.bayeux.demo.chat;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.Message;
import org.bayeux.api.server.LocalSession;
import org.bayeux.server.BayeuxServerImpl;
import org.bayeux.server.config.BayeuxServerConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The chat service with in-process sessions: the rules the demo page relies on. */
class ChatServiceTest {
    private final BayeuxServerImpl server = new BayeuxServerImpl(BayeuxServerConfig.defaults());
    private final ChatService chat = new ChatService(server, server.presence());

    @AfterEach
    void stop() {
        server.stop();
    }

    private LocalSession named(String name) {
        LocalSession session = server.newLocalSession(name == null ? "anonymous" : name);
        session.handshake(name == null ? null : Map.of("ext", Map.of("chat", Map.of("name", name))), null);
        return session;
    }

    private static BlockingQueue<Message> join(LocalSession session, String room) {
        BlockingQueue<Message> inbox = new LinkedBlockingQueue<>();
        session.getChannel("/chat/room/" + room).subscribe((channel, message) -> inbox.add(message), null);
        return inbox;
    }

    private static Map<String, Object> next(BlockingQueue<Message> inbox) throws InterruptedException {
        Message message = inbox.poll(5, TimeUnit.SECONDS);
        assertThat(message).as("a message within 5 s").isNotNull();
        return message.getDataAsMap();
    }

    private static Map<String, Object> call(LocalSession session, String target, Object data) throws Exception {
        CompletableFuture<Message> answer = new CompletableFuture<>();
        session.remoteCall(target, data, (channel, message) -> answer.complete(message));
        Message message = answer.get(5, TimeUnit.SECONDS);
        return message.isSuccessful() ? message.getDataAsMap() : Map.of("error", message.getError());
    }

    @Test
    void membersOfARoomAreThoseSubscribedWithANameAndEveryoneHearsOfChanges() throws Exception {
        LocalSession ann = named("Ann");
        BlockingQueue<Message> annInbox = join(ann, "lobby");
        assertThat(next(annInbox)).containsEntry("type", "members").containsEntry("members", List.of("Ann"))
                .containsEntry("version", 1L);
        LocalSession bob = named("Bob");
        BlockingQueue<Message> bobInbox = join(bob, "lobby");
        assertThat(next(bobInbox)).containsEntry("members", List.of("Ann", "Bob")).containsEntry("version", 2L);
        assertThat(next(annInbox)).containsEntry("members", List.of("Ann", "Bob")).containsEntry("version", 2L);
        assertThat(chat.members("lobby")).containsExactly("Ann", "Bob");
        assertThat(call(ann, "/service/chat/members", Map.of("room", "lobby")))
                .containsEntry("members", List.of("Ann", "Bob")).containsEntry("version", 2L);

        bob.disconnect();
        assertThat(next(annInbox)).containsEntry("members", List.of("Ann")).containsEntry("version", 3L);
        ann.getChannel("/chat/room/lobby").unsubscribe();
        assertThat(chat.members("lobby")).isEmpty();
    }

    @Test
    void aMessageCarriesTheSendersNameWhateverItClaims() throws Exception {
        LocalSession ann = named("Ann");
        LocalSession bob = named("Bob");
        join(ann, "tea");
        BlockingQueue<Message> bobInbox = join(bob, "tea");
        next(bobInbox);
        ann.getChannel("/chat/room/tea").publish(Map.of("text", "  hello  ", "from", "Mallory"), null);
        assertThat(next(bobInbox)).containsEntry("type", "message").containsEntry("from", "Ann")
                .containsEntry("text", "hello").containsEntry("room", "tea");
    }

    @Test
    void aMessageCarriesTheServersTimeAndAnId() throws Exception {
        LocalSession ann = named("Ann");
        BlockingQueue<Message> annInbox = join(ann, "clock");
        next(annInbox);
        long before = System.currentTimeMillis();
        ann.getChannel("/chat/room/clock").publish(Map.of("text", "tick"), null);
        Map<String, Object> message = next(annInbox);
        assertThat((Long) message.get("time")).isBetween(before, System.currentTimeMillis());
        assertThat(message.get("id")).isInstanceOf(String.class);
    }

    @Test
    void someoneWhoJoinsLateGetsTheRoomsLastMessagesBoundedOldestFirst() throws Exception {
        BayeuxServerImpl small = new BayeuxServerImpl(BayeuxServerConfig.defaults());
        try {
            new ChatService(small, small.presence(), new ChatHistory(3, 100_000, 10));
            LocalSession ann = small.newLocalSession("Ann");
            ann.handshake(Map.of("ext", Map.of("chat", Map.of("name", "Ann"))), null);
            BlockingQueue<Message> annInbox = join(ann, "late");
            assertThat(next(annInbox)).containsEntry("type", "members");
            for (int i = 1; i <= 5; i++) {
                ann.getChannel("/chat/room/late").publish(Map.of("text", "m" + i), null);
                assertThat(next(annInbox)).containsEntry("text", "m" + i);
            }
            LocalSession bob = small.newLocalSession("Bob");
            bob.handshake(Map.of("ext", Map.of("chat", Map.of("name", "Bob"))), null);
            BlockingQueue<Message> bobInbox = join(bob, "late");
            Map<String, Object> history = next(bobInbox);
            assertThat(history).containsEntry("type", "history").containsEntry("room", "late");
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> messages = (List<Map<String, Object>>) history.get("messages");
            assertThat(messages).extracting(m -> m.get("text")).containsExactly("m3", "m4", "m5");
            assertThat(messages).allSatisfy(m -> assertThat(m).containsEntry("from", "Ann")
                    .containsEntry("type", "message").containsKeys("time", "id"));
            assertThat(next(bobInbox)).containsEntry("type", "members").containsEntry("members", List.of("Ann", "Bob"));
            // Only the joiner gets the history: Ann hears the new member list, nothing else.
            assertThat(next(annInbox)).containsEntry("type", "members");
            assertThat(annInbox.poll(200, TimeUnit.MILLISECONDS)).isNull();
            // Asked (as a reloaded page, already in its rooms, does), the same history.
            assertThat(call(ann, "/service/chat/history", Map.of("room", "late"))).isEqualTo(history);
            assertThat(call(ann, "/service/chat/history", Map.of("room", "empty")).get("messages"))
                    .isEqualTo(List.of());
        } finally {
            small.stop();
        }
    }

    @Test
    void aSessionWithoutANameCannotSpeakNorJoinTheMemberList() throws Exception {
        LocalSession anonymous = named(null);
        LocalSession bob = named("Bob");
        BlockingQueue<Message> bobInbox = join(bob, "quiet");
        next(bobInbox);
        join(anonymous, "quiet");
        CompletableFuture<Message> reply = new CompletableFuture<>();
        anonymous.getChannel("/chat/room/quiet").publish(Map.of("text", "hi"), (channel, message) -> reply.complete(message));
        assertThat(reply.get(5, TimeUnit.SECONDS).isSuccessful()).isFalse();
        assertThat(chat.members("quiet")).containsExactly("Bob");
        assertThat(bobInbox.poll(200, TimeUnit.MILLISECONDS)).isNull();
    }

    @Test
    void aPrivateMessageReachesEverySessionOfThatNameOnly() throws Exception {
        LocalSession ann = named("Ann");
        LocalSession bob = named("Bob");
        LocalSession carol = named("Carol");
        BlockingQueue<Message> bobPrivate = new LinkedBlockingQueue<>();
        bob.getChannel("/chat/private").addListener((channel, message) -> bobPrivate.add(message));
        BlockingQueue<Message> carolPrivate = new LinkedBlockingQueue<>();
        carol.getChannel("/chat/private").addListener((channel, message) -> carolPrivate.add(message));
        assertThat(call(ann, "/service/chat/private", Map.of("to", "Bob", "text", "psst")))
                .containsEntry("delivered", 1);
        assertThat(next(bobPrivate)).containsEntry("type", "private").containsEntry("from", "Ann")
                .containsEntry("to", "Bob").containsEntry("text", "psst");
        assertThat(call(ann, "/service/chat/private", Map.of("to", "Nobody", "text", "hello?")))
                .containsEntry("delivered", 0);
        assertThat(call(named(null), "/service/chat/private", Map.of("to", "Bob", "text", "x")))
                .containsEntry("error", "500::service_failed");
        assertThat(carolPrivate).isEmpty();
    }

    @Test
    void namesAndRoomsAreChecked() {
        assertThat(ChatService.roomOf("/chat/room/lobby")).isEqualTo("lobby");
        assertThat(ChatService.roomOf("/chat/room/a/b")).isNull();
        assertThat(ChatService.roomOf("/chat/room/*")).isNull();
        assertThat(ChatService.roomOf("/chat/other")).isNull();
    }
}
