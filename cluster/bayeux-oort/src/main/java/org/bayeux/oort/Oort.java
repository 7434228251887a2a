package org.bayeux.oort;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import org.bayeux.api.server.BayeuxServer;
import org.bayeux.api.server.ServerChannel;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.api.server.SessionListener;
import org.bayeux.client.ClientResources;
import org.bayeux.server.BayeuxEngine;
import org.bayeux.server.cluster.Cluster;
import org.bayeux.server.cluster.ClusterMember;
import org.bayeux.server.cluster.ClusterMessage;
import org.bayeux.server.cluster.ClusterNode;
import org.bayeux.server.cluster.ClusterRefusedException;
import org.bayeux.server.cluster.Presence;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An Oort node: this engine joined to other nodes of this server in a full WebSocket mesh, as its {@link Cluster}.
 *
 * <pre>{@code
 * Oort oort = Oort.builder(engine)
 *         .url("https://10.0.0.1:8443/bayeux")          // plain http to another host needs allowPlainLinks(true)
 *         .seeds(List.of("https://10.0.0.2:8443/bayeux"))
 *         .secret(secretBytes)
 *         .build();            // checks the configuration and sets the engine's cluster
 * engine.start();             // starts Oort too
 * }</pre>
 *
 * <p>Each start of the process is a new incarnation with a fresh {@link #id() id}. A node dials its seeds; each
 * handshake carries a fresh proof of the secret ({@link JoinProof}), checked by the receiving node before any
 * application policy; the receiving node dials back the URL that proved itself, and never one that did not. A peer
 * has {@code joined} when both directions are up: its link to us proved the secret, and our link to it is connected
 * (which proves its URL is where it is). Each node sends its own messages on its own link, so each pair of nodes has
 * two links, one each way: a node's way out and its queue are its own, and a peer is only trusted once it dialled
 * back. Every heartbeat carries the sender's full list of joined members (gossip, replacing the one before); a node
 * dials every URL listed that it has no link to, and that node proves itself on its own join like a seed.</p>
 *
 * <p>Liveness and incarnations: a peer silent for the peer timeout in either direction has left, and both its links
 * are torn down; an incarnation that left never joins again (the engine's rule). A node whose join a peer refuses
 * because that peer declared it left takes a new incarnation (a new id at the same URL) and joins everyone again as
 * it: a healed partition rejoins by itself, and the others see {@code left} of the old incarnation, then
 * {@code joined} of the new one.</p>
 *
 * <p>Every forward carries a MAC under a key made for its link's join ({@link ForwardAuth}); the receiver refuses one
 * without a good MAC, a second start of a chain, a number that jumps too far, and a message whose own channel is not
 * the one its forward was checked for. A node keeps at most {@code oort.maxKnownUrls} peer URLs, forgets those no
 * member lists any more, and dials only allowed ones ({@code oort.peerHosts}, {@code oort.allowPlainLinks}).</p>
 *
 * <p>Forwarding: a message published here on an observed channel is queued on the link to every joined peer, with
 * this node's incarnation as its origin, a sequence number of that incarnation, and the number queued before it on
 * that link ({@link ForwardQueue}, which sends what it holds in batches, one message each). The peer delivers it to
 * its own subscribers (only if it observes the channel too)
 * only in that order ({@link OriginSequences}), answers a number it delivered already as taken, and refuses one whose
 * predecessor is missing; the link keeps what is not taken and resends it, in order, when it is connected again. A
 * peer never sends a forward on: one hop, so the mesh must be full and no glob, {@code /**} included, can make a
 * loop.</p>
 */
public final class Oort implements Cluster {
    /** The channel on which a node's messages reach a peer. */
    static final String FORWARD_CHANNEL = "/service/oort/forward";
    /** The channel on which a node tells a peer, every heartbeat interval, that it is alive. */
    static final String HEARTBEAT_CHANNEL = "/service/oort/heartbeat";
    private static final Logger LOG = LoggerFactory.getLogger(Oort.class);
    /** How far a join's time may be from this node's clock. */
    private static final Duration JOIN_WINDOW = Duration.ofSeconds(30);
    /** The error a publisher gets for a message larger than {@code oort.maxMessageBytes}: {@code 413::...}. */
    static final int OVERSIZE_CODE = 413;
    /** The reason of that error. */
    static final String OVERSIZE_REASON = "oort_message_too_large";

    private final BayeuxEngine engine;
    private final OortConfig config;
    /** Told each new incarnation this node takes; see {@link #addIncarnationListener}. */
    private final List<Consumer<String>> incarnationListeners = new CopyOnWriteArrayList<>();
    /** This node's incarnation now: fresh at every start, and again when a peer declared it left. */
    private final Incarnation incarnation = new Incarnation();
    private final ObservedChannels observed;
    private final JoinProof proof;
    private final OortStats stats = new OortStats();
    /** Messages too large to forward: one log line per period at most. */
    private final RefusalLog oversize = new RefusalLog(LOG::warn, System::nanoTime);
    private final OriginSequences sequences = new OriginSequences(stats);
    private final OortGate gate;
    private final PeerReplies replies;
    private final Membership membership;
    private final Object sendLock = new Object();
    private final ForwardReceiver forwardListener;
    private final PeerSessions peerSessions = new PeerSessions();
    private final org.bayeux.api.server.ChannelMessageListener heartbeatListener = this::heartbeat;
    private volatile boolean running;
    private final AtomicBoolean stopped = new AtomicBoolean();
    private long sequence;
    private volatile ClusterNode node;
    private ClientResources resources;
    /** The TLS settings of the links, or null for the client's defaults. */
    private final SslContextFactory.Client linkTls;

    private Oort(BayeuxEngine engine, OortConfig config, SslContextFactory.Client linkTls) {
        this.engine = engine;
        this.config = config;
        this.linkTls = linkTls;
        this.observed = new ObservedChannels(config.channels());
        this.proof = new JoinProof(config.secret(), Clock.systemUTC(), JOIN_WINDOW);
        this.gate = new OortGate(proof, config.url(), stats.refusedJoins::increment);
        this.membership = new Membership(config, proof, stats, sequences, incarnation, new MembershipEvents());
        this.replies = new PeerReplies(membership::isDeparted);
        this.forwardListener = new ForwardReceiver(stats, membership, sequences, incarnation, observed);
        this.messaging = new PeerMessaging(config, incarnation, membership);
    }

    /**
     * @param engine the engine this node joins to the cluster
     * @return a builder; {@link Builder#build()} checks the configuration and sets the engine's cluster
     */
    public static Builder builder(BayeuxEngine engine) {
        return new Builder(engine);
    }

    /**
     * @return this node's incarnation now: fresh at every start of the process, and replaced by a new one when a
     *         peer declared it left (a partition that healed), so that its peers see it leave and join again
     */
    public String id() {
        return incarnation.id();
    }

    /** @return this node's configuration */
    public OortConfig config() {
        return config;
    }

    /** @return this node's counters */
    public OortStats stats() {
        return stats;
    }

    /**
     * @return one snapshot per peer URL this node knows (seeds, joined peers, URLs gossiped), with the state of its
     *         link, the incarnation joined from it, the round trip of the last heartbeat and what the link holds
     */
    public List<LinkSnapshot> links() {
        return membership.snapshot();
    }

    /**
     * A text dump of this node's state, for an operator: its incarnation, URL and whether it runs; one line per peer
     * URL it knows with its link's state, the incarnations on each side, the last round trip, what the link holds
     * (forwards and their bytes) and what it resent; the peer messaging counters; and the node's counters. It names
     * no client session and holds no message and no secret.
     *
     * @return several lines, each {@code key: value}
     */
    public String dump() {
        StringBuilder text = new StringBuilder();
        text.append("oort node: ").append(incarnation.id()).append(" at ").append(config.url()).append(", ")
                .append(running ? "running" : "stopped").append('\n');
        List<LinkSnapshot> links = membership.snapshot();
        text.append("  members: ").append(membership.members().size()).append(", known URLs: ").append(links.size())
                .append(" of at most ").append(config.maxKnownUrls()).append('\n');
        for (LinkSnapshot link : links) {
            text.append("  peer ").append(RefusalLog.sanitized(link.url())).append(": link ").append(link.linkState())
                    .append(", member ").append(link.memberId() == null ? "-" : link.memberId())
                    .append(", inbound ").append(link.inboundId() == null ? "-" : link.inboundId())
                    .append(", rtt ").append(link.roundTrip() == null ? "-" : link.roundTrip().toMillis() + " ms")
                    .append(", queued ").append(link.queued()).append(" (").append(link.queuedBytes())
                    .append(" bytes), resent ").append(link.resent()).append(", gossiped ").append(link.gossiped())
                    .append('\n');
        }
        text.append("  peer messaging: sent ").append(messaging.sentCount()).append(", not sent ")
                .append(messaging.notSentCount()).append(", received ").append(messaging.receivedCount())
                .append('\n');
        text.append("  counters: ").append(stats).append('\n');
        return text.toString();
    }

    /** @return the peers joined now */
    public List<ClusterMember> members() {
        return membership.members();
    }

    @Override
    public void start(ClusterNode node) {
        stopped.set(false);
        this.node = node;
        BayeuxServer server = node.server();
        ClientResources.Builder links = ClientResources.builder().maxThreads(8);
        if (linkTls != null) {
            links.sslContextFactory(linkTls);
        }
        resources = links.build();
        membership.open(resources);
        server.addExtension(gate);
        // After the gate: it sees the handshakes the gate verified.
        server.addExtension(replies);
        server.setSecurityPolicy(new OortGate.Policy(server.getSecurityPolicy()));
        server.addSessionListener(peerSessions);
        forwardListener.start(node, config.fanOutLanes(), "oort-fan-out");
        server.createChannelIfAbsent(FORWARD_CHANNEL).addMessageListener(forwardListener);
        server.createChannelIfAbsent(HEARTBEAT_CHANNEL).addMessageListener(heartbeatListener);
        messaging.start(engine, resources); // Peer messaging for Seti, objects and services (see the block below).
        running = true;
        engine.schedule(this::tick, config.heartbeatInterval());
        LOG.info("Oort node {} at {} starting; seeds {}, observing {}", incarnation.id(), config.url(), config.seeds(),
                config.channels());
        for (String seed : config.seeds()) {
            if (!seed.equals(config.url())) {
                membership.dial(seed);
            }
        }
    }

    /**
     * Leaves the mesh as {@link #stop()} does, when the engine begins to drain: the peers see this node leave at once
     * (its links to them end), and this node does not take the end of their links into it, which the drain would
     * hand off like clients' sessions, for their departure. Messages published elsewhere no longer reach this node's
     * clients, which are leaving for other nodes.
     */
    @Override
    public void draining() {
        LOG.info("Oort node {} leaves its {} members: the server drains", incarnation.id(),
                membership.members().size());
        stop();
    }

    /** Leaves the mesh: every link is closed and nothing more is forwarded or delivered; a second call does nothing. */
    @Override
    public void stop() {
        if (!stopped.compareAndSet(false, true)) {
            return;
        }
        running = false;
        messaging.stop(engine); // Peer messaging for Seti, objects and services (see the block below).
        List<Link> links = membership.stop();
        List<CompletableFuture<?>> disconnects = new ArrayList<>();
        for (Link link : links) {
            disconnects.add(link.close());
        }
        try {
            CompletableFuture.allOf(disconnects.toArray(CompletableFuture[]::new)).get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            LOG.debug("Not every link disconnected in time", e);
        }
        if (resources != null) {
            resources.close();
        }
        BayeuxServer server = engine;
        server.removeExtension(gate);
        server.removeExtension(replies);
        server.removeSessionListener(peerSessions);
        ServerChannel forward = server.getChannel(FORWARD_CHANNEL);
        if (forward != null) {
            forward.removeMessageListener(forwardListener);
        }
        forwardListener.stop();
        ServerChannel heartbeat = server.getChannel(HEARTBEAT_CHANNEL);
        if (heartbeat != null) {
            heartbeat.removeMessageListener(heartbeatListener);
        }
        if (server.getSecurityPolicy() instanceof OortGate.Policy policy) {
            server.setSecurityPolicy(policy.application());
        }
        node = null;
        LOG.info("Oort node {} stopped", incarnation.id());
    }

    @Override
    public CompletionStage<Boolean> publish(ClusterMessage message) {
        if (!observed.matches(message.channel())) {
            return CompletableFuture.completedFuture(Boolean.TRUE);
        }
        if (message.json().length > config.maxMessageBytes()) {
            stats.oversize.increment();
            int size = message.json().length;
            // Any client may publish large messages: one line per period, not one per message.
            oversize.refused(() -> "A message on " + RefusalLog.sanitized(message.channel()) + " of " + size
                    + " bytes is larger than oort.maxMessageBytes=" + config.maxMessageBytes()
                    + ": not forwarded (its publisher is answered " + OVERSIZE_CODE + "::" + OVERSIZE_REASON + ")");
            return CompletableFuture.failedFuture(new ClusterRefusedException(OVERSIZE_CODE, OVERSIZE_REASON,
                    "larger than oort.maxMessageBytes"));
        }
        String json = new String(message.json(), StandardCharsets.UTF_8);
        // One lock from numbering to the last enqueue, so that every link carries the numbers in order; the origin
        // and the numbering change together when the node takes a new incarnation.
        synchronized (sendLock) {
            long number = ++sequence;
            Map<String, Object> fields = Map.of("channel", message.channel(), "message", json);
            int bytes = message.json().length;
            for (Link link : membership.joinedLinks()) {
                if (!link.selfId().equals(incarnation.id())) {
                    continue;
                }
                stats.forwarded.increment();
                if (!link.forward(number, fields, bytes)) {
                    stats.forwardFailures.increment();
                    LOG.debug("Oort link to {} holds oort.maxQueue={} or oort.maxQueueBytes={} unacknowledged:"
                            + " message {} not queued", link.target(), config.maxQueue(), config.maxQueueBytes(),
                            number);
                }
            }
        }
        return CompletableFuture.completedFuture(Boolean.TRUE);
    }

    /**
     * Every heartbeat interval, on the engine's timer: a heartbeat on every connected link, then the peers silent
     * for the peer timeout in either direction leave and their links are torn down (closed outside the lock).
     */
    private void tick() {
        if (!running) {
            return;
        }
        try {
            sendHeartbeats();
            for (Link link : membership.connectedLinks()) {
                // A refused forward on a link that stayed connected: resend from the one that was lost.
                if (link.forwards().needsResend()) {
                    stats.resent.add(link.forwards().resend());
                }
            }
            List<Runnable> closes = membership.expireSilent(config.peerTimeout(), config.heartbeatInterval(),
                    (url, delay) -> engine.schedule(() -> membership.dial(url), delay));
            closes.forEach(Runnable::run);
            // A URL nobody wants is kept a while, so that a member that left is redialled meanwhile.
            membership.forgetUnwanted(config.peerTimeout().multipliedBy(2)).forEach(Runnable::run);
        } catch (RuntimeException e) {
            LOG.warn("Oort heartbeat failed", e);
        } finally {
            if (running) {
                engine.schedule(this::tick, config.heartbeatInterval());
            }
        }
    }

    /** A heartbeat on every connected link, with this node's members as gossip. */
    private void sendHeartbeats() {
        Map<String, Object> beat = Map.of("id", incarnation.id(), "members", membership.gossip());
        for (Link link : membership.connectedLinks()) {
            link.heartbeat(beat);
        }
    }

    /** Gossips at once, on the engine's timer: a peer joined, so that the others learn of it now. */
    private void gossipSoon() {
        if (running) {
            engine.schedule(() -> {
                if (running) {
                    sendHeartbeats();
                }
            }, Duration.ZERO);
        }
    }

    /** Sends a heartbeat on one link now, on the engine's timer: its answer may let a peer join. */
    private void probe(Link link) {
        if (running) {
            engine.schedule(() -> {
                if (running) {
                    link.heartbeat(Map.of("id", incarnation.id(), "members", membership.gossip()));
                }
            }, Duration.ZERO);
        }
    }

    /** Dials a URL again after a delay, on the engine's timer. */
    private void redial(String url, Duration delay) {
        if (running) {
            engine.schedule(() -> membership.dial(url), delay);
        }
    }

    /**
     * A peer declared an incarnation of this node left (it refused a join of it): if it is still this node's
     * incarnation, the node takes a new one, with its own numbering, and joins every peer again as it; its peers see
     * the old one leave and the new one join.
     *
     * @param oldId the incarnation the peer declared left
     * @param why what happened, for the log
     */
    private void reincarnate(String oldId, String why) {
        String newId;
        synchronized (sendLock) {
            if (!running || !oldId.equals(incarnation.id())) {
                return;
            }
            newId = incarnation.renew();
            sequence = 0;
        }
        stats.incarnations.increment();
        LOG.info("Oort node {} at {} takes the new incarnation {}: {}", oldId, config.url(), newId, why);
        membership.reincarnated().forEach(Runnable::run);
        for (Consumer<String> listener : incarnationListeners) {
            try {
                listener.accept(newId);
            } catch (RuntimeException failure) {
                LOG.warn("An incarnation listener failed", failure);
            }
        }
    }

    /**
     * @param listener told this node's new {@link #id() id} each time it takes a new incarnation because a peer
     *        declared the old one left (after a partition, say), once the node has started joining its peers again
     *        as it; not told of the first incarnation. A listener that throws is logged; the others are still told.
     */
    public void addIncarnationListener(Consumer<String> listener) {
        incarnationListeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /** A peer's heartbeat: it is alive, and its members; stopped here (the link reads the answer as taken). */
    private boolean heartbeat(ServerSession sender, ServerChannel channel, ServerMessage.Mutable message) {
        JoinProof.Peer peer = OortGate.peerOf(sender);
        if (peer != null && !membership.isDeparted(peer.id())) {
            membership.heard(peer.id());
            if (message.getData() instanceof Map<?, ?> data && data.get("members") instanceof List<?> members) {
                membership.gossiped(peer, members);
            }
        }
        return false;
    }

    /**
     * @param url a peer's URL
     * @return this node's connected link to it, or null (for tests)
     */
    Link linkTo(String url) {
        return membership.linkTo(url);
    }

    // ---- Peer messaging, for Seti, OortObject/OortMap/OortList and OortService (issue 19 items 5 and 6). ----
    // Kept to this block and one line each in start() and stop(): the services live in their own classes.
    private final PeerMessaging messaging;

    /** @return messages to and from joined peers on {@code /service/oort/<service>}, for services on the mesh */
    public PeerMessaging messaging() {
        return messaging;
    }

    private OortPresence presence;

    /** @return who is here across the mesh, the engine's presence seam ({@link Seti} is a view of it) */
    @Override
    public Presence presence() {
        return meshPresence();
    }

    /**
     * @return the node's presence, started by the first call (its service, membership and subscription listeners),
     *         and by the first after {@link Seti#stop()} stopped it
     */
    synchronized OortPresence meshPresence() {
        if (presence == null || presence.isStopped()) {
            presence = new OortPresence(messaging, engine, config.peerTimeout());
        }
        return presence;
    }

    /** @return the engine this node joins to the cluster */
    public BayeuxEngine engine() {
        return engine;
    }

    // ---- End of peer messaging. ----

    /** Membership's events, on this node: joins and leaves go to the engine, the rest to the node's timer. */
    private final class MembershipEvents implements Membership.Listener {
        @Override
        public void joined(ClusterMember member) {
            ClusterNode current = node;
            if (current != null) {
                current.joined(member);
            }
            gossipSoon();
        }

        @Override
        public void left(ClusterMember member) {
            ClusterNode current = node;
            if (current != null) {
                current.left(member);
            }
        }

        @Override
        public void declaredLeft(String selfId, String why) {
            reincarnate(selfId, why);
        }

        @Override
        public void redialLater(String url, Duration delay) {
            redial(url, delay);
        }

        @Override
        public void probeSoon(Link link) {
            probe(link);
        }
    }

    /** Finds the sessions of authenticated peers as they are added. */
    private final class PeerSessions implements SessionListener {
        @Override
        public void sessionAdded(ServerSession session, ServerMessage handshake) {
            JoinProof.Peer peer = OortGate.peerOf(session);
            if (peer != null) {
                membership.inboundAdded(peer, session);
            }
        }
    }

    /**
     * Configures an {@link Oort} for an engine: a thin layer over {@link OortConfig.Builder}, so each setter checks
     * its key's rule (the ranges documented for the {@code oort.*} keys) with an
     * {@link org.bayeux.server.config.InvalidConfigurationException} naming the key and the value, and {@link #build()}
     * the URL, the secret and the rules that span keys.
     */
    public static final class Builder {
        private final BayeuxEngine engine;
        private final OortConfig.Builder config = OortConfig.builder(null);
        private SslContextFactory.Client linkTls;

        private Builder(BayeuxEngine engine) {
            this.engine = engine;
        }

        /**
         * @param url this node's advertised URL ({@code oort.url})
         * @return this builder
         */
        public Builder url(String url) {
            config.url(url);
            return this;
        }

        /**
         * @param seeds the URLs dialled at start ({@code oort.seeds})
         * @return this builder
         */
        public Builder seeds(List<String> seeds) {
            config.seeds(seeds);
            return this;
        }

        /**
         * @param globs the observed channels ({@code oort.channels})
         * @return this builder
         */
        public Builder channels(List<String> globs) {
            config.channels(globs);
            return this;
        }

        /**
         * @param secret the shared secret, at least 32 bytes ({@code oort.secret})
         * @return this builder
         */
        public Builder secret(byte[] secret) {
            config.secret(secret);
            return this;
        }

        /**
         * @param secret the shared secret, at least 32 bytes of UTF-8 ({@code oort.secret})
         * @return this builder
         */
        public Builder secret(String secret) {
            config.secret(secret);
            return this;
        }

        /**
         * @param interval {@code oort.heartbeatInterval}
         * @return this builder
         */
        public Builder heartbeatInterval(Duration interval) {
            config.heartbeatInterval(interval);
            return this;
        }

        /**
         * @param timeout {@code oort.peerTimeout}
         * @return this builder
         */
        public Builder peerTimeout(Duration timeout) {
            config.peerTimeout(timeout);
            return this;
        }

        /**
         * @param bytes {@code oort.maxMessageBytes}
         * @return this builder
         */
        public Builder maxMessageBytes(int bytes) {
            config.maxMessageBytes(bytes);
            return this;
        }

        /**
         * @param count {@code oort.maxQueue}
         * @return this builder
         */
        public Builder maxQueue(int count) {
            config.maxQueue(count);
            return this;
        }

        /**
         * @param bytes {@code oort.maxQueueBytes}
         * @return this builder
         */
        public Builder maxQueueBytes(long bytes) {
            config.maxQueueBytes(bytes);
            return this;
        }

        /**
         * @param lanes the threads that deliver peers' messages ({@code oort.fanOutLanes})
         * @return this builder
         */
        public Builder fanOutLanes(int lanes) {
            config.fanOutLanes(lanes);
            return this;
        }

        /**
         * @param allow {@code oort.allowPlainLinks}: whether links may be plain {@code http://} or {@code ws://} to a
         *        host other than the loopback interface
         * @return this builder
         */
        public Builder allowPlainLinks(boolean allow) {
            config.allowPlainLinks(allow);
            return this;
        }

        /**
         * @param hosts {@code oort.peerHosts}: the only hosts this node dials; empty for any
         * @return this builder
         */
        public Builder peerHosts(List<String> hosts) {
            config.peerHosts(hosts);
            return this;
        }

        /**
         * @param count {@code oort.maxKnownUrls}: the most peer URLs this node keeps
         * @return this builder
         */
        public Builder maxKnownUrls(int count) {
            config.maxKnownUrls(count);
            return this;
        }

        /**
         * @param checked a configuration already built
         * @return this builder, with every key and the secret of that configuration
         */
        Builder configure(OortConfig checked) {
            config.configure(checked);
            return this;
        }

        /**
         * @param tls the TLS settings of this node's links to {@code https://} and {@code wss://} peers: the trust
         *        store that checks the peers' certificates and, for mutual TLS, the key store of this node's own
         *        certificate; null (the default) uses the JVM's trust store and no client certificate
         * @return this builder
         */
        public Builder linkTls(SslContextFactory.Client tls) {
            this.linkTls = tls;
            return this;
        }

        /**
         * Checks the configuration and sets the node as the engine's cluster (before the engine starts).
         *
         * @return the node
         * @throws IllegalArgumentException naming the key and value of the first rule broken
         */
        public Oort build() {
            Oort oort = new Oort(engine, config.build(), linkTls);
            engine.setCluster(oort);
            return oort;
        }
    }
}
