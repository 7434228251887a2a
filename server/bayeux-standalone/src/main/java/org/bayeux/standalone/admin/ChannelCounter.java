package org.bayeux.standalone.admin;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import org.bayeux.api.server.ChannelMessageListener;
import org.bayeux.api.server.ServerChannel;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;

/**
 * Counts the messages published on this node per channel, for the busiest channels of each interval: a message
 * listener on {@code /**}, added only while an admin session watches. Per publish: one map look-up and one adder
 * increment. The adders are running totals, never reset while counting, and an interval's figure is the difference
 * from the previous drain (so no increment falls between two intervals). Bounded: at most {@value #MAX_CHANNELS}
 * channels are counted apart, later ones together as {@code other}; a drain that finds the bound reached starts the
 * map again (for channels that come and go), and the publishes of that interval's last moments may be missed.
 */
final class ChannelCounter implements ChannelMessageListener {
    /** The most channels counted apart. */
    static final int MAX_CHANNELS = 1000;

    private volatile ConcurrentHashMap<String, LongAdder> counts = new ConcurrentHashMap<>();
    private final LongAdder other = new LongAdder();
    /** The totals at the last drain. Admin thread only. */
    private Map<String, Long> last = new HashMap<>();
    private long lastOther;

    @Override
    public boolean onMessage(ServerSession sender, ServerChannel channel, ServerMessage.Mutable message) {
        ConcurrentHashMap<String, LongAdder> map = counts;
        String id = channel.getId();
        LongAdder count = map.get(id);
        if (count == null) {
            if (map.size() >= MAX_CHANNELS) {
                other.increment();
                return true;
            }
            count = map.computeIfAbsent(id, key -> new LongAdder());
        }
        count.increment();
        return true;
    }

    /**
     * Ends an interval.
     *
     * @param top how many channels to return
     * @param seconds the interval's length, for the rates
     * @return the busiest channels of the interval that ended, most messages first, and the messages on channels
     *         beyond the bound as the last entry {@code other} (when there were any)
     */
    List<Map<String, Object>> drain(int top, double seconds) {
        ConcurrentHashMap<String, LongAdder> map = counts;
        Map<String, Long> now = new HashMap<>(map.size() * 2);
        List<Map.Entry<String, Long>> all = new ArrayList<>();
        map.forEach((channel, count) -> {
            long total = count.sum();
            now.put(channel, total);
            long delta = total - last.getOrDefault(channel, 0L);
            if (delta > 0) {
                all.add(Map.entry(channel, delta));
            }
        });
        long otherTotal = other.sum();
        long beyond = otherTotal - lastOther;
        last = now;
        lastOther = otherTotal;
        if (map.size() >= MAX_CHANNELS) {
            counts = new ConcurrentHashMap<>();
            last = new HashMap<>();
        }
        all.sort((a, b) -> Long.compare(b.getValue(), a.getValue()) != 0 ? Long.compare(b.getValue(), a.getValue())
                : a.getKey().compareTo(b.getKey()));
        List<Map<String, Object>> busiest = new ArrayList<>();
        for (Map.Entry<String, Long> entry : all.subList(0, Math.min(top, all.size()))) {
            busiest.add(row(entry.getKey(), entry.getValue(), seconds));
        }
        if (beyond > 0) {
            busiest.add(row("other", beyond, seconds));
        }
        return busiest;
    }

    private static Map<String, Object> row(String channel, long messages, double seconds) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("channel", channel);
        row.put("messages", messages);
        row.put("rate", AdminStats.rate(messages, seconds));
        return row;
    }
}
