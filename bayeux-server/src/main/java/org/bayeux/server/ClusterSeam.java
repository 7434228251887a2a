package org.bayeux.server;

import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;

import org.bayeux.api.ChannelId;
import org.bayeux.api.json.JsonCodec;
import org.bayeux.api.json.MalformedJsonException;
import org.bayeux.api.server.BayeuxServer;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.server.cluster.Cluster;
import org.bayeux.server.cluster.ClusterListener;
import org.bayeux.server.cluster.ClusterMember;
import org.bayeux.server.cluster.ClusterMessage;
import org.bayeux.server.cluster.ClusterNode;
import org.bayeux.server.cluster.ClusterUnavailableException;
import org.bayeux.server.cluster.Presence;
import org.bayeux.server.cluster.SessionStore;
import org.bayeux.server.internal.CallbackList;
import org.bayeux.server.internal.Callbacks;
import org.bayeux.server.internal.RateLimitedLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's side of the cluster SPI: the one way out ({@link #publish}), the one way in ({@link #deliver}), and
 * membership, told to listeners once per member whatever the cluster reports. Without a {@link Cluster} it does
 * nothing and costs one null check per publish.
 */
final class ClusterSeam implements ClusterNode {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterSeam.class);
    private static final RateLimitedLog QUIET = new RateLimitedLog(LOG);

    private final BayeuxServer server;
    private final JsonCodec codec;
    private final BiConsumer<ChannelId, ServerMessageImpl> inbound;
    private final CallbackList<ClusterListener> listeners = new CallbackList<>();
    /** Members that joined and have not left: a second {@code joined} or a {@code left} of a stranger is ignored. */
    private final Set<String> members = ConcurrentHashMap.newKeySet();
    /** Members that left: an incarnation that left never joins again. */
    private final Set<String> departed = ConcurrentHashMap.newKeySet();
    private volatile Cluster cluster;
    private volatile SessionStore store;

    /**
     * @param server the application's server, for the cluster's own sessions
     * @param codec parses what comes in and encodes what goes out
     * @param store the session store until another is installed
     * @param inbound delivers a message that came in to this node's subscribers (the publisher's fan-out)
     */
    ClusterSeam(BayeuxServer server, JsonCodec codec, SessionStore store,
            BiConsumer<ChannelId, ServerMessageImpl> inbound) {
        this.server = server;
        this.codec = codec;
        this.store = store;
        this.inbound = inbound;
    }

    /**
     * @return for a dump: "none", or the cluster's kind (its class's simple name) and how many members joined; never
     *         addresses or ids
     */
    String describe() {
        Cluster current = cluster;
        return current == null ? "none"
                : current.getClass().getSimpleName() + ", other members " + members.size();
    }

    void install(Cluster cluster) {
        this.cluster = cluster;
    }

    void install(SessionStore store) {
        this.store = Objects.requireNonNull(store, "store");
    }

    void start() {
        Cluster current = cluster;
        if (current != null) {
            current.start(this);
        }
    }

    void stop() {
        Cluster current = cluster;
        if (current != null) {
            Callbacks.run("cluster stop", current::stop);
        }
    }

    void draining() {
        Cluster current = cluster;
        if (current != null) {
            Callbacks.run("cluster draining", current::draining);
        }
    }

    CallbackList<ClusterListener> listeners() {
        return listeners;
    }

    /** @return the installed cluster's presence, or null without a cluster or when it keeps none */
    Presence presence() {
        Cluster current = cluster;
        return current == null ? null : current.presence();
    }

    /** @return whether a cluster is installed (whose messages may carry positions) */
    boolean hasCluster() {
        return cluster != null;
    }

    /** @return true if a publish to this channel leaves the node: there is a cluster, and it is not a service */
    boolean forwards(ChannelId channel) {
        return cluster != null && !channel.isService();
    }

    boolean deliversLocalPublishes() {
        Cluster current = cluster;
        return current == null || current.deliversLocalPublishes();
    }

    CompletionStage<Boolean> publish(ChannelId channel, ServerMessageImpl message, String publisher) {
        Cluster current = cluster;
        if (current == null) {
            return CompletableFuture.completedFuture(Boolean.TRUE);
        }
        try {
            CompletionStage<Boolean> taken = current.publish(new ClusterMessage(channel.name(), message,
                    message.toJsonBytes(codec), publisher));
            return taken == null ? CompletableFuture.completedFuture(Boolean.FALSE) : taken;
        } catch (ClusterUnavailableException unavailable) {
            return CompletableFuture.failedFuture(unavailable);
        } catch (RuntimeException failure) {
            QUIET.warn("cluster-publish", "The cluster failed to take a message", failure);
            return CompletableFuture.completedFuture(Boolean.FALSE);
        }
    }

    @Override
    public BayeuxServer server() {
        return server;
    }

    @Override
    public void deliver(byte[] json) {
        ServerMessageImpl message = parse(json);
        inbound.accept(ChannelId.of(message.getChannel()), message);
    }

    @Override
    public ServerMessageImpl parse(byte[] json) {
        ServerMessageImpl message;
        try {
            byte[] array = new byte[json.length + 2];
            array[0] = '[';
            System.arraycopy(json, 0, array, 1, json.length);
            array[array.length - 1] = ']';
            var parsed = codec.parseMessages(array, 0, array.length, ServerMessageImpl::new);
            if (parsed.size() != 1) {
                throw new IllegalArgumentException("not one message");
            }
            message = parsed.get(0);
        } catch (MalformedJsonException malformed) {
            throw new IllegalArgumentException("not a JSON message: " + malformed.getMessage(), malformed);
        }
        String name = message.getChannel();
        ChannelId channel = name == null || !ChannelId.isValid(name) ? null : ChannelId.of(name);
        if (channel == null || channel.isWildcard() || channel.isMeta() || channel.isService()) {
            throw new IllegalArgumentException("not a channel one can publish to: " + name);
        }
        message.freeze();
        return message;
    }

    @Override
    public void deliverParsed(ServerMessage message) {
        if (!(message instanceof ServerMessageImpl parsed) || !parsed.isFrozen()) {
            throw new IllegalArgumentException("not a message from parse()");
        }
        inbound.accept(ChannelId.of(parsed.getChannel()), parsed);
    }

    @Override
    public boolean deliverTo(ServerSession session, ServerMessage message) {
        if (!(session instanceof ServerSessionImpl) || !((ServerSessionImpl) session).belongsTo(this)) {
            throw new IllegalArgumentException("not a session of this node: " + session);
        }
        if (!(message instanceof ServerMessageImpl) || !((ServerMessageImpl) message).isFrozen()) {
            throw new IllegalArgumentException("not a message from parse()");
        }
        return ((ServerSessionImpl) session).enqueue(null, message);
    }

    @Override
    public void joined(ClusterMember member) {
        if (!departed.contains(member.id()) && members.add(member.id())) {
            for (ClusterListener listener : listeners.list()) {
                Callbacks.run(listener, () -> listener.joined(member));
            }
        }
    }

    @Override
    public void left(ClusterMember member) {
        if (members.remove(member.id())) {
            departed.add(member.id());
            for (ClusterListener listener : listeners.list()) {
                Callbacks.run(listener, () -> listener.left(member));
            }
        }
    }

    @Override
    public SessionStore sessionStore() {
        return store;
    }
}
