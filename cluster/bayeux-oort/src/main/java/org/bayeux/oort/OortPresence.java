package org.bayeux.oort;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;

import org.bayeux.api.Promise;
import org.bayeux.api.server.BayeuxServer;
import org.bayeux.api.server.ServerChannel;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.api.server.SubscriptionListener;
import org.bayeux.server.cluster.ClusterListener;
import org.bayeux.server.cluster.ClusterMember;
import org.bayeux.server.cluster.Presence;
import org.bayeux.server.cluster.PresenceEntry;
import org.bayeux.server.cluster.PresenceEvent;
import org.bayeux.server.cluster.PresenceListeners;
import org.bayeux.server.cluster.SingleNodePresence;
import org.bayeux.server.cluster.UserTies;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's presence seam on an Oort mesh ({@link Oort#presence()}), and what {@link Seti} is a view of.
 *
 * <p>Each node keeps its own presence (its users: user id to its sessions here, a tie ending with its session; its
 * sessions' subscriptions to plain channels) and a copy of every joined member's. Every change of this node's
 * presence is numbered and sent to every joined member: a user becoming {@code present} here or {@code absent}, a
 * session's {@code join} of a channel (sent again when its session's user changes) or {@code leave}; a member that
 * sees a number skip (a message lost) pulls this node's whole list. On every {@code joined} of a member (a new
 * incarnation: a restart or a healed partition) each side sends its full list, and the receiver <em>replaces</em> what
 * it had of that member; when a member leaves, its users and entries are removed here, with an event for each. Lists
 * are split into messages under {@code oort.maxMessageBytes}.</p>
 *
 * <p>Runs on the service channel {@code /service/oort/seti}, from its creation (on the first {@link Oort#presence()}
 * or {@link Seti}) until {@link #stop()}. Every answer is this node's copy, complete at once. Listeners are told on the
 * thread of the change (a caller of {@link #associate}, a subscriber's, the thread that received a peer's message, or
 * Oort's membership thread); an exception is logged and the next listener told.</p>
 */
final class OortPresence implements Presence {
    private static final Logger LOG = LoggerFactory.getLogger(OortPresence.class);
    /** The largest user id, as JSON: a list message holds at least one in {@code oort.maxMessageBytes} >= 1024. */
    static final int MAX_USER_ID_BYTES = 512;

    /** Told of each event with the member it happened on, for {@link Seti}'s listeners. */
    interface MemberListener {
        /**
         * @param event the event
         * @param member the node it happened on
         * @param local true if that is this node
         */
        void changed(PresenceEvent event, ClusterMember member, boolean local);
    }

    private record Change(PresenceEvent event, ClusterMember member, boolean local) {
    }

    private final PeerMessaging messaging;
    private final BayeuxServer engine;
    private final long pullRetryNanos;
    private final UserTies ties = new UserTies(this, this::disassociate);
    /** This node's sessions subscribed to each plain channel. Guarded by this. */
    private final Map<String, Set<String>> localEntries = new HashMap<>();
    /** Each joined member's users, by member id. Guarded by this. */
    private final Map<String, Set<String>> remote = new HashMap<>();
    /** Each joined member's entries: channel to session id to user id (null if untied), by member id. */
    private final Map<String, Map<String, Map<String, String>>> remoteEntries = new HashMap<>();
    private final Map<String, ClusterMember> remoteMembers = new HashMap<>();
    /** Lists being received in several messages, by member id. */
    private final Map<String, Set<String>> incoming = new HashMap<>();
    private final Map<String, Map<String, Map<String, String>>> incomingEntries = new HashMap<>();
    /** The version of each member's list this node has: how many presence changes of that member it applied. */
    private final Map<String, Long> remoteVersions = new HashMap<>();
    /** When this node last asked a member for its list because of a gap (System.nanoTime). */
    private final Map<String, Long> pullingSince = new HashMap<>();
    private final LongAdder gaps = new LongAdder();
    private final LongAdder pulls = new LongAdder();
    /** How many presence changes of this node were sent: each carries the next number. Guarded by this. */
    private long version;
    private final PresenceListeners listeners = new PresenceListeners();
    private final List<MemberListener> memberListeners = new CopyOnWriteArrayList<>();
    private final ClusterListener membership = new ClusterListener() {
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
    };
    private final SubscriptionListener subscriptions = new SubscriptionListener() {
        @Override
        public void subscribed(ServerSession session, ServerChannel channel, ServerMessage message) {
            if (SingleNodePresence.tracked(channel.getChannelId())) {
                changeEntry(channel.getId(), session.getId(), true);
            }
        }

        @Override
        public void unsubscribed(ServerSession session, ServerChannel channel, ServerMessage message) {
            if (SingleNodePresence.tracked(channel.getChannelId())) {
                changeEntry(channel.getId(), session.getId(), false);
            }
        }
    };
    private volatile boolean stopped;

    /**
     * Registers presence on a node: its service, membership and subscription listeners; asks every member joined now
     * for its list.
     *
     * @param messaging the node's peer messaging
     * @param engine the node's engine, whose subscriptions it tracks
     * @param pullRetry how long a pull without answer waits before another
     */
    OortPresence(PeerMessaging messaging, BayeuxServer engine, Duration pullRetry) {
        this.messaging = messaging;
        this.engine = engine;
        this.pullRetryNanos = pullRetry.toNanos();
        messaging.register(Seti.SERVICE, this::received);
        messaging.addMembershipListener(membership);
        engine.addSubscriptionListener(subscriptions);
        for (ServerChannel channel : engine.getChannels()) {
            for (ServerSession session : channel.getSubscribers()) {
                subscriptions.subscribed(session, channel, null);
            }
        }
        for (ClusterMember member : messaging.members()) {
            sendQuietly(member, Map.of("type", "pull"));
        }
    }

    /**
     * Stops presence on this node: its service, membership and subscription listeners are unregistered and the
     * other nodes' lists dropped (without events); answers are this node's alone from now on, and stay so.
     */
    void stop() {
        stopped = true;
        messaging.unregister(Seti.SERVICE);
        messaging.removeMembershipListener(membership);
        engine.removeSubscriptionListener(subscriptions);
        synchronized (this) {
            remote.clear();
            remoteEntries.clear();
            remoteMembers.clear();
            incoming.clear();
            incomingEntries.clear();
            remoteVersions.clear();
            pullingSince.clear();
        }
    }

    /** @return true once {@link #stop()} was called */
    boolean isStopped() {
        return stopped;
    }

    @Override
    public String nodeId() {
        return messaging.self().id();
    }

    @Override
    public void addListener(Listener listener) {
        listeners.add(listener);
    }

    @Override
    public void removeListener(Listener listener) {
        listeners.remove(listener);
    }

    void addMemberListener(MemberListener listener) {
        memberListeners.add(Objects.requireNonNull(listener, "listener"));
    }

    void removeMemberListener(MemberListener listener) {
        memberListeners.remove(listener);
    }

    @Override
    public boolean associate(String userId, ServerSession session) {
        checkUser(userId);
        List<Change> events = new ArrayList<>();
        boolean tied = ties.tie(userId, session, () -> {
            events.add(localChange(null, null, userId, true));
            broadcastQuietly(Map.of("type", "present", "userId", userId, "version", ++version));
        });
        if (tied) {
            retie(session);
        }
        fire(events);
        return tied;
    }

    @Override
    public boolean disassociate(String userId, ServerSession session) {
        List<Change> events = new ArrayList<>();
        boolean untied = ties.untie(userId, session, () -> {
            events.add(localChange(null, null, userId, false));
            broadcastQuietly(Map.of("type", "absent", "userId", userId, "version", ++version));
        });
        if (untied) {
            retie(session);
        }
        fire(events);
        return untied;
    }

    /** A session's user changed: its entries are sent again, with the user it has now (no event). */
    private void retie(ServerSession session) {
        for (ServerChannel channel : session.getSubscriptions()) {
            synchronized (this) {
                Set<String> sessions = localEntries.get(channel.getId());
                if (sessions != null && sessions.contains(session.getId())) {
                    broadcastQuietly(entryMessage("join", channel.getId(), session.getId()));
                }
            }
        }
    }

    private void changeEntry(String channel, String sessionId, boolean joined) {
        List<Change> events = new ArrayList<>();
        synchronized (this) {
            boolean changed;
            if (joined) {
                changed = localEntries.computeIfAbsent(channel, c -> new LinkedHashSet<>()).add(sessionId);
            } else {
                Set<String> sessions = localEntries.get(channel);
                changed = sessions != null && sessions.remove(sessionId);
                if (changed && sessions.isEmpty()) {
                    localEntries.remove(channel);
                }
            }
            if (!changed) {
                return;
            }
            events.add(localChange(channel, sessionId, ties.userOf(sessionId), joined));
            broadcastQuietly(entryMessage(joined ? "join" : "leave", channel, sessionId));
        }
        fire(events);
    }

    /** Under the lock: the next number. */
    private Map<String, Object> entryMessage(String type, String channel, String sessionId) {
        Map<String, Object> message = new HashMap<>();
        message.put("type", type);
        message.put("channel", channel);
        message.put("sessionId", sessionId);
        String user = ties.userOf(sessionId);
        if (user != null && "join".equals(type)) {
            message.put("userId", user);
        }
        message.put("version", ++version);
        return message;
    }

    private Change localChange(String channel, String sessionId, String userId, boolean joined) {
        ClusterMember self = messaging.self();
        return new Change(new PresenceEvent(channel, new PresenceEntry(sessionId, userId, self.id()), joined), self,
                true);
    }

    private static Change remoteChange(ClusterMember member, String channel, String sessionId, String userId,
            boolean joined) {
        return new Change(new PresenceEvent(channel, new PresenceEntry(sessionId, userId, member.id()), joined),
                member, false);
    }

    @Override
    public synchronized CompletionStage<List<PresenceEntry>> members(String channel) {
        List<PresenceEntry> entries = new ArrayList<>();
        String self = messaging.self().id();
        for (String session : localEntries.getOrDefault(channel, Set.of())) {
            entries.add(new PresenceEntry(session, ties.userOf(session), self));
        }
        remoteEntries.forEach((memberId, channels) -> channels.getOrDefault(channel, Map.of()).forEach(
                (session, user) -> entries.add(new PresenceEntry(session, user, memberId))));
        return CompletableFuture.completedFuture(entries);
    }

    @Override
    public CompletionStage<Set<String>> userIds() {
        return CompletableFuture.completedFuture(allUserIds());
    }

    @Override
    public CompletionStage<Boolean> isPresent(String userId) {
        return CompletableFuture.completedFuture(present(userId));
    }

    /** @return the users present on this node or on a joined one, sorted */
    synchronized Set<String> allUserIds() {
        Set<String> all = new TreeSet<>(ties.userIds());
        remote.values().forEach(all::addAll);
        return all;
    }

    /** @return true if the user is tied to a session here or, as far as this node knows, on a joined node */
    synchronized boolean present(String userId) {
        if (ties.contains(userId)) {
            return true;
        }
        for (Set<String> users : remote.values()) {
            if (users.contains(userId)) {
                return true;
            }
        }
        return false;
    }

    /** @return the users present on this node, sorted */
    Set<String> localUserIds() {
        return ties.userIds();
    }

    /** @return the joined members the user is present on (not this node) */
    synchronized List<ClusterMember> membersOf(String userId) {
        List<ClusterMember> members = new ArrayList<>();
        remote.forEach((id, users) -> {
            if (users.contains(userId)) {
                members.add(remoteMembers.get(id));
            }
        });
        return members;
    }

    /** {@link Seti#sendToUser}. */
    boolean sendToUser(String userId, String channel, Object data) {
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
                reached |= messaging.send(member, Seti.SERVICE, message);
            }
        }
        return reached;
    }

    private boolean deliverLocally(String userId, String channel, Object data) {
        List<ServerSession> sessions = ties.sessionsOf(userId);
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
        if (!(data.get("version") instanceof Number number) || stopped) {
            return;
        }
        long received = number.longValue();
        List<Change> events = new ArrayList<>();
        boolean pull = false;
        synchronized (this) {
            if (messaging.hasLeft(from.id())) {
                return;
            }
            Long known = remoteVersions.get(from.id());
            boolean userChange = ("present".equals(type) || "absent".equals(type)) && user instanceof String;
            boolean entryChange = ("join".equals(type) || "leave".equals(type))
                    && data.get("channel") instanceof String && data.get("sessionId") instanceof String;
            boolean change = userChange || entryChange;
            if (change && (known == null || received > known + 1)) {
                // A change lost on the way (or one before the member's list): its whole list is pulled.
                gaps.increment();
                pull = startPull(from.id());
            } else if (change && received == known + 1) {
                remoteVersions.put(from.id(), received);
                remoteMembers.put(from.id(), from);
                if (userChange) {
                    applyUser(from, "present".equals(type), (String) user, events);
                } else {
                    applyEntry(from, "join".equals(type), (String) data.get("channel"),
                            (String) data.get("sessionId"), user instanceof String named ? named : null, events);
                }
            } else if (change) {
                LOG.debug("Presence: an old change from node {}: dropped", from.id());
            } else if ("all".equals(type) && data.get("userIds") instanceof List<?> ids) {
                boolean first = Boolean.TRUE.equals(data.get("first"));
                Set<String> list = first ? new HashSet<>() : incoming.computeIfAbsent(from.id(), id -> new HashSet<>());
                Map<String, Map<String, String>> entries = first ? new HashMap<>()
                        : incomingEntries.computeIfAbsent(from.id(), id -> new HashMap<>());
                for (Object id : ids) {
                    if (id instanceof String userId) {
                        list.add(userId);
                    }
                }
                if (data.get("entries") instanceof List<?> received0) {
                    for (Object item : received0) {
                        if (item instanceof List<?> entry && entry.size() == 3 && entry.get(0) instanceof String c
                                && entry.get(1) instanceof String s) {
                            entries.computeIfAbsent(c, k -> new HashMap<>())
                                    .put(s, entry.get(2) instanceof String u ? u : null);
                        }
                    }
                }
                if (Boolean.TRUE.equals(data.get("last"))) {
                    incoming.remove(from.id());
                    incomingEntries.remove(from.id());
                    pullingSince.remove(from.id());
                    remoteVersions.put(from.id(), received);
                    replace(from, list, entries, events);
                } else {
                    incoming.put(from.id(), list);
                    incomingEntries.put(from.id(), entries);
                }
            } else {
                LOG.debug("A presence message of an unknown type from node {}: dropped", from.id());
            }
        }
        if (pull) {
            pulls.increment();
            sendQuietly(from, Map.of("type", "pull"));
        }
        fire(events);
    }

    private void applyUser(ClusterMember from, boolean present, String userId, List<Change> events) {
        Set<String> users = remote.computeIfAbsent(from.id(), id -> new HashSet<>());
        if (present ? users.add(userId) : users.remove(userId)) {
            events.add(remoteChange(from, null, null, userId, present));
        }
    }

    private void applyEntry(ClusterMember from, boolean joined, String channel, String sessionId, String userId,
            List<Change> events) {
        Map<String, Map<String, String>> channels = remoteEntries.computeIfAbsent(from.id(), id -> new HashMap<>());
        if (joined) {
            Map<String, String> sessions = channels.computeIfAbsent(channel, c -> new HashMap<>());
            boolean known = sessions.containsKey(sessionId);
            sessions.put(sessionId, userId);
            if (!known) {
                events.add(remoteChange(from, channel, sessionId, userId, true));
            }
            return;
        }
        Map<String, String> sessions = channels.get(channel);
        if (sessions != null && sessions.containsKey(sessionId)) {
            String had = sessions.remove(sessionId);
            if (sessions.isEmpty()) {
                channels.remove(channel);
            }
            events.add(remoteChange(from, channel, sessionId, had, false));
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
    long gaps() {
        return gaps.sum();
    }

    /** @return how many lists this node asked members for because of a gap (not counting those of joins) */
    long pulls() {
        return pulls.sum();
    }

    /** @return true if this node has received that member's whole list since it joined */
    synchronized boolean hasListOf(String memberId) {
        return remoteVersions.containsKey(memberId);
    }

    /** A member's full list replaces what this node had of it: the differences are the events. */
    private void replace(ClusterMember from, Set<String> list, Map<String, Map<String, String>> entries,
            List<Change> events) {
        Set<String> old = remote.getOrDefault(from.id(), Set.of());
        for (String userId : old) {
            if (!list.contains(userId)) {
                events.add(remoteChange(from, null, null, userId, false));
            }
        }
        for (String userId : list) {
            if (!old.contains(userId)) {
                events.add(remoteChange(from, null, null, userId, true));
            }
        }
        Map<String, Map<String, String>> oldEntries = remoteEntries.getOrDefault(from.id(), Map.of());
        oldEntries.forEach((channel, sessions) -> sessions.forEach((session, user) -> {
            if (!entries.getOrDefault(channel, Map.of()).containsKey(session)) {
                events.add(remoteChange(from, channel, session, user, false));
            }
        }));
        entries.forEach((channel, sessions) -> sessions.forEach((session, user) -> {
            if (!oldEntries.getOrDefault(channel, Map.of()).containsKey(session)) {
                events.add(remoteChange(from, channel, session, user, true));
            }
        }));
        remote.put(from.id(), list);
        remoteEntries.put(from.id(), entries);
        remoteMembers.put(from.id(), from);
    }

    private void removeMember(ClusterMember member) {
        List<Change> events = new ArrayList<>();
        synchronized (this) {
            incoming.remove(member.id());
            incomingEntries.remove(member.id());
            remoteVersions.remove(member.id());
            pullingSince.remove(member.id());
            remoteMembers.remove(member.id());
            Set<String> users = remote.remove(member.id());
            if (users != null) {
                for (String userId : users) {
                    events.add(remoteChange(member, null, null, userId, false));
                }
            }
            Map<String, Map<String, String>> entries = remoteEntries.remove(member.id());
            if (entries != null) {
                entries.forEach((channel, sessions) -> sessions.forEach((session, user) ->
                        events.add(remoteChange(member, channel, session, user, false))));
            }
        }
        fire(events);
    }

    /**
     * Sends this node's full list to a member, split into messages under the size limit. Under the lock, so that no
     * change sent meanwhile can overtake it on the link.
     */
    private synchronized void sendAll(ClusterMember member) {
        int budget = messaging.maxMessageBytes() - 256;
        List<Map<String, Object>> messages = new ArrayList<>();
        List<String> users = new ArrayList<>();
        List<List<String>> entries = new ArrayList<>();
        int size = 0;
        List<Object> items = new ArrayList<>(ties.userIds());
        localEntries.forEach((channel, sessions) -> sessions.forEach(session ->
                items.add(Arrays.asList(channel, session, ties.userOf(session)))));
        for (Object item : items) {
            int weight = messaging.jsonBytes(item) + 1;
            if ((!users.isEmpty() || !entries.isEmpty()) && size + weight > budget) {
                messages.add(listMessage(users, entries));
                users = new ArrayList<>();
                entries = new ArrayList<>();
                size = 0;
            }
            if (item instanceof String user) {
                users.add(user);
            } else {
                @SuppressWarnings("unchecked")
                List<String> entry = (List<String>) item;
                entries.add(entry);
            }
            size += weight;
        }
        messages.add(listMessage(users, entries));
        for (int i = 0; i < messages.size(); i++) {
            Map<String, Object> message = messages.get(i);
            message.put("first", i == 0);
            message.put("last", i == messages.size() - 1);
            if (!sendQuietly(member, message)) {
                return;
            }
        }
    }

    private Map<String, Object> listMessage(List<String> users, List<List<String>> entries) {
        Map<String, Object> message = new HashMap<>();
        message.put("type", "all");
        message.put("userIds", users);
        if (!entries.isEmpty()) {
            message.put("entries", entries);
        }
        message.put("version", version);
        return message;
    }

    private boolean sendQuietly(ClusterMember member, Map<String, Object> message) {
        try {
            if (messaging.send(member, Seti.SERVICE, message)) {
                return true;
            }
            LOG.debug("Presence could not send to node {} (not joined, or its link is full)", member.id());
        } catch (RuntimeException e) {
            LOG.warn("Presence could not send to node {}", member.id(), e);
        }
        return false;
    }

    private void broadcastQuietly(Map<String, Object> message) {
        if (messaging.members().isEmpty()) {
            // Alone: nothing to encode (a member that joins gets the whole list, with this change's number).
            return;
        }
        try {
            messaging.broadcast(Seti.SERVICE, message);
        } catch (RuntimeException e) {
            LOG.warn("Presence could not tell the other nodes of a change", e);
        }
    }

    private void fire(List<Change> events) {
        for (Change change : events) {
            listeners.fire(change.event());
            for (MemberListener listener : memberListeners) {
                try {
                    listener.changed(change.event(), change.member(), change.local());
                } catch (RuntimeException e) {
                    LOG.warn("A Seti presence listener failed", e);
                }
            }
        }
    }

    private void checkUser(String userId) {
        SingleNodePresence.checkUser(userId);
        if (messaging.jsonBytes(userId) > MAX_USER_ID_BYTES) {
            // Lists are split into messages of at least one user id each: one must fit with room to spare.
            throw new IllegalArgumentException("A Seti user id must be at most " + MAX_USER_ID_BYTES
                    + " bytes of JSON");
        }
    }
}
