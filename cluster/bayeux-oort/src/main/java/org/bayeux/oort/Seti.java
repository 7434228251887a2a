package org.bayeux.oort;

import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import org.bayeux.api.server.ServerSession;
import org.bayeux.server.cluster.ClusterMember;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Users across the cluster: a user id associated with sessions of this node, reachable from any node.
 *
 * <pre>{@code
 * Seti seti = new Seti(oort);                      // on every node, before the engine starts
 * seti.associate("alice", serverSession);           // when alice logs in on this node
 * seti.sendToUser("alice", "/user/inbox", data);    // from any node
 * }</pre>
 *
 * <p>A view of the node's presence ({@link Oort#presence()}, the engine's presence seam on the mesh): associating a
 * user here is tying it there, and the users Seti sees are the seam's. A user is present on a node from its first
 * association there to its last disassociation; the nodes keep each other's lists as {@code OortPresence} describes,
 * on the service channel {@code /service/oort/seti}. New code may use the seam
 * ({@code engine.presence()}) and run unchanged on a single node or a backplane; Seti adds {@link #sendToUser} and
 * the {@link ClusterMember} of each event.</p>
 *
 * <p>Listeners are told on the thread of the change (a caller of {@link #associate}, the thread that received a
 * peer's message, or Oort's membership thread); an exception is logged and the next listener told. {@link #stop()}
 * unregisters Seti's listener and stops the node's presence.</p>
 */
public final class Seti {
    /** The service name, on {@code /service/oort/seti}. */
    public static final String SERVICE = "seti";
    private static final Logger LOG = LoggerFactory.getLogger(Seti.class);
    /** The largest user id, as JSON: a list message holds at least one in {@code oort.maxMessageBytes} >= 1024. */
    static final int MAX_USER_ID_BYTES = OortPresence.MAX_USER_ID_BYTES;

    /** Told when a user becomes present on a node or absent from it. */
    public interface PresenceListener {
        /**
         * @param userId the user
         * @param member the node it is now present on ({@link PeerMessaging#self()} for this node)
         * @param local true if the node is this one
         */
        default void present(String userId, ClusterMember member, boolean local) {
        }

        /**
         * @param userId the user
         * @param member the node it is no longer present on: its last session there went, or the node left
         * @param local true if the node is this one
         */
        default void absent(String userId, ClusterMember member, boolean local) {
        }
    }

    private final OortPresence presence;
    private final List<PresenceListener> listeners = new CopyOnWriteArrayList<>();
    private final OortPresence.MemberListener users = (event, member, local) -> {
        if (event.channel() != null) {
            return;
        }
        for (PresenceListener listener : listeners) {
            try {
                if (event.joined()) {
                    listener.present(event.entry().userId(), member, local);
                } else {
                    listener.absent(event.entry().userId(), member, local);
                }
            } catch (RuntimeException e) {
                LOG.warn("A Seti presence listener failed", e);
            }
        }
    };

    /**
     * Seti on a node: a view of its presence, which starts with the first of Seti or {@link Oort#presence()}. Create
     * it preferably before the engine starts (presence created later asks every member joined then for its list).
     *
     * @param oort the node
     */
    public Seti(Oort oort) {
        this.presence = oort.meshPresence();
        presence.addMemberListener(users);
    }

    /**
     * Stops Seti: its listener is unregistered, and the node's presence stops (its service channel, membership and
     * subscription listeners unregistered, the other nodes' users dropped): this node's own users only from now on.
     */
    public void stop() {
        presence.removeMemberListener(users);
        presence.stop();
    }

    /** @param listener told of presence changes on every node */
    public void addPresenceListener(PresenceListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /** @param listener a listener added before */
    public void removePresenceListener(PresenceListener listener) {
        listeners.remove(listener);
    }

    /**
     * Associates a user with a session of this node, until the session goes or {@link #disassociate} is called.
     *
     * @param userId the user, a non-empty string of at most 512 bytes as JSON
     * @param session a session of this node
     * @return true if the association is new
     * @throws IllegalArgumentException if the user id is empty or too long
     */
    public boolean associate(String userId, ServerSession session) {
        return presence.associate(userId, session);
    }

    /**
     * @param userId a user
     * @param session a session it was associated with
     * @return true if they were associated
     */
    public boolean disassociate(String userId, ServerSession session) {
        return presence.disassociate(userId, session);
    }

    /**
     * @param userId a user
     * @return true if it is associated with a session on this node or, as far as this node knows, on a joined one
     */
    public boolean isPresent(String userId) {
        return presence.present(userId);
    }

    /** @return the users present on this node or on a joined one, sorted */
    public Set<String> userIds() {
        return presence.allUserIds();
    }

    /** @return the users present on this node, sorted */
    public Set<String> localUserIds() {
        return presence.localUserIds();
    }

    /**
     * @param userId a user
     * @return the joined members it is present on (not this node)
     */
    public List<ClusterMember> membersOf(String userId) {
        return presence.membersOf(userId);
    }

    /**
     * Delivers data to every session of a user, on this node and on every joined node it is present on, without
     * waiting. Delivery to another node is at most once: lost if its link breaks meanwhile.
     *
     * @param userId the user
     * @param channel the channel the sessions receive it on (delivered to them whether or not they subscribe)
     * @param data the payload, JSON-serialisable
     * @return true if the user is present here or was sent to at least one node
     * @throws OortMessageTooLargeException if the message for another node is larger than {@code oort.maxMessageBytes}
     */
    public boolean sendToUser(String userId, String channel, Object data) {
        return presence.sendToUser(userId, channel, data);
    }

    /** @return how many times a member's presence changes skipped a number here (each makes this node pull its list) */
    public long gaps() {
        return presence.gaps();
    }

    /** @return how many lists this node asked members for because of a gap (not counting those of joins) */
    public long pulls() {
        return presence.pulls();
    }

    /**
     * @param memberId a member's id
     * @return true if this node has received that member's whole list since it joined
     */
    boolean hasListOf(String memberId) {
        return presence.hasListOf(memberId);
    }
}
