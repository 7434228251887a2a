package org.bayeux.server.test;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What the engine answered to one batch: a status as an HTTP transport would map it, and the messages.
 */
public final class TestResponse {
    /** The engine answered normally. */
    public static final int OK = 200;
    /** The batch as a whole was refused. */
    public static final int BAD_REQUEST = 400;
    /** A held connect was superseded by a newer one. */
    public static final int SUPERSEDED = 500;

    private final int status;
    private final List<Map<String, Object>> messages;
    private final String text;

    TestResponse(int status, List<Map<String, Object>> messages, String text) {
        this.status = status;
        this.messages = messages;
        this.text = text;
    }

    /** @return the status */
    public int status() {
        return status;
    }

    /** @return the messages, in order, as parsed from the JSON the engine produced */
    public List<Map<String, Object>> messages() {
        return messages;
    }

    /** @return the raw JSON (or the error text of a bad batch) */
    public String text() {
        return text;
    }

    /**
     * @param channel a channel name
     * @return the messages on that channel
     */
    public List<Map<String, Object>> on(String channel) {
        return messages.stream().filter(m -> channel.equals(m.get("channel"))).collect(Collectors.toList());
    }

    /**
     * @param channel a channel name
     * @return the only message on that channel
     * @throws AssertionError if there is not exactly one
     */
    public Map<String, Object> single(String channel) {
        List<Map<String, Object>> found = on(channel);
        if (found.size() != 1) {
            throw new AssertionError("Expected one message on " + channel + " in " + text);
        }
        return found.get(0);
    }

    /** @return the deliveries: messages with data and no successful field */
    public List<Map<String, Object>> deliveries() {
        return messages.stream().filter(m -> m.containsKey("data") && !m.containsKey("successful"))
                .collect(Collectors.toList());
    }

    @Override
    public String toString() {
        return status + " " + text;
    }
}
