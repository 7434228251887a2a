package org.bayeux.standalone.demo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.bayeux.api.ChannelId;
import org.bayeux.api.Message;
import org.bayeux.api.Promise;
import org.bayeux.api.server.BayeuxServer;
import org.bayeux.api.server.LocalSession;
import org.bayeux.api.server.SecurityPolicy;
import org.bayeux.api.server.ServerChannel;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.api.server.SessionListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo chat across nodes that share a fan-out (the Redis backplane): each node publishes its <em>roster</em> (its
 * own rooms' members and its named sessions) on {@value #ROSTER_CHANNEL} at every change and every heartbeat, and
 * every node keeps the latest roster of every other node, <strong>replacing</strong> the previous one. A node that
 * stops says so ({@code bye}); a node that dies stops sending, and the others drop its roster once they have not heard
 * from it for the expiry: its members disappear within {@code expiry + heartbeat}. Private messages for a name some
 * other node has travel on {@value #PRIVATE_CHANNEL}; each node delivers them to its own sessions of that name.
 *
 * <p>Why rosters over the fan-out rather than the backplane's presence: presence knows sessions and nodes, not chat
 * names, and the roster needs nothing from the backplane but its fan-out, which every clustered engine has. Both
 * channels are server-to-server only: a security policy, wrapped around the engine's, refuses remote clients any
 * subscription that covers them (including {@code /**}) and any publish on {@code /chat-cluster/}.</p>
 *
 * <p>Bounds: a roster carries at most {@value #MAX_ROSTER_ENTRIES} names (room memberships and names together; the
 * rest is left out, with a warning); a remote roster is only read, never queued. Listeners run on the thread that
 * delivers the fan-out (never blocking) and the node's timer thread.</p>
 */
public final class BackplaneChat implements ChatService.Cluster, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(BackplaneChat.class);
    /** Where nodes publish their rosters. */
    public static final String ROSTER_CHANNEL = "/chat-cluster/roster";
    /** Where private messages for other nodes' sessions travel. */
    public static final String PRIVATE_CHANNEL = "/chat-cluster/private";
    /** How often a node publishes its roster when nothing changes. */
    public static final Duration DEFAULT_HEARTBEAT = Duration.ofSeconds(1);
    /** How long a node's roster is kept without news from it. */
    public static final Duration DEFAULT_EXPIRY = Duration.ofSeconds(5);
    static final int MAX_ROSTER_ENTRIES = 2000;
    private static final String PREFIX = "/chat-cluster/";
    private static final ChannelId ROSTER_ID = ChannelId.of(ROSTER_CHANNEL);
    private static final ChannelId PRIVATE_ID = ChannelId.of(PRIVATE_CHANNEL);

    private final BayeuxServer server;
    private final LocalSession session;
    /** This incarnation: a restarted node is a new one, whose roster is separate from its old one's (which expires). */
    private final String nodeId = UUID.randomUUID().toString();
    private final long expiryNanos;
    private final ScheduledExecutorService timer;
    private final AtomicBoolean sendQueued = new AtomicBoolean();
    private final AtomicBoolean truncationWarned = new AtomicBoolean();
    /** This node's named sessions. Guarded by this. */
    private final Map<ServerSession, String> names = new HashMap<>();
    /** This node's rooms: room → session → name. Guarded by this. */
    private final Map<String, Map<ServerSession, String>> rooms = new TreeMap<>();
    /** Other nodes' latest rosters, by node id. Guarded by this. */
    private final Map<String, Roster> remote = new HashMap<>();
    /** Guarded by this. */
    private long sequence;
    private volatile ChatService chat;
    private volatile boolean closed;

    /** One other node's roster, as last received, and when it expires (System.nanoTime). */
    private record Roster(long sequence, Map<String, Set<String>> rooms, Set<String> names, long expiresAt) {
    }

    /** @param server this node's engine, clustered on a backplane (or any cluster that fans broadcast channels out) */
    public BackplaneChat(BayeuxServer server) {
        this(server, DEFAULT_HEARTBEAT, DEFAULT_EXPIRY);
    }

    /**
     * @param server this node's engine, clustered on a backplane (or any cluster that fans broadcast channels out)
     * @param heartbeat how often the roster is published when nothing changes
     * @param expiry how long another node's roster is kept without news (more than twice the heartbeat)
     */
    public BackplaneChat(BayeuxServer server, Duration heartbeat, Duration expiry) {
        if (heartbeat.isNegative() || heartbeat.isZero() || expiry.compareTo(heartbeat.multipliedBy(2)) <= 0) {
            throw new IllegalArgumentException("heartbeat=" + heartbeat + ", expiry=" + expiry
                    + ": expected a positive heartbeat and an expiry of more than two heartbeats");
        }
        this.server = server;
        this.expiryNanos = expiry.toNanos();
        server.setSecurityPolicy(new Guard(server.getSecurityPolicy()));
        server.addSessionListener(new SessionListener() {
            @Override
            public void sessionRemoved(ServerSession ended, ServerMessage message, boolean expired) {
                boolean changed;
                synchronized (BackplaneChat.this) {
                    changed = names.remove(ended) != null;
                }
                if (changed) {
                    queueSend();
                }
            }
        });
        session = server.newLocalSession("chat-cluster");
        session.handshake();
        session.getChannel(ROSTER_CHANNEL).subscribe(this::onRoster, null);
        session.getChannel(PRIVATE_CHANNEL).subscribe(this::onPrivate, null);
        timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "chat-cluster");
            thread.setDaemon(true);
            return thread;
        });
        timer.scheduleWithFixedDelay(this::tick, 0, heartbeat.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** @return this node's incarnation id, as other nodes' rosters name it */
    public String nodeId() {
        return nodeId;
    }

    @Override
    public void attach(ChatService service) {
        this.chat = service;
    }

    @Override
    public void named(String name, ServerSession named) {
        synchronized (this) {
            names.put(named, name);
        }
        queueSend();
    }

    @Override
    public void joined(String room, String name, ServerSession member) {
        if (name == null) {
            return;
        }
        synchronized (this) {
            rooms.computeIfAbsent(room, r -> new LinkedHashMap<>()).put(member, name);
        }
        queueSend();
    }

    @Override
    public void left(String room, String name, ServerSession member) {
        synchronized (this) {
            Map<ServerSession, String> members = rooms.get(room);
            if (members == null || members.remove(member) == null) {
                return;
            }
            if (members.isEmpty()) {
                rooms.remove(room);
            }
        }
        queueSend();
    }

    @Override
    public synchronized List<String> members(String room) {
        Set<String> all = new TreeSet<>(rooms.getOrDefault(room, Map.of()).values());
        for (Roster roster : remote.values()) {
            all.addAll(roster.rooms().getOrDefault(room, Set.of()));
        }
        return new ArrayList<>(all);
    }

    @Override
    public boolean sendPrivate(String to, Map<String, Object> note) {
        List<ServerSession> here = new ArrayList<>();
        boolean elsewhere = false;
        synchronized (this) {
            names.forEach((named, name) -> {
                if (name.equals(to)) {
                    here.add(named);
                }
            });
            for (Roster roster : remote.values()) {
                elsewhere |= roster.names().contains(to);
            }
        }
        for (ServerSession target : here) {
            target.deliver(session, "/chat/private", note, Promise.noop());
        }
        if (elsewhere) {
            Map<String, Object> envelope = new LinkedHashMap<>();
            envelope.put("node", nodeId);
            envelope.put("to", to);
            envelope.put("note", note);
            publish(PRIVATE_CHANNEL, envelope);
        }
        return !here.isEmpty() || elsewhere;
    }

    /**
     * Stops this node's part: tells the other nodes to drop its roster now (waiting at most 2 s for the backplane to
     * take the message), stops the heartbeat and leaves the fan-out.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        timer.shutdownNow();
        Map<String, Object> bye = new LinkedHashMap<>();
        synchronized (this) {
            bye.put("node", nodeId);
            bye.put("seq", ++sequence);
            bye.put("bye", true);
        }
        CompletableFuture<Boolean> sent = new CompletableFuture<>();
        server.createChannelIfAbsent(ROSTER_CHANNEL).publish(session, bye, Promise.of(sent::complete,
                sent::completeExceptionally));
        try {
            sent.get(2, TimeUnit.SECONDS);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        } catch (Exception notSent) {
            LOG.debug("The chat's goodbye was not sent: {}", notSent.toString());
        }
        session.disconnect();
    }

    /** For tests: stops as a node that dies does, with no goodbye: the others drop its roster on expiry only. */
    void halt() {
        closed = true;
        timer.shutdownNow();
    }

    private void queueSend() {
        if (!closed && sendQueued.compareAndSet(false, true)) {
            try {
                timer.execute(this::sendRoster);
            } catch (java.util.concurrent.RejectedExecutionException stopping) {
                sendQueued.set(false);
            }
        }
    }

    /** On the timer: publish the roster, drop the rosters that expired. */
    private void tick() {
        try {
            sendRoster();
            expire();
        } catch (RuntimeException failure) {
            LOG.warn("The chat's heartbeat failed", failure);
        }
    }

    private void sendRoster() {
        // Cleared before the snapshot: a change made after it queues another send.
        sendQueued.set(false);
        if (closed) {
            return;
        }
        Map<String, Object> roster = new LinkedHashMap<>();
        int entries = 0;
        boolean truncated = false;
        synchronized (this) {
            roster.put("node", nodeId);
            roster.put("seq", ++sequence);
            Map<String, Object> byRoom = new LinkedHashMap<>();
            for (Map.Entry<String, Map<ServerSession, String>> room : rooms.entrySet()) {
                Set<String> members = new TreeSet<>(room.getValue().values());
                if (entries + members.size() > MAX_ROSTER_ENTRIES) {
                    truncated = true;
                    break;
                }
                entries += members.size();
                byRoom.put(room.getKey(), new ArrayList<>(members));
            }
            roster.put("rooms", byRoom);
            Set<String> named = new TreeSet<>(names.values());
            if (entries + named.size() > MAX_ROSTER_ENTRIES) {
                truncated = true;
                named = new TreeSet<>(new ArrayList<>(named).subList(0, Math.max(0, MAX_ROSTER_ENTRIES - entries)));
            }
            roster.put("names", new ArrayList<>(named));
        }
        if (truncated && truncationWarned.compareAndSet(false, true)) {
            LOG.warn("The chat's roster holds more than {} names: the other nodes see only part of this node's",
                    MAX_ROSTER_ENTRIES);
        }
        publish(ROSTER_CHANNEL, roster);
    }

    private void publish(String channel, Map<String, Object> data) {
        server.createChannelIfAbsent(channel).publish(session, data, Promise.of(published -> {
        }, failure -> LOG.debug("The chat could not publish on {}: {}", channel, failure.toString())));
    }

    private void expire() {
        long now = System.nanoTime();
        Set<String> changed = new TreeSet<>();
        synchronized (this) {
            remote.entrySet().removeIf(entry -> {
                if (now - entry.getValue().expiresAt() < 0) {
                    return false;
                }
                LOG.info("Chat node {} not heard from for {} ms: its members are dropped", entry.getKey(),
                        TimeUnit.NANOSECONDS.toMillis(expiryNanos));
                changed.addAll(entry.getValue().rooms().keySet());
                return true;
            });
        }
        tell(changed);
    }

    private void onRoster(org.bayeux.api.client.ClientSessionChannel channel, Message message) {
        try {
            Map<String, Object> data = message.getDataAsMap();
            Object node = data == null ? null : data.get("node");
            if (!(node instanceof String) || nodeId.equals(node) || closed) {
                return;
            }
            long seq = ((Number) data.get("seq")).longValue();
            Set<String> changed = new TreeSet<>();
            synchronized (this) {
                Roster old = remote.get(node);
                if (old != null && seq <= old.sequence()) {
                    return;
                }
                Map<String, Set<String>> oldRooms = old == null ? Map.of() : old.rooms();
                if (Boolean.TRUE.equals(data.get("bye"))) {
                    remote.remove(node);
                    changed.addAll(oldRooms.keySet());
                } else {
                    Map<String, Set<String>> newRooms = new HashMap<>();
                    ((Map<?, ?>) data.get("rooms")).forEach((room, members) -> newRooms.put((String) room,
                            strings(members)));
                    remote.put((String) node, new Roster(seq, newRooms, strings(data.get("names")),
                            System.nanoTime() + expiryNanos));
                    Set<String> rooms = new HashSet<>(oldRooms.keySet());
                    rooms.addAll(newRooms.keySet());
                    for (String room : rooms) {
                        if (!oldRooms.getOrDefault(room, Set.of()).equals(newRooms.getOrDefault(room, Set.of()))) {
                            changed.add(room);
                        }
                    }
                }
            }
            tell(changed);
        } catch (RuntimeException malformed) {
            LOG.debug("A chat roster was not understood: {}", malformed.toString());
        }
    }

    private void onPrivate(org.bayeux.api.client.ClientSessionChannel channel, Message message) {
        try {
            Map<String, Object> data = message.getDataAsMap();
            Object node = data == null ? null : data.get("node");
            Object to = data == null ? null : data.get("to");
            Object note = data == null ? null : data.get("note");
            if (!(node instanceof String) || nodeId.equals(node) || !(to instanceof String) || !(note instanceof Map)
                    || closed) {
                return;
            }
            List<ServerSession> targets = new ArrayList<>();
            synchronized (this) {
                names.forEach((named, name) -> {
                    if (name.equals(to)) {
                        targets.add(named);
                    }
                });
            }
            for (ServerSession target : targets) {
                target.deliver(session, "/chat/private", note, Promise.noop());
            }
        } catch (RuntimeException malformed) {
            LOG.debug("A private chat message from another node was not understood: {}", malformed.toString());
        }
    }

    /** Outside the lock: the chat reads {@link #members} back. */
    private void tell(Set<String> changedRooms) {
        ChatService service = chat;
        if (service == null) {
            return;
        }
        for (String room : changedRooms) {
            try {
                service.membersChanged(room);
            } catch (RuntimeException failure) {
                LOG.warn("The chat could not send a member list", failure);
            }
        }
    }

    private static Set<String> strings(Object list) {
        Set<String> result = new HashSet<>();
        for (Object item : (List<?>) list) {
            result.add((String) item);
        }
        return result;
    }

    /** @return true for a channel (or a wildcard) that covers one of the cluster channels */
    static boolean covers(ChannelId channel) {
        return channel.name().startsWith(PREFIX) || channel.matches(ROSTER_ID) || channel.matches(PRIVATE_ID);
    }

    /**
     * The engine's policy, with the cluster channels kept to the server's own sessions: other nodes' rosters and
     * private messages are no client's business.
     */
    private static final class Guard implements SecurityPolicy {
        private final SecurityPolicy next;

        Guard(SecurityPolicy next) {
            this.next = next == null ? new SecurityPolicy() {
            } : next;
        }

        @Override
        public void canHandshake(BayeuxServer server, ServerSession session, ServerMessage message,
                Promise<Boolean> promise) {
            next.canHandshake(server, session, message, promise);
        }

        @Override
        public void canCreate(BayeuxServer server, ServerSession session, ChannelId channel, ServerMessage message,
                Promise<Boolean> promise) {
            if (session != null && !session.isLocalSession() && channel.name().startsWith(PREFIX)) {
                promise.succeed(false);
                return;
            }
            next.canCreate(server, session, channel, message, promise);
        }

        @Override
        public void canSubscribe(BayeuxServer server, ServerSession session, ServerChannel channel,
                ServerMessage message, Promise<Boolean> promise) {
            if (session != null && !session.isLocalSession() && covers(channel.getChannelId())) {
                promise.succeed(false);
                return;
            }
            next.canSubscribe(server, session, channel, message, promise);
        }

        @Override
        public void canPublish(BayeuxServer server, ServerSession session, ServerChannel channel,
                ServerMessage message, Promise<Boolean> promise) {
            if (session != null && !session.isLocalSession() && channel.getId().startsWith(PREFIX)) {
                promise.succeed(false);
                return;
            }
            next.canPublish(server, session, channel, message, promise);
        }
    }
}
