package org.bayeux.oort;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

import org.bayeux.server.cluster.ClusterListener;
import org.bayeux.server.cluster.ClusterMember;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A value replicated across the cluster in parts: one part per node, which only that node writes, and a copy of every
 * joined member's part on every node; a {@linkplain #merge merger} makes the cluster-wide view (see
 * {@link OortMergers}).
 *
 * <pre>{@code
 * OortObject<Long> online = OortObject.create(oort, "online", 0L);   // on every node, before the engine starts
 * online.setLocal(42L);                                              // this node's part
 * long total = online.merge(OortMergers.sumLongs());                  // every node's part, summed
 * }</pre>
 *
 * <p>Every change of this node's part gets the next version number and is sent to every joined member; a member that
 * sees a version number skip (a message lost) asks this node for its whole part and replaces its copy with it. On
 * every {@code joined} (a new incarnation: a restart or a healed partition) each node sends its whole part to the new
 * member, which replaces what it had. A member that leaves has its part dropped on every other node: what it held is
 * lost with it (the node that restarts starts again from its initial part).</p>
 *
 * <p>Parts travel as JSON: use maps, lists, strings, numbers (a peer reads integers as {@code Long} and decimals as
 * {@code Double}), booleans and nulls. A change whose whole part, as JSON, would be larger than
 * {@code oort.maxMessageBytes} is refused with an {@link OortMessageTooLargeException}: the part is left as it was
 * and nothing is sent (a part must fit one message, since a join or a pull sends it whole).</p>
 *
 * <p>Thread-safe. Runs on {@code /service/oort/object/<name>}; every node must create the object with the same name
 * and type, preferably before the engine starts (one created later asks every joined member for its part).
 * Listeners are told on the thread of the change; an exception is logged and the next listener told.</p>
 *
 * @param <T> the part's type
 */
