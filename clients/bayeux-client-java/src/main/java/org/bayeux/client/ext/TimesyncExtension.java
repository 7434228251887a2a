package org.bayeux.client.ext;

import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;

import org.bayeux.api.Message;
import org.bayeux.api.client.ClientSession;

/**
 * The client side of the {@code timesync} extension: estimates how far the server's clock is from this one, from
 * the times stamped on meta messages, so that the application can read the server's time.
 *
 * <p>Each meta request carries {@code "ext":{"timesync":{"tc":<now>,"l":<lag>,"o":<offset>}}}; a server with the
 * extension answers with {@code tc}, the time it got the request {@code ts}, and the time it kept it {@code p}.
 * Then {@code lag = (now - tc - p) / 2} and {@code offset = ts - tc - lag}; the estimates are the means of the last
 * {@value #SAMPLES} answers.</p>
 */
public final class TimesyncExtension implements ClientSession.Extension {
    /** The extension's field in {@code ext}. */
    public static final String TIMESYNC_FIELD = "timesync";
    /** How many answers the estimates average. */
    public static final int SAMPLES = 10;

    private final LongSupplier clockMillis;
    private final long[] lags = new long[SAMPLES];
    private final long[] offsets = new long[SAMPLES];
    private int count;
    private int next;
    private long lag;
    private long offset;

    /** Creates the extension on the system clock. */
    public TimesyncExtension() {
        this(System::currentTimeMillis);
    }

    /**
     * @param clockMillis this side's clock, in milliseconds since the epoch
     */
    public TimesyncExtension(LongSupplier clockMillis) {
        this.clockMillis = clockMillis;
    }

    @Override
    public boolean sendMeta(ClientSession session, Message.Mutable message) {
        Map<String, Object> timesync = new HashMap<>(4);
        timesync.put("tc", clockMillis.getAsLong());
        synchronized (this) {
            timesync.put("l", lag);
            timesync.put("o", offset);
        }
        message.getExt(true).put(TIMESYNC_FIELD, timesync);
        return true;
    }

    @Override
    public boolean rcvMeta(ClientSession session, Message.Mutable message) {
        Map<String, Object> ext = message.getExt();
        Object value = ext == null ? null : ext.get(TIMESYNC_FIELD);
        if (!(value instanceof Map)) {
            return true;
        }
        Map<?, ?> timesync = (Map<?, ?>) value;
        Object tc = timesync.get("tc");
        Object ts = timesync.get("ts");
        Object p = timesync.get("p");
        if (tc instanceof Number && ts instanceof Number && p instanceof Number) {
            long now = clockMillis.getAsLong();
            long sampleLag = (now - ((Number) tc).longValue() - ((Number) p).longValue()) / 2;
            long sampleOffset = ((Number) ts).longValue() - ((Number) tc).longValue() - sampleLag;
            record(Math.max(0, sampleLag), sampleOffset);
        }
        return true;
    }

    private synchronized void record(long sampleLag, long sampleOffset) {
        lags[next] = sampleLag;
        offsets[next] = sampleOffset;
        next = (next + 1) % SAMPLES;
        count = Math.min(count + 1, SAMPLES);
        long lagSum = 0;
        long offsetSum = 0;
        for (int i = 0; i < count; i++) {
            lagSum += lags[i];
            offsetSum += offsets[i];
        }
        lag = lagSum / count;
        offset = offsetSum / count;
    }

    /** @return the estimated difference server clock minus this clock, in milliseconds (0 before any answer) */
    public synchronized long getOffset() {
        return offset;
    }

    /** @return the estimated one-way network delay, in milliseconds (0 before any answer) */
    public synchronized long getLag() {
        return lag;
    }

    /** @return the estimated time on the server's clock now, in milliseconds since the epoch */
    public long getServerTime() {
        return clockMillis.getAsLong() + getOffset();
    }

    /** @return how many answers the estimates rest on, up to {@value #SAMPLES} */
    public synchronized int getSamples() {
        return count;
    }
}
