package org.bayeux.server;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;

import org.bayeux.api.json.JsonCodec;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.server.cluster.SessionStore;
import org.bayeux.server.config.BayeuxServerConfig;
import org.bayeux.server.internal.RateLimitedLog;
import org.bayeux.server.transport.Carrier;
import org.bayeux.server.transport.OutgoingMessages;
import org.slf4j.LoggerFactory;

/**
 * What every session of an engine works with, wired once: one instance per engine, so that each session keeps one
 * reference rather than one per collaborator (an idle session's size matters at 100,000 connections).
 */
final class SessionParts {
    private static final RateLimitedLog QUIET = new RateLimitedLog(LoggerFactory.getLogger(ServerSessionImpl.class));

    private final BayeuxServerConfig config;
    private final ScheduledExecutorService scheduler;
    private final JsonCodec codec;
    private final SessionRegistry sessions;
    private final ChannelRegistry channels;
    private final ExtensionChain extensions;
    private final QueueLimitCounters queueLimitCounters;
    private final ClusterSeam cluster;
    private final EngineStatistics statistics;
    private final PortableAttributes portableAttributes;

    SessionParts(BayeuxServerConfig config, ScheduledExecutorService scheduler, JsonCodec codec,
            SessionRegistry sessions, ChannelRegistry channels, ExtensionChain extensions,
            QueueLimitCounters queueLimitCounters, ClusterSeam cluster, EngineStatistics statistics,
            PortableAttributes portableAttributes) {
        this.statistics = statistics;
        this.portableAttributes = portableAttributes;
        this.config = config;
        this.scheduler = scheduler;
        this.codec = codec;
        this.sessions = sessions;
        this.channels = channels;
        this.extensions = extensions;
        this.queueLimitCounters = queueLimitCounters;
        this.cluster = cluster;
    }

    BayeuxServerConfig config() {
        return config;
    }

    ScheduledExecutorService scheduler() {
        return scheduler;
    }

    JsonCodec codec() {
        return codec;
    }

    SessionRegistry sessions() {
        return sessions;
    }

    ExtensionChain extensions() {
        return extensions;
    }

    QueueLimitCounters queueLimitCounters() {
        return queueLimitCounters;
    }

    SessionStore store() {
        return cluster.sessionStore();
    }

    /** @return the cluster seam of the server these parts belong to */
    ClusterSeam cluster() {
        return cluster;
    }

    EngineStatistics statistics() {
        return statistics;
    }

    /** @return the attributes the application marked portable */
    PortableAttributes portableAttributes() {
        return portableAttributes;
    }

    RateLimitedLog quietLog() {
        return QUIET;
    }

    /**
     * @param messages messages for a carrier, frozen, in order
     * @return them with their bytes, as carriers take them; counted as sent ({@link EngineStatistics}), since every
     *         caller hands them to a carrier at once
     */
    OutgoingMessages encoded(List<? extends ServerMessage> messages) {
        Deliveries out = new Deliveries(messages, codec);
        statistics.sending(out);
        return out;
    }

    /** Runs outgoing extensions on a reply, then sends it after the given messages. */
    void sendReply(ServerSessionImpl session, ServerMessageImpl reply, List<ServerMessage> before, Carrier carrier) {
        extensions.reply(session, reply).whenComplete((keep, failure) -> {
            List<ServerMessage> out = new ArrayList<>(before.size() + 1);
            out.addAll(before);
            if (failure == null && keep) {
                reply.freeze();
                out.add(reply);
            }
            carrier.send(encoded(out));
        });
    }

    /** @return how long a lazy message on its channel may wait */
    Duration lazyTimeoutOf(ServerMessage message) {
        String name = message.getChannel();
        ServerChannelImpl channel = name == null ? null : channels.get(name);
        return channel == null ? config.maxLazyTimeout() : channel.getLazyTimeout();
    }
}