public class OortObject<T> {
    private static final Logger LOG = LoggerFactory.getLogger(OortObject.class);
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]+");

    /**
     * Told of changes of parts.
     *
     * @param <T> the part's type
     */
    public interface Listener<T> {
        /**
         * @param member the node whose part changed ({@link PeerMessaging#self()} for this node)
         * @param part the part now
         */
        default void updated(ClusterMember member, T part) {
        }

        /**
         * @param member a node that left
         * @param part the part it had, now dropped
         */
        default void removed(ClusterMember member, T part) {
        }
    }

    /** A member's part as this node knows it. */
    private static final class Remote<T> {
        final ClusterMember member;
        long version;
        T part;
        /** When a pull was last asked for (System.nanoTime), 0 if none is outstanding. */
        long pullingSince;

        Remote(ClusterMember member) {
            this.member = member;
        }
    }

    private final PeerMessaging messaging;
    private final String name;
    private final String service;
    private final long pullRetryNanos;
    private final List<Listener<T>> listeners = new CopyOnWriteArrayList<>();
    private final Map<String, Remote<T>> remotes = new HashMap<>();
    private final LongAdder gaps = new LongAdder();
    private final LongAdder pulls = new LongAdder();
    private T local;
    private long version;
    /** Guarded by this: once true, nothing is sent or taken, and the service is unregistered. */
    private boolean stopped;
    private final ClusterListener membershipListener = new ClusterListener() {
        @Override
        public void joined(ClusterMember member) {
            // Each side sends its part and asks for the other's: a part sent before this side had the member
            // joined was dropped here (messages count only from joined members).
            sendPart(member);
            send(member, Map.of("type", "pull"));
        }

        @Override
        public void left(ClusterMember member) {
            removeMember(member);
        }
    };

    /**
     * @param oort the node
     * @param name the object's name, the same on every node: letters, digits, '-', '_' or '.'
     * @param initial this node's part to begin with (version 0)
     */
    protected OortObject(Oort oort, String name, T initial) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("Not an Oort object name: '" + name
                    + "' (letters, digits, '-', '_' or '.')");
        }
        this.messaging = oort.messaging();
        this.name = name;
        this.service = "object/" + name;
        this.pullRetryNanos = oort.config().peerTimeout().toNanos();
        this.local = Objects.requireNonNull(initial, "initial");
        messaging.register(service, this::received);
        messaging.addMembershipListener(membershipListener);
        for (ClusterMember member : messaging.members()) {
            send(member, Map.of("type", "pull"));
        }
    }

    /**
     * @param oort the node
     * @param name the object's name, the same on every node: letters, digits, '-', '_' or '.'
     * @param initial this node's part to begin with
     * @param <T> the part's type
     * @return the object, registered on the node
     */
    public static <T> OortObject<T> create(Oort oort, String name, T initial) {
        return new OortObject<>(oort, name, initial);
    }

    /**
     * Stops this object on this node: its service is unregistered (its channel's listener removed from the engine,
     * and peers' messages for it dropped from now on), it hears no more joins and leaves, and the other nodes' parts
     * are forgotten (its listeners are not told). This node's part stays readable; a change of it is no longer sent.
     * Peers see this node's part until this node leaves. A second call does nothing.
     */
    public void stop() {
        synchronized (this) {
            if (stopped) {
                return;
            }
            stopped = true;
            remotes.clear();
        }
        messaging.unregister(service);
        messaging.removeMembershipListener(membershipListener);
    }

    /** @return whether {@link #stop()} was called */
    public synchronized boolean isStopped() {
        return stopped;
    }

    /** @return the object's name */
    public String name() {
        return name;
    }

    /** @return this node's part */
    public synchronized T getLocal() {
        return local;
    }

    /** @return the version of this node's part: how many times it changed */
    public synchronized long version() {
        return version;
    }

    /**
     * Replaces this node's part and sends it to every joined member.
     *
     * @param part the new part
     * @return the part before
     * @throws OortMessageTooLargeException if the part, as JSON, is larger than {@code oort.maxMessageBytes}
     */
    public T setLocal(T part) {
        Objects.requireNonNull(part, "part");
        Map<String, Object> delta = new HashMap<>();
        delta.put("op", "set");
        delta.put("value", part);
        return update(old -> part, delta);
    }

    /**
     * @return every part this node knows, by member id: this node's first, then the joined members' in id order
     */
    public synchronized Map<String, T> parts() {
        Map<String, T> parts = new LinkedHashMap<>();
        parts.put(messaging.self().id(), local);
        Map<String, T> sorted = new TreeMap<>();
        remotes.forEach((id, remote) -> {
            if (remote.part != null) {
                sorted.put(id, remote.part);
            }
        });
        parts.putAll(sorted);
        return parts;
    }

    /**
     * @param merger makes one value of the parts (see {@link OortMergers})
     * @param <R> the merged value's type
     * @return the merged value of every part this node knows, this node's first
     */
    public <R> R merge(Function<? super List<T>, R> merger) {
        return merger.apply(new ArrayList<>(parts().values()));
    }

    /** @param listener told of changes of every node's part */
    public void addListener(Listener<T> listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /** @param listener a listener added before */
    public void removeListener(Listener<T> listener) {
        listeners.remove(listener);
    }

    /** @return how many times a member's version numbers skipped here (each makes this node pull its part) */
    public long gaps() {
        return gaps.sum();
    }

    /** @return how many whole parts this node asked members for because of a gap (not counting those of joins) */
    public long pulls() {
        return pulls.sum();
    }

    /**
     * Changes this node's part: checks the new part's size, then numbers the change and sends it to every joined
     * member, all under the lock, so that members receive the changes in version order.
     *
     * @param change makes the new part of the old one (must not change the old one: it may be shared)
     * @param delta the change as peers apply it ({@code op} and its arguments; see {@link #apply})
     * @return the part before
     * @throws OortMessageTooLargeException if the new part, as JSON, is larger than {@code oort.maxMessageBytes}
     */
    protected final T update(UnaryOperator<T> change, Map<String, Object> delta) {
        T before;
        T after;
        synchronized (this) {
            before = local;
            after = Objects.requireNonNull(change.apply(before), "part");
            // The whole part must fit one message: a join or a pull sends it whole.
            messaging.measure("the part of Oort object '" + name + "'", partMessage(after, version + 1));
            local = after;
            version++;
            Map<String, Object> message = new HashMap<>(delta);
            message.put("type", "delta");
            message.put("version", version);
            try {
                if (!stopped) {
                    messaging.broadcast(service, message);
                }
            } catch (RuntimeException e) {
                LOG.warn("Oort object {}: a change could not be sent; the members will pull it at the next one", name,
                        e);
            }
        }
        fire(messaging.self(), after, false);
        return before;
    }

    /**
     * Applies a change of a member's part, as {@link #update} described it. This class knows {@code set}.
     *
     * @param part the member's part before
     * @param delta the change
     * @return the part after (a new value: the one before may be shared)
     * @throws IllegalArgumentException if the change is not understood
     */
    protected T apply(T part, Map<String, Object> delta) {
        if ("set".equals(delta.get("op"))) {
            return fromJson(delta.get("value"));
        }
        throw new IllegalArgumentException("Unknown change " + delta.get("op"));
    }

    /**
     * @param json a part as decoded JSON
     * @return the part
     */
    @SuppressWarnings("unchecked")
    protected T fromJson(Object json) {
        return (T) json;
    }

    private static Map<String, Object> partMessage(Object part, long version) {
        Map<String, Object> message = new HashMap<>();
        message.put("type", "part");
        message.put("version", version);
        message.put("value", part);
        return message;
    }

    private void received(ClusterMember from, Map<String, Object> data) {
        if (isStopped()) {
            // A message that was on its way when the service was unregistered.
            return;
        }
        Object type = data.get("type");
        if ("pull".equals(type)) {
            sendPart(from);
            return;
        }
        if (!(data.get("version") instanceof Number number)) {
            return;
        }
        long received = number.longValue();
        T updated = null;
        boolean pull = false;
        synchronized (this) {
            if (stopped || messaging.hasLeft(from.id())) {
                return;
            }
            Remote<T> remote = remotes.computeIfAbsent(from.id(), id -> new Remote<>(from));
            if ("part".equals(type)) {
                // A whole part: newer than what this node has, or the first since the member joined.
                if (remote.part != null && received == remote.version) {
                    // The same version again (a join's part and the answer to its pull): nothing changed.
                    remote.pullingSince = 0;
                } else if (remote.part == null || received > remote.version) {
                    remote.part = fromJson(data.get("value"));
                    remote.version = received;
                    remote.pullingSince = 0;
                    updated = remote.part;
                }
            } else if ("delta".equals(type)) {
                if (remote.part != null && received == remote.version + 1) {
                    try {
                        remote.part = apply(remote.part, data);
                        remote.version = received;
                        updated = remote.part;
                    } catch (RuntimeException e) {
                        LOG.warn("Oort object {}: a change from node {} could not be applied: pulling its part", name,
                                from.id(), e);
                        pull = startPull(remote);
                    }
                } else if (remote.part == null || received > remote.version + 1) {
                    gaps.increment();
                    pull = startPull(remote);
                }
            }
        }
        if (pull) {
            pulls.increment();
            send(from, Map.of("type", "pull"));
        }
        if (updated != null) {
            fire(from, updated, false);
        }
    }

    /** @return true if a pull is to be asked for: none is outstanding, or the last got no answer in time */
    private boolean startPull(Remote<T> remote) {
        long now = System.nanoTime();
        if (remote.pullingSince != 0 && now - remote.pullingSince < pullRetryNanos) {
            return false;
        }
        remote.pullingSince = now == 0 ? 1 : now;
        return true;
    }

    /** Sends this node's whole part, under the lock so that no later change overtakes it. */
    private synchronized void sendPart(ClusterMember member) {
        send(member, partMessage(local, version));
    }

    private void send(ClusterMember member, Map<String, Object> message) {
        if (isStopped()) {
            return;
        }
        try {
            if (!messaging.send(member, service, message)) {
                LOG.debug("Oort object {}: node {} not reached (not joined, or its link is full)", name, member.id());
            }
        } catch (RuntimeException e) {
            LOG.warn("Oort object {}: could not send to node {}", name, member.id(), e);
        }
    }

    private void removeMember(ClusterMember member) {
        T part;
        synchronized (this) {
            Remote<T> remote = remotes.remove(member.id());
            part = remote == null ? null : remote.part;
        }
        if (part != null) {
            fire(member, part, true);
        }
    }

    private void fire(ClusterMember member, T part, boolean removed) {
        for (Listener<T> listener : listeners) {
            try {
                if (removed) {
                    listener.removed(member, part);
                } else {
                    listener.updated(member, part);
                }
            } catch (RuntimeException e) {
                LOG.warn("A listener of Oort object {} failed", name, e);
            }
        }
    }
}
