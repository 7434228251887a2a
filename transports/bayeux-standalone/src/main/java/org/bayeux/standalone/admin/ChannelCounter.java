package org.bayeux.standalone.admin;

import java.util.ArrayList;
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
 * Counts the messages published on this node per channel during one interval, for the busiest channels: a message
 * listener on {@code /**}, added only while an admin session watches. Per publish: one map look-up and one adder
 * increment. Bounded: at most {@value #MAX_CHANNELS} channels are counted apart per interval, later ones together
 * (as {@code other}); the map is replaced at each interval.
 */
final class ChannelCounter implements ChannelMessageListener {
    /** The most channels counted apart in one interval. */
    static final int MAX_CHANNELS = 1000;

    private volatile ConcurrentHashMap<String, LongAdder> counts = new ConcurrentHashMap<>();
    private final LongAdder other = new LongAdder();

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
     * Starts a new interval.
     *
     * @param top how many channels to return
     * @param seconds the interval's length, for the rates
     * @return the busiest channels of the interval that ended, most messages first, and the messages on channels
     *         beyond the bound as the last entry {@code other} (when there were any)
     */
    List<Map<String, Object>> drain(int top, double seconds) {
        ConcurrentHashMap<String, LongAdder> taken = counts;
        counts = new ConcurrentHashMap<>();
        long beyond = other.sumThenReset();
        List<Map.Entry<String, Long>> all = new ArrayList<>(taken.size());
        taken.forEach((channel, count) -> all.add(Map.entry(channel, count.sum())));
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
