package org.bayeux.server;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.function.Supplier;

import org.bayeux.api.server.ServerChannel;
import org.bayeux.api.server.ServerSession;
import org.bayeux.server.transport.Carrier;

/**
 * A text dump of an engine's state for operators, in the spirit of Jetty's {@code Dumpable}: how many sessions, by
 * kind and by transport, how much their queues and their carriers' backlogs hold, the channels with their
 * subscribers, the timer thread, the cluster. It prints counts, byte sizes, transport names and channel names, and
 * nothing else: never a message, a token, an attribute or a {@code clientId}, so that a dump may be pasted into an
 * issue.
 *
 * <p>The figures are read one after the other, without stopping the engine: a dump taken under load adds up only
 * roughly. Channels are listed by subscribers, most first, up to {@link #MAX_CHANNELS_LISTED}; the rest are counted.</p>
 */
final class EngineDump {
    /** Channels listed by name, at most: a dump stays readable, and cheap, with a million channels. */
    static final int MAX_CHANNELS_LISTED = 100;

    private final SessionRegistry sessions;
    private final ChannelRegistry channels;
    private final ScheduledThreadPoolExecutor scheduler;
    private final TransportNames transportNames;
    private final ClusterSeam cluster;
    private final Supplier<String> state;
    /** The adoption counts, or null when the store adopts nothing. */
    private final Supplier<String> adoptions;

    /**
     * @param sessions the live sessions
     * @param channels the channels
     * @param scheduler the engine's timer thread
     * @param transportNames the advertised transports
     * @param cluster the engine's side of the cluster
     * @param state the engine's life-cycle state ({@code created}, {@code started}, {@code draining}, ...)
     */
    EngineDump(SessionRegistry sessions, ChannelRegistry channels, ScheduledThreadPoolExecutor scheduler,
            TransportNames transportNames, ClusterSeam cluster, Supplier<String> state, Supplier<String> adoptions) {
        this.adoptions = adoptions;
        this.sessions = sessions;
        this.channels = channels;
        this.scheduler = scheduler;
        this.transportNames = transportNames;
        this.cluster = cluster;
        this.state = state;
    }

    /** @return the dump, one item a line, as a tree */
    String dump() {
        StringBuilder out = new StringBuilder(1024);
        out.append("BayeuxEngine ").append(state.get()).append('\n');
        dumpSessions(out);
        dumpChannels(out);
        out.append("+- transports advertised: ").append(String.join(", ", transportNames.advertised())).append('\n');
        out.append("+- executors\n");
        out.append("|  +- scheduler: threads ").append(scheduler.getPoolSize())
                .append(", active ").append(scheduler.getActiveCount())
                .append(", timers waiting ").append(scheduler.getQueue().size())
                .append(", completed ").append(scheduler.getCompletedTaskCount())
                .append(scheduler.isShutdown() ? ", shut down" : "").append('\n');
        out.append("+- cluster: ").append(cluster.describe()).append('\n');
        String adopting = adoptions.get();
        if (adopting != null) {
            out.append("+- adoptions: ").append(adopting).append('\n');
        }
        return out.toString();
    }

    private void dumpSessions(StringBuilder out) {
        int remote = 0;
        int local = 0;
        int held = 0;
        long queuedMessages = 0;
        long queuedBytes = 0;
        long largestQueueBytes = 0;
        long unwrittenBytes = 0;
        Map<String, Integer> byTransport = new TreeMap<>();
        for (ServerSession session : sessions.all()) {
            if (session.isLocalSession()) {
                local++;
            } else {
                remote++;
            }
            long bytes = session.getQueueBytes();
            queuedMessages += session.getQueueSize();
            queuedBytes += bytes;
            largestQueueBytes = Math.max(largestQueueBytes, bytes);
            if (session instanceof ServerSessionImpl impl) {
                if (impl.holdsConnect()) {
                    held++;
                }
                Carrier carrier = impl.carrier();
                if (carrier != null) {
                    unwrittenBytes += carrier.flowControl().pendingBytes();
                    byTransport.merge(carrier.capabilities().transportName(), 1, Integer::sum);
                }
            }
        }
        out.append("+- sessions: ").append(remote + local).append(" (remote ").append(remote)
                .append(", local ").append(local).append("), connects held ").append(held).append('\n');
        out.append("+- queues: ").append(queuedMessages).append(" messages, ").append(queuedBytes)
                .append(" bytes (largest ").append(largestQueueBytes).append(" bytes)\n");
        out.append("+- carriers: ");
        if (byTransport.isEmpty()) {
            out.append("none");
        } else {
            String separator = "";
            for (Map.Entry<String, Integer> entry : byTransport.entrySet()) {
                out.append(separator).append(entry.getKey()).append(' ').append(entry.getValue());
                separator = ", ";
            }
        }
        out.append("; unwritten ").append(unwrittenBytes).append(" bytes\n");
    }

    private void dumpChannels(StringBuilder out) {
        List<ChannelLine> lines = new ArrayList<>();
        long subscriptions = 0;
        for (ServerChannel channel : channels.all()) {
            int subscribers = channel.getSubscribers().size();
            subscriptions += subscribers;
            lines.add(new ChannelLine(channel.getId(), subscribers, channel.isPersistent()));
        }
        lines.sort(Comparator.comparingInt(ChannelLine::subscribers).reversed().thenComparing(ChannelLine::name));
        out.append("+- channels: ").append(lines.size()).append(", subscriptions ").append(subscriptions).append('\n');
        int listed = Math.min(lines.size(), MAX_CHANNELS_LISTED);
        for (int i = 0; i < listed; i++) {
            ChannelLine line = lines.get(i);
            out.append("|  +- ").append(line.name()).append(": ").append(line.subscribers()).append(" subscribers")
                    .append(line.persistent() ? ", persistent" : "").append('\n');
        }
        if (lines.size() > listed) {
            out.append("|  +- ... ").append(lines.size() - listed).append(" more\n");
        }
    }

    private record ChannelLine(String name, int subscribers, boolean persistent) {
    }
}
