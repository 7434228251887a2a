package org.bayeux.oort;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;

import org.bayeux.api.Promise;
import org.bayeux.api.server.ServerSession;
import org.bayeux.api.server.SessionRemovedListener;
import org.bayeux.server.cluster.ClusterListener;
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
 * <p>Each node keeps its own users (user id to its sessions here; an association ends when the session goes) and a
 * copy of every joined member's list of user ids. A user is present on a node from its first association there to
 * its last disassociation; each such change is numbered and sent to every joined member ({@code present}/
 * {@code absent}); a member that sees a number skip (a message lost) pulls this node's whole list. On every
 * {@code joined} of a member (a new incarnation: a restart or a healed partition) each side sends its full list, and
 * the receiver <em>replaces</em> what it had of that member; when a member leaves, its users are removed here, with
 * an {@code absent} event for each. Lists are split into messages under {@code oort.maxMessageBytes}.</p>
 *
 * <p>Runs on the service channel {@code /service/oort/seti}. Listeners are told on the thread of the change (a
 * caller of {@link #associate}, the thread that received a peer's message, or Oort's membership thread); an exception
 * is logged and the next listener told.</p>
 */
public final class Seti {
    /** The service name, on {@code /service/oort/seti}. */
    public static final String SERVICE = "seti";
    private static final Logger LOG = LoggerFactory.getLogger(Seti.class);
    /** The largest user id, as JSON: a list message holds at least one in {@code oort.maxMessageBytes} >= 1024. */
    static final int MAX_USER_ID_BYTES = 512;

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

    private record Event(boolean present, String userId, ClusterMember member, boolean local) {
    }

    private final PeerMessaging messaging;
    /** This node's users: each user's sessions here, and the listener that removes it when a session goes. */
    private final Map<String, Map<ServerSession, SessionRemovedListener>> local = new HashMap<>();
    /** Each joined member's users, by member id. */
    private final Map<String, Set<String>> remote = new HashMap<>();
    private final Map<String, ClusterMember> remoteMembers = new HashMap<>();
    /** Lists being received in several messages, by member id. */
    private final Map<String, Set<String>> incoming = new HashMap<>();
    /** The version of each member's list this node has: how many presence changes of that member it applied. */
    private final Map<String, Long> remoteVersions = new HashMap<>();
    /** When this node last asked a member for its list because of a gap (System.nanoTime). */
    private final Map<String, Long> pullingSince = new HashMap<>();
    private final long pullRetryNanos;
    private final LongAdder gaps = new LongAdder();
    private final LongAdder pulls = new LongAdder();
    /** How many presence changes of this node were sent: each present or absent carries the next number. */
    private long version;
    private final List<PresenceListener> listeners = new CopyOnWriteArrayList<>();

    /**
     * Registers Seti on a node. Create it on every node, preferably before the engine starts (one created later asks
     * every member joined then for its list).
     *
     * @param oort the node
     */
    public Seti(Oort oort) {
        this.messaging = oort.messaging();
        this.pullRetryNanos = oort.config().peerTimeout().toNanos();
        messaging.register(SERVICE, this::received);
        messaging.addMembershipListener(new ClusterListener() {
            @Override
            public void joined(ClusterMember member) {
                // Each side sends its list and asks for the other's: a list sent before this side had the member
                // joined was dropped here (messages count only from joined members).
                sendAll(member);
                sendQuietly(member, Map.of("type", "pull"));
            }

            @Override
            public void left(ClusterMember member) {
                removeMember(member);
            }
        });
        for (ClusterMember member : messaging.members()) {
            sendQuietly(member, Map.of("type", "pull"));
        }
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
        checkUser(userId);
        Objects.requireNonNull(session, "session");
        List<Event> events = new ArrayList<>();
        SessionRemovedListener onRemoved = (removed, message, expired) -> disassociate(userId, removed);
        synchronized (this) {
            Map<ServerSession, SessionRemovedListener> sessions = local.computeIfAbsent(userId,
                    u -> new LinkedHashMap<>());
            if (sessions.containsKey(session)) {
                return false;
            }
            sessions.put(session, onRemoved);
            if (sessions.size() == 1) {
                events.add(new Event(true, userId, messaging.self(), true));
                broadcastQuietly(Map.of("type", "present", "userId", userId, "version", ++version));
            }
        }
        session.addRemovedListener(onRemoved);
        if (session.getState() != null && session.getState().isEnded()) {
            // The session ended before its listener was added: it would never be told.
            disassociate(userId, session);
        }
        fire(events);
        return true;
    }

    /**
     * @param userId a user
     * @param session a session it was associated with
     * @return true if they were associated
     */
    public boolean disassociate(String userId, ServerSession session) {
        List<Event> events = new ArrayList<>();
        SessionRemovedListener onRemoved;
        synchronized (this) {
            Map<ServerSession, SessionRemovedListener> sessions = local.get(userId);
            onRemoved = sessions == null ? null : sessions.remove(session);
            if (onRemoved == null) {
                return false;
            }
            if (sessions.isEmpty()) {
                local.remove(userId);
                events.add(new Event(false, userId, messaging.self(), true));
                broadcastQuietly(Map.of("type", "absent", "userId", userId, "version", ++version));
            }
        }
        session.removeRemovedListener(onRemoved);
        fire(events);
        return true;
    }

    /**
     * @param userId a user
     * @return true if it is associated with a session on this node or, as far as this node knows, on a joined one
     */
    public synchronized boolean isPresent(String userId) {
        if (local.containsKey(userId)) {
            return true;
        }
        for (Set<String> users : remote.values()) {
            if (users.contains(userId)) {
                return true;
            }
        }
        return false;
    }

    /** @return the users present on this node or on a joined one, sorted */
    public synchronized Set<String> userIds() {
        Set<String> all = new TreeSet<>(local.keySet());
        remote.values().forEach(all::addAll);
        return all;
    }

    /** @return the users present on this node, sorted */
    public synchronized Set<String> localUserIds() {
        return new TreeSet<>(local.keySet());
    }

    /**
     * @param userId a user
     * @return the joined members it is present on (not this node)
     */
    public synchronized List<ClusterMember> membersOf(String userId) {
        List<ClusterMember> members = new ArrayList<>();
        remote.forEach((id, users) -> {
            if (users.contains(userId)) {
                members.add(remoteMembers.get(id));
            }
        });
        return members;
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
        checkUser(userId);
        Objects.requireNonNull(channel, "channel");
        boolean reached = deliverLocally(userId, channel, data);
        List<ClusterMember> members = membersOf(userId);
        if (!members.isEmpty()) {
            Map<String, Object> message = new HashMap<>();
            message.put("type", "deliver");
            message.put("userId", userId);
            message.put("channel", channel);
            message.put("data", data);
            for (ClusterMember member : members) {
                reached |= messaging.send(member, SERVICE, message);
            }
        }
        return reached;
    }

    private boolean deliverLocally(String userId, String channel, Object data) {
        List<ServerSession> sessions;
        synchronized (this) {
            Map<ServerSession, SessionRemovedListener> found = local.get(userId);
            sessions = found == null ? List.of() : List.copyOf(found.keySet());
        }
        for (ServerSession session : sessions) {
            session.deliver(null, channel, data, Promise.noop());
        }
        return !sessions.isEmpty();
    }

    private void received(ClusterMember from, Map<String, Object> data) {
        Object type = data.get("type");
        Object user = data.get("userId");
        if ("deliver".equals(type) && user instanceof String userId && data.get("channel") instanceof String channel) {
            deliverLocally(userId, channel, data.get("data"));
            return;
        }
        if ("pull".equals(type)) {
            sendAll(from);
            return;
        }
        if (!(data.get("version") instanceof Number number)) {
            return;
        }
        long received = number.longValue();
        List<Event> events = new ArrayList<>();
        boolean pull = false;
        synchronized (this) {
            if (messaging.hasLeft(from.id())) {
                return;
            }
            Long known = remoteVersions.get(from.id());
            boolean change = ("present".equals(type) || "absent".equals(type)) && user instanceof String;
            if (change && (known == null || received > known + 1)) {
                // A change lost on the way (or one before the member's list): its whole list is pulled.
                gaps.increment();
                pull = startPull(from.id());
            } else if (change && received == known + 1) {
                remoteVersions.put(from.id(), received);
                applyChange(from, "present".equals(type), (String) user, events);
            } else if (change) {
                LOG.debug("Seti: an old presence change from node {}: dropped", from.id());
            } else if ("all".equals(type) && data.get("userIds") instanceof List<?> ids) {
                Set<String> list = Boolean.TRUE.equals(data.get("first")) ? new HashSet<>()
                        : incoming.computeIfAbsent(from.id(), id -> new HashSet<>());
                for (Object id : ids) {
                    if (id instanceof String userId) {
                        list.add(userId);
                    }
                }
                if (Boolean.TRUE.equals(data.get("last"))) {
                    incoming.remove(from.id());
                    pullingSince.remove(from.id());
                    remoteVersions.put(from.id(), received);
                    replace(from, list, events);
                } else {
                    incoming.put(from.id(), list);
                }
            } else {
                LOG.debug("A Seti message of an unknown type from node {}: dropped", from.id());
            }
        }
        if (pull) {
            pulls.increment();
            sendQuietly(from, Map.of("type", "pull"));
        }
        fire(events);
    }

    private void applyChange(ClusterMember from, boolean present, String userId, List<Event> events) {
        remoteMembers.put(from.id(), from);
        Set<String> users = remote.computeIfAbsent(from.id(), id -> new HashSet<>());
        if (present ? users.add(userId) : users.remove(userId)) {
            events.add(new Event(present, userId, from, false));
        }
    }

    /** @return true if a pull is to be asked for: none is outstanding, or the last got no answer in time */
    private boolean startPull(String memberId) {
        long now = System.nanoTime();
        Long since = pullingSince.get(memberId);
        if (since != null && now - since < pullRetryNanos) {
            return false;
        }
        pullingSince.put(memberId, now);
        return true;
    }

    /** @return how many times a member's presence changes skipped a number here (each makes this node pull its list) */
    public long gaps() {
        return gaps.sum();
    }

    /** @return how many lists this node asked members for because of a gap (not counting those of joins) */
    public long pulls() {
        return pulls.sum();
    }

    /**
     * @param memberId a member's id
     * @return true if this node has received that member's whole list since it joined
     */
    synchronized boolean hasListOf(String memberId) {
        return remoteVersions.containsKey(memberId);
    }

    /** A member's full list replaces what this node had of it: the differences are the events. */
    private void replace(ClusterMember from, Set<String> list, List<Event> events) {
        Set<String> old = remote.getOrDefault(from.id(), Set.of());
        for (String userId : old) {
            if (!list.contains(userId)) {
                events.add(new Event(false, userId, from, false));
            }
        }
        for (String userId : list) {
            if (!old.contains(userId)) {
                events.add(new Event(true, userId, from, false));
            }
        }
        remote.put(from.id(), list);
        remoteMembers.put(from.id(), from);
    }

    private void removeMember(ClusterMember member) {
        List<Event> events = new ArrayList<>();
        synchronized (this) {
            incoming.remove(member.id());
            remoteVersions.remove(member.id());
            pullingSince.remove(member.id());
            remoteMembers.remove(member.id());
            Set<String> users = remote.remove(member.id());
            if (users != null) {
                for (String userId : users) {
                    events.add(new Event(false, userId, member, false));
                }
            }
        }
        fire(events);
    }

    /**
     * Sends this node's full list to a member, split into messages under the size limit. Under the lock, so that no
     * {@code present} or {@code absent} sent meanwhile can overtake it on the link.
     */
    private synchronized void sendAll(ClusterMember member) {
        int budget = messaging.maxMessageBytes() - 256;
        List<List<String>> chunks = new ArrayList<>();
        List<String> chunk = new ArrayList<>();
        int size = 0;
        for (String userId : local.keySet()) {
            int weight = messaging.jsonBytes(userId) + 1;
            if (!chunk.isEmpty() && size + weight > budget) {
                chunks.add(chunk);
                chunk = new ArrayList<>();
                size = 0;
            }
            chunk.add(userId);
            size += weight;
        }
        chunks.add(chunk);
        for (int i = 0; i < chunks.size(); i++) {
            Map<String, Object> message = new HashMap<>();
            message.put("type", "all");
            message.put("userIds", chunks.get(i));
            message.put("first", i == 0);
            message.put("last", i == chunks.size() - 1);
            message.put("version", version);
            if (!sendQuietly(member, message)) {
                return;
            }
        }
    }

    private boolean sendQuietly(ClusterMember member, Map<String, Object> message) {
        try {
            if (messaging.send(member, SERVICE, message)) {
                return true;
            }
            LOG.debug("Seti could not send to node {} (not joined, or its link is full)", member.id());
        } catch (RuntimeException e) {
            LOG.warn("Seti could not send to node {}", member.id(), e);
        }
        return false;
    }

    private void broadcastQuietly(Map<String, Object> message) {
        try {
            messaging.broadcast(SERVICE, message);
        } catch (RuntimeException e) {
            LOG.warn("Seti could not tell the other nodes of a presence change", e);
        }
    }

    private void fire(List<Event> events) {
        for (Event event : events) {
            for (PresenceListener listener : listeners) {
                try {
                    if (event.present()) {
                        listener.present(event.userId(), event.member(), event.local());
                    } else {
                        listener.absent(event.userId(), event.member(), event.local());
                    }
                } catch (RuntimeException e) {
                    LOG.warn("A Seti presence listener failed", e);
                }
            }
        }
    }

    private void checkUser(String userId) {
        if (userId == null || userId.isEmpty()) {
            throw new IllegalArgumentException("A Seti user id must be a non-empty string");
        }
        if (messaging.jsonBytes(userId) > MAX_USER_ID_BYTES) {
            // Lists are split into messages of at least one user id each: one must fit with room to spare.
            throw new IllegalArgumentException("A Seti user id must be at most " + MAX_USER_ID_BYTES
                    + " bytes of JSON");
        }
    }
}
