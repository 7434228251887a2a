package org.bayeux.jmh;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.bayeux.api.MapMessage;

/**
 * Typical Bayeux traffic, as the benchmarks parse and generate it: what a long-polling client sends to wait for
 * messages, what a chatty client publishes, and what the server delivers. Shared with the tests, which check that
 * both codecs read and write these payloads identically.
 */
public final class BayeuxPayloads {
    /** How many messages the publish and delivery batches hold. */
    public static final int BATCH_SIZE = 10;

    /** A session id as the server makes them: alphanumeric, about 128 random bits. */
    public static final String CLIENT_ID = "3k9v0q2x7m1c8w4z6b5n0p1r";

    /** The chat room the batches use. */
    public static final String CHANNEL = "/chat/room-7";

    private BayeuxPayloads() {
    }

    /** @return the request a long-polling client sends to wait for messages, acknowledging batch 17 */
    public static String connectRequest() {
        return "[{\"channel\":\"/meta/connect\",\"clientId\":\"" + CLIENT_ID + "\",\"connectionType\":\"long-polling\","
                + "\"id\":\"42\",\"ext\":{\"ack\":17}}]";
    }

    /** @return {@link #BATCH_SIZE} chat messages published in one request, each with about 50 bytes of data */
    public static String publishBatch() {
        StringBuilder json = new StringBuilder("[");
        for (int i = 0; i < BATCH_SIZE; i++) {
            if (i > 0) {
                json.append(',');
            }
            json.append("{\"channel\":\"").append(CHANNEL).append("\",\"clientId\":\"").append(CLIENT_ID)
                    .append("\",\"id\":\"").append(43 + i).append("\",\"data\":{\"user\":\"").append(user(i))
                    .append("\",\"text\":\"").append(text(i)).append("\"}}");
        }
        return json.append(']').toString();
    }

    /**
     * @return the messages of {@link #publishBatch()} as the server delivers them: channel and data only (no client
     *         id, no id)
     */
    public static List<Map<String, Object>> deliveryBatch() {
        List<Map<String, Object>> batch = new ArrayList<>(BATCH_SIZE);
        for (int i = 0; i < BATCH_SIZE; i++) {
            Map<String, Object> data = new LinkedHashMap<>();
            data.put("user", user(i));
            data.put("text", text(i));
            MapMessage message = new MapMessage();
            message.put("channel", CHANNEL);
            message.put("data", data);
            batch.add(message);
        }
        return batch;
    }

    /**
     * @param text a payload
     * @return its UTF-8 bytes
     */
    public static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String user(int i) {
        return "user-" + (1000 + i * 37);
    }

    /** A short line of chat, with the odd accent as real chat has; the data object is then about 50 bytes. */
    private static String text(int i) {
        return i % 4 == 3 ? "caf\u00e9 at five? #" + i : "see you at five! #" + i;
    }
}
