package org.bayeux.client;

import java.util.Map;

import org.bayeux.api.Message;

/**
 * The server's latest advice: what to do after a reply, and the times that pace the connect loop. Immutable.
 */
final class Advice {
    /** Until the server advises otherwise: the protocol's defaults. */
    static final Advice INITIAL = new Advice(Message.RECONNECT_RETRY, 0, 30_000, 10_000);

    final String reconnect;
    final long intervalMillis;
    final long timeoutMillis;
    final long maxIntervalMillis;

    private Advice(String reconnect, long intervalMillis, long timeoutMillis, long maxIntervalMillis) {
        this.reconnect = reconnect;
        this.intervalMillis = intervalMillis;
        this.timeoutMillis = timeoutMillis;
        this.maxIntervalMillis = maxIntervalMillis;
    }

    /**
     * Takes the fields a reply's advice has, keeping the others: servers that send partial advice (or none) then
     * leave the rest as it was.
     *
     * @param advice a reply's advice object, or null
     * @return the advice now in force
     */
    Advice update(Map<String, Object> advice) {
        if (advice == null) {
            return this;
        }
        Object reconnectValue = advice.get(Message.RECONNECT_FIELD);
        return new Advice(reconnectValue instanceof String ? (String) reconnectValue : reconnect,
                millis(advice, Message.INTERVAL_FIELD, intervalMillis),
                millis(advice, Message.TIMEOUT_FIELD, timeoutMillis),
                millis(advice, Message.MAX_INTERVAL_FIELD, maxIntervalMillis));
    }

    /**
     * @param reply a reply
     * @param otherwise the answer when the reply advises nothing
     * @return the reconnect advice of this reply itself, which governs what follows it
     */
    static String reconnectOf(Message reply, String otherwise) {
        Map<String, Object> advice = reply.getAdvice();
        Object value = advice == null ? null : advice.get(Message.RECONNECT_FIELD);
        return value instanceof String ? (String) value : otherwise;
    }

    private static long millis(Map<String, Object> advice, String field, long otherwise) {
        Object value = advice.get(field);
        if (value instanceof Number) {
            long number = ((Number) value).longValue();
            return number < 0 ? otherwise : number;
        }
        return otherwise;
    }

    /** @return how long the client may stay unconnected before its session must be taken as expired */
    long sessionLifetimeMillis() {
        return timeoutMillis + intervalMillis + maxIntervalMillis;
    }

    @Override
    public String toString() {
        return "{reconnect=" + reconnect + ", interval=" + intervalMillis + ", timeout=" + timeoutMillis
                + ", maxInterval=" + maxIntervalMillis + "}";
    }
}
