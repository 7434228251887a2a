package org.bayeux.oort;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;

import org.bayeux.api.server.ServerSession;
import org.bayeux.client.BayeuxClient;
import org.bayeux.server.cluster.ClusterMember;
import org.bayeux.server.cluster.ClusterNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who this node's peers are, one entry per URL: this node's link to the URL and the session that the node at the URL
 * opened here with a good proof (which names its incarnation). A peer has joined when both are up; it has left when
 * its session here ends, when it is silent for the peer timeout in either direction, or when a new incarnation at its
 * URL proves itself (a restart: {@code left} of the old one, then {@code joined} of the new one). Membership changes are rare: one lock, never held while waiting on the network.
 */
final class Membership {
    private static final Logger LOG = LoggerFactory.getLogger(Membership.class);

    private final Oort oort;
    private final Map<String, Peer> peersByUrl = new HashMap<>();
    /** When each incarnation was last heard on its link here (System.nanoTime): read and written without the lock. */
    private final Map<String, Long> heardNanos = new ConcurrentHashMap<>();
    private volatile List<Link> joinedLinks = List.of();
    private boolean stopped;

    /** One URL's state. */
    private static final class Peer {
        final String url;
        Link link;
        boolean linkConnected;
        String inboundId;
        ServerSession inbound;
        ClusterMember member;
        /** Links torn down in a row because the peer went silent: the back-off before dialling again. */
        int silentTeardowns;

        Peer(String url) {
            this.url = url;
        }
    }

    Membership(Oort oort) {
        this.oort = oort;
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

    /**
     * Dials a URL, unless a link to it exists: a seed, or a URL whose node proved the secret.
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
        if (stopped || url.equals(oort.config().url())) {
            return null;
        }
        Peer peer = peersByUrl.computeIfAbsent(url, Peer::new);
        if (peer.link != null) {
            return null;
        }
        peer.link = new Link(url, oort.id(), oort.config(), oort.proof(), oort.resources(), this::linkChanged);
        LOG.debug("Oort node {} dials {}", oort.id(), url);
        return peer.link;
    }

    private synchronized void linkChanged(Link link, BayeuxClient.State state) {
        Peer peer = peersByUrl.get(link.target());
        if (peer == null || peer.link != link) {
            return;
        }
        peer.linkConnected = state == BayeuxClient.State.CONNECTED;
        LOG.debug("Oort link to {} is {}", link.target(), state);
        update(peer);
    }

    /**
     * A node's link proved the secret and its session was added here: dial it back if there is no link yet.
     *
     * @param proven the node, as its proof names it
     * @param session its session here
     */
    void inboundAdded(JoinProof.Peer proven, ServerSession session) {
        if (register(proven, session)) {
            // Dialled back only now that its URL proved the secret.
            dial(proven.url());
        }
    }

    /** @return true if the node has no link yet */
    private synchronized boolean register(JoinProof.Peer proven, ServerSession session) {
        if (stopped || proven.url().equals(oort.config().url())) {
            return false;
        }
        Peer peer = peersByUrl.computeIfAbsent(proven.url(), Peer::new);
        if (peer.inboundId != null && !peer.inboundId.equals(proven.id())) {
            // A new incarnation at the same URL: the old one has left, whatever its session says.
            leave(peer, "restarted as " + proven.id());
        }
        LOG.debug("Oort node {} at {} has a session here", proven.id(), proven.url());
        peer.inboundId = proven.id();
        peer.inbound = session;
        heard(proven.id());
        session.addRemovedListener((removed, message, expired) -> inboundRemoved(proven, removed, expired));
        update(peer);
        return peer.link == null;
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
            if (link != null) {
                closes.add(link::close);
            }
            if (inbound != null) {
                closes.add(inbound::disconnect);
            }
            int shift = Math.min(peer.silentTeardowns++, 5);
            Duration backoff = backoffBase.multipliedBy(1L << shift);
            redial.accept(peer.url, backoff.compareTo(timeout) > 0 ? timeout : backoff);
        }
        return closes;
    }

    private void update(Peer peer) {
        if (!stopped && peer.member == null && peer.inboundId != null && peer.linkConnected) {
            peer.silentTeardowns = 0;
            peer.member = new ClusterMember(peer.inboundId, peer.url);
            oort.stats().joins.increment();
            LOG.info("Oort node {} at {} joined", peer.member.id(), peer.url);
            ClusterNode node = oort.node();
            if (node != null) {
                node.joined(peer.member);
            }
            refreshJoinedLinks();
        }
    }

    private void leave(Peer peer, String why) {
        ClusterMember member = peer.member;
        if (member == null) {
            return;
        }
        peer.member = null;
        oort.stats().leaves.increment();
        oort.sequences().forget(member.id());
        heardNanos.remove(member.id());
        LOG.info("Oort node {} at {} left: {}", member.id(), peer.url, why);
        ClusterNode node = oort.node();
        if (node != null) {
            node.left(member);
        }
        refreshJoinedLinks();
    }

    private void refreshJoinedLinks() {
        List<Link> links = new ArrayList<>();
        for (Peer peer : peersByUrl.values()) {
            if (peer.member != null) {
                links.add(peer.link);
            }
        }
        joinedLinks = List.copyOf(links);
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
