package org.bayeux.server.ext;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

import org.bayeux.api.Message;
import org.bayeux.api.server.ServerExtension;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;

/**
 * The {@code timesync} extension: lets clients estimate the offset between their clock and the server's. Add it
 * with {@code server.addExtension(new TimesyncExtension())}.
 *
 * <p>A client puts {@code "ext":{"timesync":{"tc":<client ms>,"l":<lag>,"o":<offset>}}} in its meta requests. The
 * server notes the time {@code ts} at which the request arrived and, in the reply, answers
 * {@code "ext":{"timesync":{"tc":tc,"ts":ts,"p":p,"a":a}}}: {@code p} is how long the server kept the request (for
 * a held connect, the hold) and {@code a = tc + o + l - ts} is how far the client's estimate is off. The answer is
 * given only when {@code l} is 0 or {@code |a|} is at least {@value #ACCURACY_THRESHOLD_MILLIS} ms: a client whose
 * estimate is already good gets nothing. A request without {@code l} gets {@code {tc,ts,p}}.</p>
 */
public final class TimesyncExtension implements ServerExtension {
    /** The name of the extension field in {@code ext}. */
    public static final String TIMESYNC_FIELD = "timesync";
    /** The smallest error, in milliseconds, that is worth an answer to a client that has an estimate. */
    public static final long ACCURACY_THRESHOLD_MILLIS = 25;

    private static final String CLIENT_TIME = "tc";
    private static final String SERVER_TIME = "ts";
    private static final String LAG = "l";
    private static final String OFFSET = "o";
    private static final String KEPT = "p";
    private static final String ERROR = "a";

    private final LongSupplier clockMillis;

    /** Creates the extension on the system clock. */
    public TimesyncExtension() {
        this(System::currentTimeMillis);
    }

    /**
     * @param clockMillis the server's clock, in milliseconds since the epoch (tests pass a fixed one)
     */
    TimesyncExtension(LongSupplier clockMillis) {
        this.clockMillis = clockMillis;
    }

    /**
     * Notes the arrival time of a meta request that asks for timesync, in the request itself.
     *
     * @param session the sending session, or null for a handshake
     * @param message an incoming meta message
     * @return always true
     */
    @Override
    public boolean rcvMeta(ServerSession session, ServerMessage.Mutable message) {
        Map<String, Object> ext = message.getExt();
        Map<String, Object> timesync = ext == null ? null : asMap(ext.get(TIMESYNC_FIELD));
        if (timesync == null) {
            return true;
        }
        long arrived = clockMillis.getAsLong();
        // Copies, because the parsed objects may not be changeable; a ts sent by the client is overwritten.
        Map<String, Object> noted = new HashMap<>(timesync);
        noted.put(SERVER_TIME, arrived);
        Map<String, Object> newExt = new HashMap<>(ext);
        newExt.put(TIMESYNC_FIELD, noted);
        message.put(Message.EXT_FIELD, newExt);
        return true;
    }

    /**
     * Answers timesync in the reply to a request that asked for it.
     *
     * @param receiver the receiving session, or null
     * @param message an outgoing meta reply
     * @return always true
     */
    @Override
    public boolean sendMeta(ServerSession receiver, ServerMessage.Mutable message) {
        ServerMessage request = message.getAssociated();
        Map<String, Object> ext = request == null ? null : request.getExt();
        Map<String, Object> timesync = ext == null ? null : asMap(ext.get(TIMESYNC_FIELD));
        if (timesync == null) {
            return true;
        }
        Object clientTime = timesync.get(CLIENT_TIME);
        Object arrivedField = timesync.get(SERVER_TIME);
        if (!(clientTime instanceof Number) || !(arrivedField instanceof Number)) {
            return true;
        }
        long tc = millis((Number) clientTime);
        long ts = millis((Number) arrivedField);
        Map<String, Object> answer = new LinkedHashMap<>(8);
        answer.put(CLIENT_TIME, clientTime);
        answer.put(SERVER_TIME, ts);
        answer.put(KEPT, clockMillis.getAsLong() - ts);
        Object lagField = timesync.get(LAG);
        if (lagField instanceof Number) {
            long lag = millis((Number) lagField);
            Object offsetField = timesync.get(OFFSET);
            long offset = offsetField instanceof Number ? millis((Number) offsetField) : 0;
            long error = tc + offset + lag - ts;
            if (lag != 0 && Math.abs(error) < ACCURACY_THRESHOLD_MILLIS) {
                return true;
            }
            answer.put(ERROR, error);
        }
        message.getExt(true).put(TIMESYNC_FIELD, answer);
        return true;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> asMap(Object value) {
        return value instanceof Map ? (Map<String, Object>) value : null;
    }

    /** Clients send whole milliseconds, but a lag computed as a half may arrive with a fraction. */
    private static long millis(Number value) {
        if (value instanceof Double || value instanceof Float) {
            return Math.round(value.doubleValue());
        }
        return value.longValue();
    }
}
