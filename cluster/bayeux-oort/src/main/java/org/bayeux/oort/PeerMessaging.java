package org.bayeux.oort;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiPredicate;
import java.util.function.Consumer;
import java.util.regex.Pattern;

import org.bayeux.api.json.JsonCodec;
import org.bayeux.api.json.JsonCodecProvider;
import org.bayeux.api.server.BayeuxServer;
import org.bayeux.api.server.ChannelMessageListener;
import org.bayeux.api.server.ServerChannel;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.client.BayeuxClientConfig;
import org.bayeux.client.ClientResources;
import org.bayeux.server.BayeuxEngine;
import org.bayeux.server.cluster.ClusterListener;
import org.bayeux.server.cluster.ClusterMember;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Messages between Oort nodes for services built on the mesh (Seti, replicated objects, {@link OortService}): a map
 * sent to one joined peer or to all of them on {@code /service/oort/<service>}, and a handler per service that is
 * told which member sent it.
 *
 * <p>Obtained with {@link Oort#messaging()}. A message goes on this node's own link to the peer, like forwarded
 * messages, so messages from one node to another arrive in the order sent while the link stays up; a message sent on
 * a link that breaks is lost (the services above resynchronise on the next {@code joined}). A message is refused,
 * with an {@link OortMessageTooLargeException}, when its JSON is larger than {@code oort.maxMessageBytes}.</p>
 *
 * <p>Membership is the engine's: this class listens to the engine's {@code ClusterListener} events and tells its own
 * {@linkplain #addMembershipListener listeners} in the same order, but on one thread of its own, never under the
 * cluster's locks, so that a listener may send at once. A member that has {@code left} is never heard again: its
 * later messages, if any are still on their way, are dropped (a node that restarts or heals comes back as a new
 * member id). A message from a peer that is not joined here (yet, or any more) is dropped: on every join, the
 * services send their state and ask for the other side's, which covers what was dropped before.</p>
 */
public final class PeerMessaging {
    /** The prefix of every service channel. */
    public static final String PREFIX = "/service/oort/";
    private static final Logger LOG = LoggerFactory.getLogger(PeerMessaging.class);
    /** One or more segments of letters, digits, '-', '_' or '.', separated by '/'. */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*");
    /** The services of Oort's own core, which no other service may take. */
    private static final Set<String> RESERVED = Set.of("forward", "heartbeat", "gossip", "membership", "ack",
            "resend", "join");
    /** Membership events waiting for the listeners' thread; they are rare, this bound is only a safety net. */
    private static final int MAX_PENDING_EVENTS = 10_000;
    /** How long a stopping node waits for its listeners to hear that every peer left. */
    private static final Duration STOP_WAIT = Duration.ofSeconds(5);
    /** How many departed incarnations are remembered, to drop their late messages. */
    private static final int MAX_DEPARTED = 1_000;

    /** Told of a message of a peer on a service. */
    @FunctionalInterface
    public interface Handler {
        /**
         * Called on the thread that received the message; must not block. An exception is logged and the message
         * dropped.
         *
         * @param from the member that sent it
         * @param data the message, as decoded JSON (maps, lists, strings, longs, doubles, booleans, nulls)
         */
        void onMessage(ClusterMember from, Map<String, Object> data);
    }

    private final OortConfig config;
    private final Incarnation self;
    private final Membership membership;
    private final Map<String, Handler> handlers = new ConcurrentHashMap<>();
    private final Map<String, ChannelMessageListener> channelListeners = new ConcurrentHashMap<>();
    /** The members joined now, by id, as the engine told them (in join order). */
    private final Map<String, ClusterMember> members = Collections.synchronizedMap(new LinkedHashMap<>());
    private final Set<String> departed = Collections.newSetFromMap(Collections.synchronizedMap(
            new LinkedHashMap<>(16, 0.75f, false) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
                    return size() > MAX_DEPARTED;
                }
            }));
    private final List<ClusterListener> membershipListeners = new CopyOnWriteArrayList<>();
    private final ArrayDeque<Runnable> events = new ArrayDeque<>();
    private final ClusterListener engineListener = new EngineListener();
    private boolean draining;
    private volatile BayeuxServer server;
    private volatile JsonCodec codec;
    private volatile Executor executor;
    private final LongAdder sent = new LongAdder();
    private final LongAdder notSent = new LongAdder();
    private final LongAdder oversize = new LongAdder();
    private final LongAdder received = new LongAdder();
    private final LongAdder notJoined = new LongAdder();
    /** A test hook: drops incoming messages for which it answers true. */
    volatile BiPredicate<String, Map<String, Object>> dropIncoming;

    /**
     * @param config the node's configuration (its URL, the largest message)
     * @param self this node's incarnation
     * @param membership finds the link to a joined peer
     */
    PeerMessaging(OortConfig config, Incarnation self, Membership membership) {
        this.config = config;
        this.self = self;
        this.membership = membership;
    }

    /**
     * Called by {@link Oort#start}: opens the registered services' channels and listens to membership.
     *
     * @param engine the node's engine
     * @param resources the node's clients: their codec and executor
     */
    void start(BayeuxEngine engine, ClientResources resources) {
        this.codec = resources.codec(BayeuxClientConfig.builder(config.url()).build().codec());
        this.executor = resources.executor();
        this.server = engine;
        engine.addClusterListener(engineListener);
        handlers.keySet().forEach(this::open);
    }

    /**
     * Called by {@link Oort#stop}: closes the channels, and every member joined now has left as this node sees it
     * (its listeners are told, so that calls waiting for a peer fail and peers' state is dropped).
     */
    void stop(BayeuxEngine engine) {
        engine.removeClusterListener(engineListener);
        for (String service : handlers.keySet()) {
            close(service);
        }
        server = null;
        for (ClusterMember member : members()) {
            engineListener.left(member);
        }
        // The links' threads stop with the node: wait (bounded) until the listeners heard every departure.
        long deadline = System.nanoTime() + STOP_WAIT.toNanos();
        synchronized (events) {
            long left;
            while ((draining || !events.isEmpty()) && (left = deadline - System.nanoTime()) > 0) {
                try {
                    events.wait(Math.max(1, left / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /**
     * Registers the handler of a service; messages for a service without a handler are dropped.
     *
     * @param service the service's name: segments of letters, digits, '-', '_' or '.', separated by '/'; not a name
     *        of Oort's core (forward, heartbeat, gossip, membership, ack, resend, join)
     * @param handler told of each message of a peer on {@code /service/oort/<service>}
     * @throws IllegalArgumentException if the name is not allowed
     * @throws IllegalStateException if the service has a handler already
     */
    public void register(String service, Handler handler) {
        checkName(service);
        Objects.requireNonNull(handler, "handler");
        if (handlers.putIfAbsent(service, handler) != null) {
            throw new IllegalStateException("The Oort service '" + service + "' has a handler already");
        }
        if (server != null) {
            open(service);
        }
    }

    /** @param service a service registered before; its messages are dropped from now on */
    public void unregister(String service) {
        if (handlers.remove(service) != null && server != null) {
            close(service);
        }
    }

    /**
     * @param service a service's name
     * @return whether it has a handler now (and, while the node runs, a listener on its channel)
     */
    public boolean isRegistered(String service) {
        return handlers.containsKey(service);
    }

    /** @return how many membership listeners are added now */
    int membershipListenerCount() {
        return membershipListeners.size();
    }

    /** @return the members joined now, as the engine told them, in the order they joined */
    public List<ClusterMember> members() {
        synchronized (members) {
            return List.copyOf(members.values());
        }
    }

    /**
     * @param memberId a member's id
     * @return the member if it is joined now, else null
     */
    public ClusterMember member(String memberId) {
        return members.get(memberId);
    }

    /**
     * @param url a node's URL
     * @return the member joined now at that URL, else null
     */
    public ClusterMember memberAt(String url) {
        synchronized (members) {
            for (ClusterMember member : members.values()) {
                if (url.equals(member.url())) {
                    return member;
                }
            }
        }
        return null;
    }

    /** @return messages sent to a peer's link */
    public long sentCount() {
        return sent.sum();
    }

    /** @return messages not sent: the member was not joined, or its link held {@code oort.maxQueueBytes} */
    public long notSentCount() {
        return notSent.sum();
    }

    /** @return messages refused because their JSON was larger than {@code oort.maxMessageBytes} */
    public long oversizeCount() {
        return oversize.sum();
    }

    /** @return messages of peers handed to a handler */
    public long receivedCount() {
        return received.sum();
    }

    /** @return messages of peers dropped because the sender was not joined here (yet, or any more) */
    public long notJoinedCount() {
        return notJoined.sum();
    }

    /** @return true between the start and the stop of the node */
    public boolean isStarted() {
        return server != null;
    }

    /** @return {@code oort.maxMessageBytes}: the largest message, as JSON, that {@link #send} takes */
    public int maxMessageBytes() {
        return config.maxMessageBytes();
    }

    /** @return this node as a member: its id and URL */
    public ClusterMember self() {
        return new ClusterMember(self.id(), config.url());
    }

    /**
     * @param memberId a member's id
     * @return true if it has left (or this node stopped remembering it after many later departures: false then)
     */
    public boolean hasLeft(String memberId) {
        return departed.contains(memberId);
    }

    /**
     * Adds a listener told of joins and leaves, in the engine's order, on a thread of this class (never under the
     * cluster's locks); an exception is logged and the next listener told.
     *
     * @param listener the listener
     */
    public void addMembershipListener(ClusterListener listener) {
        membershipListeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /** @param listener a listener added before */
    public void removeMembershipListener(ClusterListener listener) {
        membershipListeners.remove(listener);
    }

    /**
     * Sends a message to one joined member, without waiting.
     *
     * @param to the member
     * @param service the service
     * @param data the message: JSON-serialisable maps, lists, strings, numbers, booleans, nulls
     * @return false if it was not sent: the member is not joined now, or its link holds {@code oort.maxQueueBytes}
     * @throws OortMessageTooLargeException if its JSON is larger than {@code oort.maxMessageBytes}
     * @throws IllegalArgumentException if the data has no JSON form or the service name is not allowed
     */
    public boolean send(ClusterMember to, String service, Map<String, Object> data) {
        checkName(service);
        int bytes = measure(service, data);
        return sendMeasured(to, service, data, bytes);
    }

    /**
     * Sends a message to every member joined now, without waiting.
     *
     * @param service the service
     * @param data the message, as for {@link #send}
     * @return how many members it was sent to
     * @throws OortMessageTooLargeException if its JSON is larger than {@code oort.maxMessageBytes}
     * @throws IllegalArgumentException if the data has no JSON form or the service name is not allowed
     */
    public int broadcast(String service, Map<String, Object> data) {
        checkName(service);
        int bytes = measure(service, data);
        int sent = 0;
        for (ClusterMember member : members()) {
            if (sendMeasured(member, service, data, bytes)) {
                sent++;
            }
        }
        return sent;
    }

    /**
     * @param value a JSON-serialisable value
     * @return the size of its JSON in bytes
     */
    int jsonBytes(Object value) {
        return codec().toJson(value).getBytes(StandardCharsets.UTF_8).length;
    }

    /**
     * @param service the service, for the error
     * @param data a message
     * @return the size of its JSON in bytes
     * @throws OortMessageTooLargeException if it is larger than {@code oort.maxMessageBytes}
     */
    int measure(String service, Object data) {
        int bytes = jsonBytes(data);
        int max = config.maxMessageBytes();
        if (bytes > max) {
            oversize.increment();
            throw new OortMessageTooLargeException(service, bytes, max);
        }
        return bytes;
    }

    private JsonCodec codec() {
        JsonCodec json = codec;
        if (json == null) {
            // Before the start: the same codec as the links', made here.
            json = JsonCodecProvider.find(BayeuxClientConfig.builder(config.url()).build().codec(),
                    PeerMessaging.class.getClassLoader()).newCodec(JsonCodec.DEFAULT_MAX_NESTING_DEPTH);
            codec = json;
        }
        return json;
    }

    private boolean sendMeasured(ClusterMember to, String service, Map<String, Object> data, int bytes) {
        if (!members.containsKey(to.id())) {
            notSent.increment();
            return false;
        }
        Link link = membership.linkTo(to.url());
        if (link == null || !link.send(PREFIX + service, data, bytes, taken -> {
            if (!taken) {
                LOG.debug("Oort node {} did not take a message on service {}", to.id(), service);
            }
        })) {
            notSent.increment();
            return false;
        }
        sent.increment();
        return true;
    }

    private static void checkName(String service) {
        if (service == null || !NAME.matcher(service).matches() || RESERVED.contains(service)) {
            throw new IllegalArgumentException("Not an Oort service name: '" + service
                    + "' (segments of letters, digits, '-', '_', '.', separated by '/'; not one of " + RESERVED + ")");
        }
    }

    private void open(String service) {
        BayeuxServer target = server;
        if (target == null) {
            return;
        }
        ChannelMessageListener listener = (sender, channel, message) -> received(service, sender, message);
        if (channelListeners.putIfAbsent(service, listener) == null) {
            target.createChannelIfAbsent(PREFIX + service).addMessageListener(listener);
        }
    }

    private void close(String service) {
        ChannelMessageListener listener = channelListeners.remove(service);
        BayeuxServer target = server;
        ServerChannel channel = target == null ? null : target.getChannel(PREFIX + service);
        if (listener != null && channel != null) {
            channel.removeMessageListener(listener);
        }
    }

    /** Always false: a peer's message stops here (its link reads the answer as taken). */
    @SuppressWarnings("unchecked")
    private boolean received(String service, ServerSession sender, ServerMessage.Mutable message) {
        JoinProof.Peer peer = OortGate.peerOf(sender);
        Handler handler = handlers.get(service);
        if (peer == null || handler == null || !(message.getData() instanceof Map<?, ?> data)) {
            return false;
        }
        if (!members.containsKey(peer.id())) {
            // Not joined here (yet, or any more): the services exchange their state again once it is.
            notJoined.increment();
            return false;
        }
        BiPredicate<String, Map<String, Object>> drop = dropIncoming;
        if (drop != null && drop.test(service, (Map<String, Object>) data)) {
            return false;
        }
        received.increment();
        try {
            handler.onMessage(new ClusterMember(peer.id(), peer.url()), (Map<String, Object>) data);
        } catch (RuntimeException e) {
            LOG.warn("The handler of Oort service {} failed on a message of node {}", service, peer.id(), e);
        }
        return false;
    }

    /** Runs the listeners' events one at a time, in order, on the client's threads. */
    private void enqueue(Consumer<ClusterListener> event) {
        Executor threads = executor;
        if (threads == null) {
            return;
        }
        synchronized (events) {
            if (events.size() >= MAX_PENDING_EVENTS) {
                LOG.error("Oort membership events: {} waiting, one dropped", MAX_PENDING_EVENTS);
                return;
            }
            events.add(() -> {
                for (ClusterListener listener : membershipListeners) {
                    try {
                        event.accept(listener);
                    } catch (RuntimeException e) {
                        LOG.warn("An Oort membership listener failed", e);
                    }
                }
            });
            if (draining) {
                return;
            }
            draining = true;
        }
        try {
            threads.execute(this::drain);
        } catch (RejectedExecutionException e) {
            // The threads are stopping with the node: tell the listeners here.
            drain();
        }
    }

    private void drain() {
        while (true) {
            Runnable next;
            synchronized (events) {
                next = events.poll();
                if (next == null) {
                    draining = false;
                    events.notifyAll();
                    return;
                }
            }
            next.run();
        }
    }

    /** Keeps the member list in step with the engine at once, and tells this class's listeners later. */
    private final class EngineListener implements ClusterListener {
        @Override
        public void joined(ClusterMember member) {
            if (departed.contains(member.id())) {
                return;
            }
            members.put(member.id(), member);
            enqueue(listener -> listener.joined(member));
        }

        @Override
        public void left(ClusterMember member) {
            departed.add(member.id());
            if (members.remove(member.id()) != null) {
                enqueue(listener -> listener.left(member));
            }
        }
    }
}
