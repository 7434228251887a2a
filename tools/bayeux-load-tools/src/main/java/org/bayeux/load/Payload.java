package org.bayeux.load;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The data of a load message: {@code {"id": seq, "t": nanos, "p": "xxx…"}}, padded so that its JSON has about the size
 * asked for. {@code t} is the time the message was <em>scheduled</em> for, on this JVM's {@link System#nanoTime()} clock,
 * so a publisher that falls behind shows as latency instead of hiding it.
 */
final class Payload {
    /** The smallest data: the id, the timestamp and an empty pad, with room for large numbers. */
    static final int MIN_BYTES = 40;
    static final String ID = "id";
    static final String TIME = "t";
    static final String PAD = "p";

    private final String pad;

    /** @param sizeBytes the JSON size of each message's data */
    Payload(int sizeBytes) {
        // {"id":<6 digits>,"t":<15 digits>,"p":""} is 40 characters, typically; the pad brings it to about the size.
        this.pad = "x".repeat(Math.max(0, sizeBytes - MIN_BYTES));
    }

    Map<String, Object> data(long seq, long scheduledNanos) {
        Map<String, Object> data = new LinkedHashMap<>(4);
        data.put(ID, seq);
        data.put(TIME, scheduledNanos);
        data.put(PAD, pad);
        return data;
    }

    /**
     * @return the same data as {@link #data}, as JSON text, for clients that write their messages themselves
     */
    String json(long seq, long scheduledNanos) {
        return "{\"" + ID + "\":" + seq + ",\"" + TIME + "\":" + scheduledNanos + ",\"" + PAD + "\":\"" + pad + "\"}";
    }

    /** @return the message's sequence number, or -1 if the data is not a load message */
    static long seq(Object data) {
        return data instanceof Map<?, ?> map && map.get(ID) instanceof Number id ? id.longValue() : -1;
    }

    /** @return the time the message was scheduled for, or -1 if the data is not a load message */
    static long scheduledNanos(Object data) {
        return data instanceof Map<?, ?> map && map.get(TIME) instanceof Number time ? time.longValue() : -1;
    }
}
