package org.bayeux.oort;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;

import org.bayeux.api.server.ServerSession;
import org.bayeux.client.BayeuxClient;
import org.bayeux.client.ClientResources;
import org.bayeux.server.cluster.ClusterMember;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who this node's peers are, one entry per URL: this node's link to the URL and the session that the node at the URL
 * opened here with a good proof (which names its incarnation). A peer has joined when both are up; it has left when
 * its session here ends, when it is silent for the peer timeout in either direction, or when another incarnation at
 * its URL proves itself (a restart or a new incarnation: {@code left} of the old one, then {@code joined} of the new
 * one). An incarnation that left is remembered as departed: its joins are refused from then on
 * ({@link PeerReplies}), which tells it to take a new incarnation. Membership changes are rare: one lock, never held
 * while waiting on the network.
 */
final class Membership {
    private static final Logger LOG = LoggerFactory.getLogger(Membership.class);
    /** Departed incarnations remembered; the oldest are forgotten past it (the engine still refuses their joins). */
    static final int MAX_DEPARTED = 10_000;

    private final OortConfig config;
    private final JoinProof proof;
    private final OortStats stats;
    private final OriginSequences sequences;
    private final Incarnation self;
    private final Listener listener;
    /** The links' HTTP and WebSocket clients: set by {@link #open}, at the node's start. */
    private volatile ClientResources resources;
    private final Map<String, Peer> peersByUrl = new HashMap<>();
    /** When each incarnation was last heard on its link here (System.nanoTime): read and written without the lock. */
    private final Map<String, Long> heardNanos = new ConcurrentHashMap<>();
    private final Map<String, Boolean> departed = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > MAX_DEPARTED;
        }
    };
    private final Link.Listener linkListener = new Link.Listener() {
        @Override
        public void stateChanged(Link link, BayeuxClient.State state) {
            linkChanged(link, state);
        }

        @Override
        public void answered(Link link) {
            linkAnswered(link);
        }

        @Override
        public void refusedAsLeft(Link link) {
            listener.declaredLeft(link.selfId(), "the node at " + link.target() + " declared it left");
        }
    };
    private volatile List<Link> joinedLinks = List.of();
    private boolean stopped;
    /** URLs not dialled (not allowed, or past the cap) are a gossiping or joining peer's to send: one line a period. */
    private final RefusalLog refusedUrls = new RefusalLog(LOG::warn, System::nanoTime);

    /** One URL's state. */
    private static final class Peer {
        final String url;
        Link link;
        boolean linkConnected;
        String inboundId;
        ServerSession inbound;
        /** When the inbound session of {@link #inboundId} was registered (System.nanoTime). */
        long inboundSinceNanos;
        ClusterMember member;
        /** Links torn down in a row because the peer went silent: the back-off before dialling again. */
        int teardowns;
        /** How many members the peer listed in its last gossip, or -1. */
        int gossiped = -1;
        /** The URLs the peer listed in its last gossip. */
        Set<String> listed = Set.of();
        /** When this URL was last a seed, a member, an inbound session or listed by a member (System.nanoTime). */
        long wantedNanos = System.nanoTime();

        Peer(String url) {
            this.url = url;
        }
    }

    /**
     * What membership tells the node that owns it. {@link #joined} and {@link #left} are called under Membership's
     * lock: none of them waits on the network.
     */
    interface Listener {
        /** @param member a peer joined: both its directions are up */
        void joined(ClusterMember member);

        /** @param member a peer that had joined left */
        void left(ClusterMember member);

        /**
         * A peer refused a join of this node's incarnation because it declared it left.
         *
         * @param selfId the incarnation the peer declared left
         * @param why what happened, for the log
         */
        void declaredLeft(String selfId, String why);

        /**
         * @param url a URL whose link gave up
         * @param delay when to dial it again
         */
        void redialLater(String url, Duration delay);

        /** @param link a connected link to ask for an answer now (a heartbeat), so that its peer may join */
        void probeSoon(Link link);
    }

    /**
     * @param config the node's configuration (its URL, seeds, limits)
     * @param proof makes the proofs this node's links join with
     * @param stats the node's counters
     * @param sequences the numbering of the peers' forwards received here, forgotten for peers that leave
     * @param self this node's incarnation
     * @param listener told of joins, leaves and what to do on the node's timer
     */
    Membership(OortConfig config, JoinProof proof, OortStats stats, OriginSequences sequences, Incarnation self,
            Listener listener) {
        this.config = config;
        this.proof = proof;
        this.stats = stats;
        this.sequences = sequences;
        this.self = self;
        this.listener = listener;
    }

    /** @param clients the HTTP and WebSocket clients the links dial with, from the node's start on */
    void open(ClientResources clients) {
        this.resources = clients;
    }

    /**
     * @param url a peer's URL
     * @return this node's connected link to it, or null; under the lock, so that a listener told of a join finds
     *         the link that the join needed
     */
    synchronized Link linkTo(String url) {
        Peer peer = peersByUrl.get(url);
        return peer != null && peer.link != null && peer.linkConnected ? peer.link : null;
    }

    /** @return the links of the peers joined now, for forwarding (read without the lock) */
    List<Link> joinedLinks() {
        return joinedLinks;
    }

    synchronized List<ClusterMember> members() {
        List<ClusterMember> members = new ArrayList<>();
        for (Peer peer : peersByUrl.values()) {
            if (peer.member != null) {
                members.add(peer.member);
            }
        }
        return members;
    }

    /** @return whether this node declared the incarnation left */
    synchronized boolean isDeparted(String id) {
        return departed.containsKey(id);
    }

    /**
     * Dials a URL, unless a link to it exists: a seed, a URL whose node proved the secret, or one a peer that proved
     * it gossiped (whose node proves itself on its own join before it counts).
     *
     * @param url the peer's URL
     */
    void dial(String url) {
        Link link = newLink(url);
        if (link != null) {
            // Outside the lock: the client tells its state changes on threads that may hold its own locks.
            link.open();
        }
    }

    private synchronized Link newLink(String url) {
        if (stopped || url.equals(config.url())) {
            return null;
        }
        Peer peer = known(url, "dial");
        if (peer == null || peer.link != null) {
            return null;
        }
        peer.link = new Link(url, self.id(), config, proof, resources, stats, linkListener);
        peer.linkConnected = false;
        refreshJoinedLinks();
        LOG.debug("Oort node {} dials {}", self.id(), url);
        return peer.link;
    }

    /**
     * @param url a peer's URL
     * @param why what would be done with it, for the log
     * @return its entry, made if the URL may be dialled and the cap leaves room; null if not
     */
    private Peer known(String url, String why) {
        Peer peer = peersByUrl.get(url);
        if (peer != null) {
            return peer;
        }
        String problem = config.refusalOf(url);
        if (problem == null && peersByUrl.size() >= config.maxKnownUrls()) {
            problem = "within oort.maxKnownUrls=" + config.maxKnownUrls() + " known URLs";
        }
        if (problem != null) {
            stats.urlsRefused.increment();
            String rule = problem;
            refusedUrls.refused(() -> "Oort node " + self.id() + " does not " + why + " " + RefusalLog.sanitized(url)
                    + ": it must be " + rule);
            return null;
        }
        peer = new Peer(url);
        peersByUrl.put(url, peer);
        return peer;
    }

    /**
     * Forgets the URLs nobody wants any more: not a seed, not a member, no session of its node here, and listed by no
     * member's last gossip, for longer than {@code grace}; their links are closed (outside the lock). A gossiping
     * peer's URLs go with its gossip, so that the set of URLs this node dials follows the cluster.
     *
     * @param grace how long a URL is kept once nobody wants it (a member that left is redialled meanwhile)
     * @return what to close, outside the lock
     */
    synchronized List<Runnable> forgetUnwanted(Duration grace) {
        List<Runnable> closes = new ArrayList<>();
        if (stopped) {
            return closes;
        }
        long now = System.nanoTime();
        Set<String> listed = new HashSet<>(config.seeds());
        for (Peer peer : peersByUrl.values()) {
            if (peer.member != null) {
                listed.addAll(peer.listed);
            }
        }
        Iterator<Peer> peers = peersByUrl.values().iterator();
        while (peers.hasNext()) {
            Peer peer = peers.next();
            if (peer.member != null || peer.inbound != null || listed.contains(peer.url)) {
                peer.wantedNanos = now;
            } else if (now - peer.wantedNanos > grace.toNanos()) {
                peers.remove();
                stats.urlsForgotten.increment();
                LOG.debug("Oort node {} forgets {}: no member lists it any more", self.id(), peer.url);
                Link link = peer.link;
                if (link != null) {
                    closes.add(link::close);
                }
            }
        }
        return closes;
    }

    private void linkChanged(Link link, BayeuxClient.State state) {
        boolean redial = false;
        String url = link.target();
        synchronized (this) {
            Peer peer = peersByUrl.get(url);
            if (stopped || peer == null || peer.link != link) {
                return;
            }
            peer.linkConnected = state == BayeuxClient.State.CONNECTED;
            LOG.debug("Oort link to {} is {}", url, state);
            if (state == BayeuxClient.State.DISCONNECTED && !link.isClosed()) {
                // The client gave up (the peer ended its session, or refused it for good): dial again later.
                peer.link = null;
                refreshJoinedLinks();
                redial = true;
            }
            update(peer);
        }
        if (redial) {
            listener.redialLater(url, config.heartbeatInterval());
        }
    }

    /**
     * A node's link proved the secret and its session was added here: dial it back if there is no link yet.
     *
     * @param proven the node, as its proof names it
     * @param session its session here
     */
    void inboundAdded(JoinProof.Peer proven, ServerSession session) {
        Boolean dialBack = register(proven, session);
        if (dialBack == null) {
            session.disconnect();
        } else if (dialBack) {
            // Dialled back only now that its URL proved the secret.
            dial(proven.url());
        }
    }

    /** @return true if the node has no link yet; null if the session must end (a departed incarnation) */
    private synchronized Boolean register(JoinProof.Peer proven, ServerSession session) {
        if (departed.containsKey(proven.id())) {
            return null;
        }
        if (stopped || proven.url().equals(config.url())) {
            return false;
        }
        Peer peer = known(proven.url(), "dial back");
        if (peer == null) {
            // Never dialled back, so never joined: its session here ends.
            return null;
        }
        if (peer.member != null && !peer.member.id().equals(proven.id())) {
            // Another incarnation at the same URL: the old one has left, whatever its session says.
            leave(peer, "its URL joined again as " + proven.id());
        }
        LOG.debug("Oort node {} at {} has a session here", proven.id(), proven.url());
        if (peer.inboundId != null && !peer.inboundId.equals(proven.id())) {
            // An incarnation that never joined here is replaced: nothing of it is kept.
            heardNanos.remove(peer.inboundId);
            sequences.forget(peer.inboundId);
        }
        peer.inboundId = proven.id();
        peer.inbound = session;
        peer.inboundSinceNanos = System.nanoTime();
        heard(proven.id());
        session.addRemovedListener((removed, message, expired) -> inboundRemoved(proven, removed, expired));
        update(peer);
        if (peer.member == null && peer.link != null && peer.linkConnected) {
            // Our link looks connected but has not answered since this incarnation came: ask it now.
            Link link = peer.link;
            listener.probeSoon(link);
        }
        return peer.link == null;
    }

    private synchronized void linkAnswered(Link link) {
        Peer peer = peersByUrl.get(link.target());
        if (peer != null && peer.link == link) {
            update(peer);
        }
    }

    private synchronized void inboundRemoved(JoinProof.Peer proven, ServerSession session, boolean expired) {
        Peer peer = peersByUrl.get(proven.url());
        if (stopped || peer == null || peer.inbound != session) {
            return;
        }
        leave(peer, expired ? "its session expired" : "its session ended");
        peer.inbound = null;
        peer.inboundId = null;
    }

    /** @param id an incarnation that sent something on its link here */
    void heard(String id) {
        heardNanos.put(id, System.nanoTime());
    }

    /** @return the links that are connected now, for heartbeats */
    synchronized List<Link> connectedLinks() {
        List<Link> links = new ArrayList<>();
        for (Peer peer : peersByUrl.values()) {
            if (peer.link != null && peer.linkConnected) {
                links.add(peer.link);
            }
        }
        return links;
    }

    /** @return the members joined now, as gossip: a list of {@code {id, url}} */
    synchronized List<Map<String, Object>> gossip() {
        List<Map<String, Object>> list = new ArrayList<>();
        for (Peer peer : peersByUrl.values()) {
            if (peer.member != null) {
                list.add(Map.of("id", peer.member.id(), "url", peer.url));
            }
        }
        return list;
    }

    /**
     * A peer's full list of its joined members, which replaces the one it sent before: every URL in it this node has
     * no link to is dialled (its node proves itself on its own join before it counts).
     *
     * @param from the peer that sent it, authenticated
     * @param list its members
     */
    void gossiped(JoinProof.Peer from, List<?> list) {
        List<String> toDial = new ArrayList<>();
        synchronized (this) {
            Peer sender = peersByUrl.get(from.url());
            if (stopped || sender == null || !from.id().equals(sender.inboundId)) {
                return;
            }
            sender.gossiped = list.size();
            Set<String> urls = new HashSet<>();
            for (Object entry : list) {
                // At most as many as this node keeps: a longer list is a flood, not a cluster.
                if (urls.size() >= config.maxKnownUrls()) {
                    break;
                }
                if (entry instanceof Map<?, ?> fields && fields.get("url") instanceof String url
                        && !url.equals(config.url())) {
                    urls.add(url);
                    Peer known = peersByUrl.get(url);
                    if (known == null || known.link == null) {
                        toDial.add(url);
                    }
                }
            }
            sender.listed = Set.copyOf(urls);
        }
        for (String url : toDial) {
            LOG.debug("Oort node {} dials {}, gossiped by {}", self.id(), url, from.id());
            dial(url);
        }
    }

    /**
     * Finds the joined peers silent for longer than the timeout in either direction (nothing heard on their link
     * here, or nothing answered on ours): each has left, both its links are torn down, and its URL is dialled again
     * after a back-off.
     *
     * @param timeout the peer timeout
     * @param backoffBase the first back-off, doubled with each teardown in a row
     * @param redial schedules a dial of a URL after a delay
     * @return what to close, outside the lock
     */
    synchronized List<Runnable> expireSilent(Duration timeout, Duration backoffBase,
            BiConsumer<String, Duration> redial) {
        long now = System.nanoTime();
        long limit = timeout.toNanos();
        List<Runnable> closes = new ArrayList<>();
        for (Peer peer : peersByUrl.values()) {
            if (stopped || peer.member == null) {
                continue;
            }
            Long heard = heardNanos.get(peer.member.id());
            boolean inboundSilent = heard == null || now - heard > limit;
            boolean linkSilent = peer.link == null || now - peer.link.lastAnsweredNanos() > limit;
            if (!inboundSilent && !linkSilent) {
                continue;
            }
            leave(peer, (inboundSilent ? "nothing heard from it" : "nothing answered on our link") + " for "
                    + timeout.toMillis() + " ms");
            Link link = peer.link;
            ServerSession inbound = peer.inbound;
            peer.link = null;
            peer.linkConnected = false;
            peer.inbound = null;
            peer.inboundId = null;
            refreshJoinedLinks();
            if (link != null) {
                closes.add(link::close);
            }
            if (inbound != null) {
                closes.add(inbound::disconnect);
            }
            int shift = Math.min(peer.teardowns++, 5);
            Duration backoff = backoffBase.multipliedBy(1L << shift);
            redial.accept(peer.url, backoff.compareTo(timeout) > 0 ? timeout : backoff);
        }
        return closes;
    }

    /**
     * This node took a new incarnation: every link made for the old one is closed (its peers see the old incarnation
     * leave) and a new one dialled, which joins as the new incarnation. Peers stay joined here: their incarnations did
     * not change.
     *
     * @return the new links to open and the old ones to close, outside the lock
     */
    synchronized List<Runnable> reincarnated() {
        List<Runnable> actions = new ArrayList<>();
        if (stopped) {
            return actions;
        }
        for (Peer peer : peersByUrl.values()) {
            Link old = peer.link;
            if (old == null) {
                continue;
            }
            peer.link = null;
            peer.linkConnected = false;
            Link fresh = newLink(peer.url);
            actions.add(old::close);
            if (fresh != null) {
                actions.add(fresh::open);
            }
        }
        refreshJoinedLinks();
        return actions;
    }

    /**
     * Joins the peer if both ways work now: its incarnation's session is here, and our link to it is connected and
     * answered since that session came (a link that stalled looks connected until it fails, and must not let a new
     * incarnation join).
     */
    private void update(Peer peer) {
        if (!stopped && peer.member == null && peer.inboundId != null && peer.link != null && peer.linkConnected
                && peer.link.lastAnsweredNanos() - peer.inboundSinceNanos >= 0) {
            peer.teardowns = 0;
            peer.member = new ClusterMember(peer.inboundId, peer.url);
            // A new chain of forwards for a new incarnation of the peer.
            peer.link.forwards().startChain(peer.member.id());
            stats.joins.increment();
            LOG.info("Oort node {} at {} joined (node {} now has {} members)", peer.member.id(), peer.url, self.id(),
                    countMembers());
            listener.joined(peer.member);
            refreshJoinedLinks();
        }
    }

    private void leave(Peer peer, String why) {
        ClusterMember member = peer.member;
        if (member == null) {
            return;
        }
        peer.member = null;
        departed.put(member.id(), Boolean.TRUE);
        stats.leaves.increment();
        sequences.forget(member.id());
        heardNanos.remove(member.id());
        if (peer.link != null) {
            // Nothing is resent to an incarnation that left.
            stats.unacknowledgedDropped.add(peer.link.forwards().reset());
        }
        LOG.info("Oort node {} at {} left: {} (node {} now has {} members)", member.id(), peer.url, why, self.id(),
                countMembers());
        listener.left(member);
        refreshJoinedLinks();
    }

    private int countMembers() {
        int count = 0;
        for (Peer peer : peersByUrl.values()) {
            if (peer.member != null) {
                count++;
            }
        }
        return count;
    }

    private void refreshJoinedLinks() {
        List<Link> links = new ArrayList<>();
        for (Peer peer : peersByUrl.values()) {
            if (peer.member != null && peer.link != null) {
                links.add(peer.link);
            }
        }
        joinedLinks = List.copyOf(links);
    }

    /** @return one snapshot per known URL */
    synchronized List<LinkSnapshot> snapshot() {
        long now = System.nanoTime();
        List<LinkSnapshot> snapshots = new ArrayList<>();
        for (Peer peer : peersByUrl.values()) {
            Link link = peer.link;
            Long heard = peer.member == null ? null : heardNanos.get(peer.member.id());
            long rtt = link == null ? -1 : link.rttNanos();
            snapshots.add(new LinkSnapshot(peer.url, link == null ? "NONE" : link.state().name(), peer.inboundId,
                    peer.member == null ? null : peer.member.id(), rtt < 0 ? null : Duration.ofNanos(rtt),
                    heard == null ? null : Duration.ofNanos(now - heard),
                    link == null ? 0 : link.forwards().size(), link == null ? 0 : link.forwards().bytes(),
                    link == null ? 0 : link.forwards().resent(), peer.gossiped));
        }
        return snapshots;
    }

    /** @return every link, to close; nothing joins or leaves from now on */
    synchronized List<Link> stop() {
        stopped = true;
        joinedLinks = List.of();
        List<Link> links = new ArrayList<>();
        for (Peer peer : peersByUrl.values()) {
            if (peer.link != null) {
                links.add(peer.link);
            }
        }
        return links;
    }
}
