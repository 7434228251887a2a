package org.bayeux.demo.chat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** The rooms' last messages: bounded in messages, bytes and rooms, oldest dropped first. */
class ChatHistoryTest {
    private static Map<String, Object> message(String room, String text) {
        return Map.of("type", "message", "room", room, "from", "Ann", "text", text, "time", 1L, "id", text);
    }

    private static List<Object> texts(List<Map<String, Object>> messages) {
        return messages.stream().map(m -> m.get("text")).toList();
    }

    @Test
    void keepsTheLastMessagesOfARoomByCount() {
        ChatHistory history = new ChatHistory(3, 1_000_000, 10);
        for (int i = 1; i <= 5; i++) {
            history.add("lobby", message("lobby", "m" + i));
        }
        assertThat(texts(history.recent("lobby"))).containsExactly("m3", "m4", "m5");
        assertThat(history.recent("elsewhere")).isEmpty();
    }

    @Test
    void keepsTheLastMessagesOfARoomByBytes() {
        int one = ChatHistory.sizeOf(message("lobby", "x".repeat(100)));
        ChatHistory history = new ChatHistory(50, 2 * one + one / 2, 10);
        for (int i = 0; i < 5; i++) {
            history.add("lobby", message("lobby", Integer.toString(i).repeat(100)));
        }
        assertThat(texts(history.recent("lobby"))).containsExactly("3".repeat(100), "4".repeat(100));
        assertThat(history.bytes("lobby")).isEqualTo(2L * one);
        // Counted in UTF-8: 100 "é" are 200 bytes.
        assertThat(ChatHistory.sizeOf(message("lobby", "é".repeat(100)))).isEqualTo(one + 100);
    }

    @Test
    void aMessageLargerThanTheBoundAloneIsNotKeptAndDropsNothing() {
        ChatHistory history = new ChatHistory(50, ChatHistory.OVERHEAD + 200, 10);
        history.add("lobby", message("lobby", "short"));
        history.add("lobby", message("lobby", "y".repeat(500)));
        assertThat(texts(history.recent("lobby"))).containsExactly("short");
    }

    @Test
    void forgetsTheRoomWrittenToLeastRecentlyBeyondTheRoomBound() {
        ChatHistory history = new ChatHistory(50, 100_000, 2);
        history.add("a", message("a", "1"));
        history.add("b", message("b", "2"));
        history.add("a", message("a", "3"));
        history.recent("b"); // reading is no use
        history.add("c", message("c", "4"));
        assertThat(history.rooms()).isEqualTo(2);
        assertThat(history.recent("b")).isEmpty();
        assertThat(texts(history.recent("a"))).containsExactly("1", "3");
        assertThat(texts(history.recent("c"))).containsExactly("4");
    }

    @Test
    void returnsCopiesAndChecksItsBounds() {
        ChatHistory history = new ChatHistory();
        history.add("a", message("a", "1"));
        history.recent("a").clear();
        assertThat(history.recent("a")).hasSize(1);
        assertThatThrownBy(() -> new ChatHistory(0, 1000, 1)).hasMessageContaining("maxMessages=0");
        assertThatThrownBy(() -> new ChatHistory(1, 1, 1)).hasMessageContaining("maxBytes=1");
    }
}
