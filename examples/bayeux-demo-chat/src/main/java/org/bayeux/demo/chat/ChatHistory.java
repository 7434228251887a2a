package org.bayeux.demo.chat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The last messages of each room, for someone who joins late: bounded in messages and in bytes per room, and in
 * rooms (the room least recently written to is forgotten first). Thread-safe: every method holds the instance's lock,
 * and the lists it returns are copies.
 */
public final class ChatHistory {
    /** Messages kept per room by default. */
    public static final int DEFAULT_MAX_MESSAGES = 50;
    /** Bytes (UTF-8 of the sender's name and text, plus {@link #OVERHEAD} each) kept per room by default. */
    public static final int DEFAULT_MAX_BYTES = 32 * 1024;
    /** Rooms with a history by default. */
    public static final int DEFAULT_MAX_ROOMS = 256;
    /** What a message costs besides its name and text (its keys, room, id and time, once encoded). */
    static final int OVERHEAD = 96;

    private final int maxMessages;
    private final int maxBytes;
    private final int maxRooms;
    /** Room → its messages, oldest first; the room written to last is moved to the end, so the first is the oldest. */
    private final LinkedHashMap<String, Room> rooms = new LinkedHashMap<>();

    private static final class Room {
        final Deque<Entry> messages = new ArrayDeque<>();
        long bytes;
    }

    private record Entry(Map<String, Object> message, int bytes) {
    }

    /** With the default bounds. */
    public ChatHistory() {
        this(DEFAULT_MAX_MESSAGES, DEFAULT_MAX_BYTES, DEFAULT_MAX_ROOMS);
    }

    /**
     * @param maxMessages messages kept per room, at least 1
     * @param maxBytes bytes kept per room, at least {@link #OVERHEAD}
     * @param maxRooms rooms with a history, at least 1
     */
    public ChatHistory(int maxMessages, int maxBytes, int maxRooms) {
        if (maxMessages < 1 || maxBytes < OVERHEAD || maxRooms < 1) {
            throw new IllegalArgumentException("chat history bounds: maxMessages=" + maxMessages + ", maxBytes="
                    + maxBytes + ", maxRooms=" + maxRooms);
        }
        this.maxMessages = maxMessages;
        this.maxBytes = maxBytes;
        this.maxRooms = maxRooms;
    }

    /**
     * Keeps a message, dropping the room's oldest ones beyond the bounds. A message larger than the byte bound alone
     * is not kept.
     *
     * @param room the room
     * @param message the message as delivered ({@code type, room, from, text, time, id}); kept as given, never
     *     changed afterwards
     */
    public synchronized void add(String room, Map<String, Object> message) {
        int bytes = sizeOf(message);
        if (bytes > maxBytes) {
            return;
        }
        Room kept = rooms.remove(room);
        if (kept == null) {
            kept = new Room();
        }
        rooms.put(room, kept);
        kept.messages.addLast(new Entry(message, bytes));
        kept.bytes += bytes;
        while (kept.messages.size() > maxMessages || kept.bytes > maxBytes) {
            kept.bytes -= kept.messages.removeFirst().bytes();
        }
        if (rooms.size() > maxRooms) {
            rooms.remove(rooms.keySet().iterator().next());
        }
    }

    /**
     * @param room a room
     * @return its last messages, oldest first (empty when none)
     */
    public synchronized List<Map<String, Object>> recent(String room) {
        // Reading is no use: a silent room that many join still ages out.
        Room kept = rooms.get(room);
        List<Map<String, Object>> messages = new ArrayList<>();
        if (kept != null) {
            for (Entry entry : kept.messages) {
                messages.add(entry.message());
            }
        }
        return messages;
    }

    /** @return how many rooms have a history */
    public synchronized int rooms() {
        return rooms.size();
    }

    /**
     * @param room a room
     * @return the bytes its history counts
     */
    public synchronized long bytes(String room) {
        Room kept = rooms.get(room);
        return kept == null ? 0 : kept.bytes;
    }

    static int sizeOf(Map<String, Object> message) {
        return OVERHEAD + utf8(message.get("from")) + utf8(message.get("text"));
    }

    private static int utf8(Object value) {
        return value instanceof String text ? text.getBytes(StandardCharsets.UTF_8).length : 0;
    }
}
