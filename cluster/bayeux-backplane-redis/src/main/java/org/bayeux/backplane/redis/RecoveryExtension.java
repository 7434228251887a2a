package org.bayeux.backplane.redis;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import org.bayeux.api.ChannelId;
import org.bayeux.api.Message;
import org.bayeux.api.Promise;
import org.bayeux.api.server.HistoryAccess;
import org.bayeux.api.server.HistoryAuthorizer;
import org.bayeux.api.server.ServerExtension;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.api.server.SessionExtension;
import org.bayeux.server.cluster.ChannelPosition;
import org.bayeux.server.cluster.ClusterNode;
import org.bayeux.server.cluster.ResumeFrom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's side of recovery (the wire is in {@code docs/protocol.md}, "Recovery"): offers it in every successful
 * handshake reply ({@code "ext":{"recovery":true}}), and answers a subscribe that carries
 * {@code "ext":{"recovery":{"offset":N,"epoch":"E"}}} (or {@code "recovery":{}} to learn the position only).
 *
 * <p>How a recovery runs, so that the subscriber gets what it missed once, in order, with no gap before the live
 * messages: when the subscribe comes in, before the subscription takes effect, the session starts holding back the
 * live messages of that channel. When the reply goes out, the subscription has taken effect; the history is read
 * then (so every message it lacks comes live, and is held), the reply is completed with
 * {@code "ext":{"recovery":{"recovered":true|false,"offset":top,"epoch":E}}}, and then the history's messages are
 * queued, followed by the held ones whose offset is past the history's last (the others are in the history), and
 * only then do live messages flow again. This node's stream reader may still be behind the history read, so the
 * live copies of recovered messages can come after that: until one past it passes, live messages of the channel at or
 * below the position the reply stated (same epoch) are dropped. Held messages are bounded ({@link RedisBackplaneConfig#RECOVERY_BUFFER}):
 * past it the recovery gives up, the held messages are queued at once and the reply says {@code recovered: false}.
 * </p>
 *
 * <p><b>Who may read how much.</b> Only channels whose history {@code historyRules} turns on take part (the others'
 * subscribes pass untouched). The {@link HistoryAuthorizer} decides how far back each recovery may read; what it
 * allows is counted back from the session's first recovering subscription to the channel, in Redis's clock (the
 * first history read's time): an entry older than that is not given, and the recovery answers
 * {@code recovered: false}. Each recovery is bounded by the session's queue ({@code maxQueue}, {@code maxQueueBytes},
 * less what is queued already) and {@link RedisBackplaneConfig#RECOVERY_MAX_MESSAGES}; a session runs one history
 * read at a time, and starts them at most at {@link RedisBackplaneConfig#RECOVERY_RATE} per second after a burst of
 * {@link RedisBackplaneConfig#RECOVERY_BURST}; past it a recovery answers {@code recovered: false} without reading. A
 * subscribe to a channel the session already holds, at or past the last position this node gave the session on it
 * (in a reply or a message), answers {@code recovered: true} without reading: there is no gap to fill.</p>
 *
 * <p>Only a subscription to one plain channel recovers (a wildcard has no single position). Recovered and held
 * messages are queued as live ones from the cluster are: the session's own extensions run, the server's do not (they
 * ran where the message was published, before it was stored). Each history entry is parsed once for all the
 * recoveries that share its read, and its encoding is shared like a live message's.</p>
 *
 * <p><b>Failover</b> (with the session store: {@link #RecoveryExtension} is given a {@link Seams}). Every plain
 * channel keeps a failover history then ({@link HistoryRules#storedRuleFor}), and:</p>
 * <ul>
 * <li>every successful subscribe to a plain channel runs as a position-only recovery even if the client asked none
 *     (its reply gets no {@code ext.recovery} then): the position it states is the subscription's seam, the last
 *     message the session will not get, written to the store ({@link Seams#subscribedAt}) before the reply leaves;
 *     a client's own recovery that answers {@code recovered: false} floors its live messages at that position
 *     likewise, so that the seam is exact;</li>
 * <li>a subscribe whose {@code ext.recovery} is a {@link ResumeFrom} (a Java object: only the engine adopting a session
 *     makes one, no JSON can) recovers strictly after that position from the failover history, whatever
 *     {@code historyRules} and the {@link HistoryAuthorizer} say (the session had everything up to it, and what
 *     follows is within its subscription), not counted against the session's rate (it is not the client's request)
 *     but within its queue: {@code recovered: true} only if the whole gap is replayed. A resume from
 *     {@link ChannelPosition#NONE} (the channel had no epoch at subscribe) recovers the epoch the channel has now from
 *     its first message.</li>
 * </ul>
 */
final class RecoveryExtension implements ServerExtension {
    private static final Logger LOG = LoggerFactory.getLogger(RecoveryExtension.class);
    /** The field of {@code ext} in handshake replies, subscribes and subscribe replies. */
    static final String RECOVERY_FIELD = "recovery";
    /** The field of a subscribe reply's {@code ext.recovery} telling whether everything missed is delivered. */
    static final String RECOVERED_FIELD = "recovered";
    private static final ThreadLocal<Pending> RELEASING = new ThreadLocal<>();

    /** Where each subscription's seam goes: the session store, with failover on. */
    @FunctionalInterface
    interface Seams {
        /**
         * @param sessionId the subscribing session
         * @param channel the plain channel it subscribed to
         * @param position the last position it will not be given on that channel
         * @return completes once stored (the subscribe's reply waits for it); a failure is logged, and the reply
         *         leaves all the same
         */
        CompletionStage<Void> subscribedAt(String sessionId, String channel, ChannelPosition position);
    }

    /** What a subscribe asks of this extension. */
    private enum Kind {
        /** The client's own {@code ext.recovery} on a channel {@code historyRules} names. */
        CLIENT,
        /** None asked, the session store is on: the position only, for the seam. */
        SEAM,
        /** The engine resumes an adopted session ({@link ResumeFrom}). */
        RESUME
    }

    private final ClusterNode node;
    private final RedisBackplaneConfig config;
    private final HistoryRules rules;
    private final HistoryAuthorizer authorizer;
    /** Null with the session store off. */
    private final Seams seams;
    private final int bufferMax;
    /** Where recoveries complete and queue their messages: never a Lettuce I/O thread. */
    private final Executor executor;
    private final ConcurrentMap<String, Holder> sessions = new ConcurrentHashMap<>();
    private final AtomicInteger mostReadsInFlightPerSession = new AtomicInteger();
    /** History reads, shared by the recoveries of a channel that wait at the same time. */
    private final RecoveryReads reads;

    /**
     * @param reader reads a channel's history within a budget (the backplane's paged recovery)
     * @param node the engine's side of the cluster
     * @param config the bounds
     * @param rules which channels keep a history
     * @param authorizer how far back each recovery may read
     * @param executor where recoveries complete
     */
    RecoveryExtension(RecoveryReads.Reader reader, ClusterNode node, RedisBackplaneConfig config, HistoryRules rules,
            HistoryAuthorizer authorizer, Executor executor) {
        this(reader, node, config, rules, authorizer, null, executor);
    }

    /**
     * @param reader reads a channel's history within a budget (the backplane's paged recovery)
     * @param node the engine's side of the cluster
     * @param config the bounds
     * @param rules which channels keep a history, and whether every channel keeps a failover history
     * @param authorizer how far back each client's recovery may read
     * @param seams with the session store, where subscriptions' seams are written; null without it
     * @param executor where recoveries complete
     */
    RecoveryExtension(RecoveryReads.Reader reader, ClusterNode node, RedisBackplaneConfig config, HistoryRules rules,
            HistoryAuthorizer authorizer, Seams seams, Executor executor) {
        this.node = node;
        this.seams = seams;
        this.config = config;
        this.rules = rules;
        this.authorizer = authorizer;
        this.executor = executor;
        this.bufferMax = config.recoveryBuffer();
        this.reads = new RecoveryReads(reader);
    }

    /** @return the most history reads one session had in flight at once (for tests: one) */
    int mostReadsInFlightPerSession() {
        return mostReadsInFlightPerSession.get();
    }

    /** @return the history reads started, shared ones counted once (for tests) */
    long reads() {
        return reads.reads();
    }

    @Override
    public void incoming(ServerSession session, ServerMessage.Mutable message, Promise<Boolean> promise) {
        try {
            if (session != null && Message.META_SUBSCRIBE.equals(message.getChannel())) {
                Map<String, Object> ext = message.getExt();
                Object asked = ext == null ? null : ext.get(RECOVERY_FIELD);
                Object subscription = message.get(Message.SUBSCRIPTION_FIELD);
                if (subscription instanceof String channel && isPlainBroadcast(channel)) {
                    Pending recovery = null;
                    if (asked instanceof ResumeFrom resume) {
                        ChannelPosition from = resume.position();
                        recovery = new Pending(channel, from.offset(), from.epoch(), HistoryAccess.all(),
                                holds(session, channel), Kind.RESUME);
                    } else if (asked instanceof Map && rules.keepsHistory(channel)) {
                        Object offset = ((Map<?, ?>) asked).get(Positions.OFFSET_FIELD);
                        Object epoch = ((Map<?, ?>) asked).get(Positions.EPOCH_FIELD);
                        boolean has = offset instanceof Number && ((Number) offset).longValue() >= 0
                                && epoch instanceof String;
                        recovery = new Pending(channel, has ? ((Number) offset).longValue() : -1,
                                has ? (String) epoch : "", access(session, channel, message), holds(session, channel),
                                Kind.CLIENT);
                    } else if (seams != null) {
                        recovery = new Pending(channel, -1, "", HistoryAccess.none(), holds(session, channel),
                                Kind.SEAM);
                    }
                    if (recovery != null) {
                        holder(session).begin(recovery);
                    }
                }
            } else if (session != null && Message.META_UNSUBSCRIBE.equals(message.getChannel())) {
                Holder holder = sessions.get(session.getId());
                Object subscription = message.get(Message.SUBSCRIPTION_FIELD);
                if (holder != null && subscription instanceof String) {
                    holder.forget((String) subscription);
                }
            }
        } finally {
            promise.succeed(true);
        }
    }

    private static boolean isPlainBroadcast(String name) {
        if (!ChannelId.isValid(name)) {
            return false;
        }
        ChannelId channel = ChannelId.of(name);
        return channel.isBroadcast() && !channel.isWildcard();
    }

    private static boolean holds(ServerSession session, String channel) {
        for (var held : session.getSubscriptions()) {
            if (channel.equals(held.getId())) {
                return true;
            }
        }
        return false;
    }

    /** @return how far back the authorizer lets this recovery read; none if it fails */
    private HistoryAccess access(ServerSession session, String channel, ServerMessage message) {
        try {
            HistoryAccess access = authorizer.authorize(session, ChannelId.of(channel), message);
            return access == null ? HistoryAccess.none() : access;
        } catch (RuntimeException failed) {
            LOG.warn("The history authorizer failed; the recovery of {} reads nothing", channel, failed);
            return HistoryAccess.none();
        }
    }

    private Holder holder(ServerSession session) {
        return sessions.computeIfAbsent(session.getId(), id -> {
            Holder holder = new Holder(session);
            session.addExtension(holder);
            session.addRemovedListener((removed, message, expired) -> sessions.remove(removed.getId()));
            return holder;
        });
    }

    @Override
    public void outgoing(ServerSession sender, ServerSession receiver, ServerMessage.Mutable message,
            Promise<Boolean> promise) {
        if (!message.isMeta()) {
            promise.succeed(true);
            return;
        }
        String channel = message.getChannel();
        if (Message.META_HANDSHAKE.equals(channel) && message.isSuccessful() && rules.any()) {
            message.getExt(true).put(RECOVERY_FIELD, Boolean.TRUE);
        } else if (Message.META_SUBSCRIBE.equals(channel) && receiver != null) {
            Holder holder = sessions.get(receiver.getId());
            Object subscription = message.get(Message.SUBSCRIPTION_FIELD);
            Pending pending = holder == null || !(subscription instanceof String) ? null
                    : holder.pending.get(subscription);
            if (pending != null && pending.claim()) {
                if (!message.isSuccessful()) {
                    holder.release(pending, null, null);
                } else {
                    answer(holder, pending, message, promise);
                    return;
                }
            }
        }
        promise.succeed(true);
    }

    /**
     * Reads the history (unless there is no gap to fill, or the session is past its rate), completes the reply with
     * the outcome, then queues what was missed and what was held.
     */
    private void answer(Holder holder, Pending pending, ServerMessage.Mutable reply, Promise<Boolean> promise) {
        Floor known = holder.known.get(pending.channel);
        if (pending.alreadySubscribed && known != null && (pending.offset < 0
                || known.epoch().equals(pending.epoch) && pending.offset >= known.offset())) {
            // Already subscribed, and asking the position only, or at or past what this node gave the session: no
            // gap, nothing to read.
            complete(holder, pending, reply, promise, HistoryStore.Recovered.position(known.epoch(), known.offset(),
                    true, -1), null);
            return;
        }
        boolean pastRate = pending.kind == Kind.CLIENT && !holder.rate.tryTake();
        if (pastRate && seams == null) {
            LOG.debug("Recovery of {} refused: the session is past its rate", pending.channel);
            complete(holder, pending, reply, promise, null, new IllegalStateException("past the recovery rate"));
            return;
        }
        if (pastRate) {
            // With the session store the subscription still needs its seam: the position only (nothing copied), and
            // the reply says recovered: false.
            LOG.debug("Recovery of {} refused: the session is past its rate; its position only", pending.channel);
        }
        long offset = pending.access.isAllowed() && !pastRate ? pending.offset : -1;
        ServerSession session = holder.session;
        int room = Math.max(0, session.getMaxQueue() - session.getQueueSize());
        // A resume is bounded by the session's queue only (a gap that does not fit is not recovered); a client's
        // recovery by recoveryMaxMessages too, and reads at least one entry.
        int maxMessages = pending.kind == Kind.RESUME ? room
                : Math.max(1, Math.min(config.recoveryMaxMessages(), room));
        long maxBytes = Math.max(0, session.getMaxQueueBytes() - session.getQueueBytes());
        // One read at a time per session: this one starts when the previous one ended.
        holder.oneAtATime(() -> reads.recover(pending.channel, offset, pending.epoch, maxMessages, maxBytes)
                .thenCompose(found -> pending.kind == Kind.RESUME && pending.epoch.isEmpty() && !found.recovered()
                        && !found.epoch().isEmpty()
                        // Subscribed when the channel had no epoch: every message of the one it has now came after.
                        ? reads.recover(pending.channel, 0, found.epoch(), maxMessages, maxBytes)
                        : CompletableFuture.completedFuture(found)))
                .whenCompleteAsync((found, failure) -> complete(holder, pending, reply, promise,
                        failure == null ? holder.allowed(pending, found) : null, failure), executor);
    }

    private void complete(Holder holder, Pending pending, ServerMessage.Mutable reply, Promise<Boolean> promise,
            HistoryStore.Recovered found, Throwable failure) {
        HistoryStore.Recovered usable = null;
        Floor floor = null;
        ChannelPosition seam = null;
        try {
            Map<String, Object> outcome = new LinkedHashMap<>();
            boolean accepted = pending.decide();
            boolean recovered = failure == null && found.recovered() && accepted;
            boolean seamed = seams != null && pending.kind != Kind.RESUME;
            if (pending.offset >= 0) {
                outcome.put(RECOVERED_FIELD, recovered);
            }
            if (failure == null) {
                outcome.put(Positions.OFFSET_FIELD, found.offset());
                outcome.put(Positions.EPOCH_FIELD, found.epoch());
                usable = recovered ? found : null;
                // The position the reply states: what is at or below it was in the history (or before a
                // position-only subscribe), and must not come again live from a reader that is behind. With a seam
                // to write, a recovery that failed floors there too: the session gets exactly what follows it.
                if (accepted && (recovered || pending.offset < 0 || seamed)) {
                    floor = new Floor(found.offset(), found.epoch());
                    if (seamed) {
                        seam = found.epoch().isEmpty() ? ChannelPosition.NONE
                                : new ChannelPosition(found.epoch(), found.offset());
                    }
                }
                holder.known.put(pending.channel, new Floor(found.offset(), found.epoch()));
            } else {
                LOG.debug("Recovery of {} failed: {}", pending.channel, failure.toString());
            }
            if (pending.kind != Kind.SEAM) {
                reply.getExt(true).put(RECOVERY_FIELD, outcome);
            }
        } catch (RuntimeException unexpected) {
            LOG.warn("Recovery of a subscription failed", unexpected);
        } finally {
            HistoryStore.Recovered missed = usable;
            Floor from = floor;
            Runnable answered = () -> {
                promise.succeed(true);
                holder.release(pending, missed, from);
            };
            if (seam == null) {
                answered.run();
            } else {
                writeSeam(holder.session.getId(), pending.channel, seam, answered);
            }
        }
    }

    /** Writes a subscription's seam to the store, then runs what answers the subscribe, whatever the outcome. */
    private void writeSeam(String sessionId, String channel, ChannelPosition seam, Runnable answered) {
        CompletionStage<Void> stored;
        try {
            stored = seams.subscribedAt(sessionId, channel, seam);
        } catch (RuntimeException refused) {
            stored = CompletableFuture.failedFuture(refused);
        }
        stored.whenCompleteAsync((done, failure) -> {
            if (failure != null) {
                LOG.debug("The seam of a subscription to {} was not stored: {}", channel, failure.toString());
            }
            answered.run();
        }, executor);
    }

    /**
     * @return the history entry as a frozen message with its position, or null if it does not parse; parsed once
     *     for all the recoveries that share the read, which then share its encoding too
     */
    private ServerMessage missed(HistoryStore.Recovered found, int index, String channel) {
        ServerMessage parsed = found.parsed().computeIfAbsent(found.offsets().get(index), offset -> {
            byte[] json = found.messages().get(index);
            try {
                return node.parse(Positions.withPosition(json, offset, found.epoch()));
            } catch (IllegalArgumentException malformed) {
                LOG.warn("Recovery skipped a history entry of {} bytes that does not parse", json.length);
                return null;
            }
        });
        // The live path delivers a message to the subscribers of its own channel; so does recovery: an entry of
        // another channel in this channel's history (only Redis could have put it there) is not delivered.
        if (parsed != null && !channel.equals(parsed.getChannel())) {
            LOG.debug("Recovery of {} skipped a history entry of another channel", channel);
            return null;
        }
        return parsed;
    }

    /** One subscription's recovery in progress. */
    private static final class Pending {
        final String channel;
        final long offset;
        final String epoch;
        final HistoryAccess access;
        /** Whether the session was subscribed to the channel already when it asked. */
        final boolean alreadySubscribed;
        final Kind kind;
        final ArrayDeque<ServerMessage> held = new ArrayDeque<>();
        boolean holding = true;
        boolean overflowed;
        boolean decided;
        boolean claimed;

        Pending(String channel, long offset, String epoch, HistoryAccess access, boolean alreadySubscribed,
                Kind kind) {
            this.kind = kind;
            this.channel = channel;
            this.offset = offset;
            this.epoch = epoch;
            this.access = access;
            this.alreadySubscribed = alreadySubscribed;
        }

        /** @return true the first time: one reply answers one recovery */
        synchronized boolean claim() {
            boolean first = !claimed;
            claimed = true;
            return first;
        }

        /** @return false if the held messages overflowed before the history was read: no recovery then */
        synchronized boolean decide() {
            decided = true;
            return !overflowed;
        }
    }

    /** The position a recovery's reply stated: live messages of its epoch at or below it were delivered already. */
    private record Floor(long offset, String epoch) {
    }

    /** A session's recoveries, and the session extension that holds live messages back while one runs. */
    private final class Holder implements SessionExtension {
        private final ServerSession session;
        final ConcurrentMap<String, Pending> pending = new ConcurrentHashMap<>();
        /**
         * Per channel, after a recovery: this node's stream reader may still be behind the history read, so live
         * copies of what the recovery delivered can come after it. Removed when a message past it (or of another
         * epoch) passes, on unsubscribe, and with the session: at most one per subscribed channel.
         */
        final ConcurrentMap<String, Floor> floors = new ConcurrentHashMap<>();
        /**
         * Per channel with a recovering subscription: the last position this node gave the session (in a reply or
         * a message); a subscribe at or past it has no gap to fill.
         */
        final ConcurrentMap<String, Floor> known = new ConcurrentHashMap<>();
        /** Per channel: Redis's clock at the session's first recovering subscription (its first read), in ms. */
        final ConcurrentMap<String, Long> firstSubscribed = new ConcurrentHashMap<>();
        final RecoveryRate rate = new RecoveryRate(config.recoveryRate(), config.recoveryBurst());
        private final AtomicInteger readsInFlight = new AtomicInteger();
        /** The session's history read in flight (or done): the next one starts when it ends. Guarded by this. */
        private CompletableFuture<?> reading = CompletableFuture.completedFuture(null);

        Holder(ServerSession session) {
            this.session = session;
        }

        /** @return the read, started once the session's previous read ended */
        synchronized <T> CompletableFuture<T> oneAtATime(Supplier<CompletableFuture<T>> read) {
            CompletableFuture<T> next = reading.handle((ignored, failure) -> null).thenCompose(ignored -> {
                int now = readsInFlight.incrementAndGet();
                mostReadsInFlightPerSession.accumulateAndGet(now, Math::max);
                CompletableFuture<T> started;
                try {
                    started = read.get();
                } catch (RuntimeException failed) {
                    started = CompletableFuture.failedFuture(failed);
                }
                return started.whenComplete((value, failure) -> readsInFlight.decrementAndGet());
            });
            reading = next;
            return next;
        }

        /**
         * @return what was found, or "not recovered" if it reaches before what the authorizer let this session read
         *         (counted back from its first recovering subscription to the channel)
         */
        HistoryStore.Recovered allowed(Pending pending, HistoryStore.Recovered found) {
            long first = firstSubscribed.computeIfAbsent(pending.channel, c -> found.readAt());
            if (!pending.access.isAllowed() && pending.offset >= 0) {
                return HistoryStore.Recovered.position(found.epoch(), found.offset(), false, found.readAt());
            }
            if (pending.access.isUnbounded() || found.times().isEmpty()) {
                return found;
            }
            long lookBack = pending.access.lookBack().toMillis();
            long oldestAllowed = first - Math.min(lookBack, first);
            if (found.times().get(0) < oldestAllowed) {
                LOG.debug("Recovery of {} refused: it reaches before the session's first subscription",
                        pending.channel);
                return HistoryStore.Recovered.position(found.epoch(), found.offset(), false, found.readAt());
            }
            return found;
        }

        /** Forgets what the session knew of a channel it unsubscribed from. */
        void forget(String channel) {
            floors.remove(channel);
            known.remove(channel);
            firstSubscribed.remove(channel);
        }

        void begin(Pending recovery) {
            Pending previous = pending.put(recovery.channel, recovery);
            if (previous != null) {
                // A second subscribe before the first one's reply: the first one delivers what it holds and ends.
                release(previous, null, null);
                pending.put(recovery.channel, recovery);
            }
        }

        @Override
        public ServerMessage send(ServerSession receiver, ServerMessage message) {
            String channel = message.getChannel();
            Pending releasing = RELEASING.get();
            if (releasing != null && releasing.channel.equals(channel)) {
                return message;
            }
            Pending recovery = pending.get(channel);
            if (recovery == null) {
                return remember(channel, aboveFloor(channel, message));
            }
            List<ServerMessage> flush;
            synchronized (recovery) {
                if (!recovery.holding) {
                    // Released meanwhile; its floor (if any) was set before it stopped holding.
                    return remember(channel, aboveFloor(channel, message));
                }
                if (recovery.decided || recovery.held.size() < bufferMax) {
                    recovery.held.add(message);
                    return null;
                }
                // Too many held before the history was read: give up recovering, and deliver in order at once.
                recovery.overflowed = true;
                recovery.holding = false;
                flush = new ArrayList<>(recovery.held);
                recovery.held.clear();
            }
            LOG.debug("Recovery of {} gave up: more than {} live messages held", recovery.channel, bufferMax);
            RELEASING.set(recovery);
            try {
                flush.forEach(this::queue);
            } finally {
                RELEASING.remove();
            }
            return message;
        }

        /** @return the message, after noting its position as the last this node gave the session on its channel */
        private ServerMessage remember(String channel, ServerMessage message) {
            if (message != null && known.containsKey(channel)) {
                Object[] position = Positions.of(message.getExt());
                if (position != null) {
                    known.computeIfPresent(channel, (c, was) -> new Floor((Long) position[0], (String) position[1]));
                }
            }
            return message;
        }

        /** @return the message, or null if it is a live copy of one at or below the channel's floor */
        private ServerMessage aboveFloor(String channel, ServerMessage message) {
            Floor floor = floors.get(channel);
            if (floor == null) {
                return message;
            }
            Object[] position = Positions.of(message.getExt());
            if (position == null) {
                // Not from the stream (no position): says nothing about where the reader is.
                return message;
            }
            if (floor.epoch().equals(position[1]) && (Long) position[0] <= floor.offset()) {
                return null;
            }
            floors.remove(channel, floor);
            return message;
        }

        /**
         * Queues the missed messages, then the held ones past them, until none is held; then sets the channel's
         * floor and lets live ones flow. Ends because queuing is faster than publishing: each round drains what came
         * in during the previous one.
         */
        void release(Pending recovery, HistoryStore.Recovered found, Floor floor) {
            int held = 0;
            int duplicates = 0;
            RELEASING.set(recovery);
            try {
                if (found != null) {
                    for (int i = 0; i < found.messages().size(); i++) {
                        ServerMessage missed = missed(found, i, recovery.channel);
                        if (missed != null) {
                            node.deliverTo(session, missed);
                        }
                    }
                }
                while (true) {
                    List<ServerMessage> batch;
                    synchronized (recovery) {
                        if (recovery.held.isEmpty()) {
                            if (floor != null) {
                                floors.put(recovery.channel, floor);
                            }
                            recovery.holding = false;
                            pending.remove(recovery.channel, recovery);
                            LOG.debug("Recovery of {}: {} missed, {} held live ({} of them already missed)",
                                    recovery.channel, found == null ? 0 : found.messages().size(), held, duplicates);
                            return;
                        }
                        batch = new ArrayList<>(recovery.held);
                        recovery.held.clear();
                    }
                    held += batch.size();
                    for (ServerMessage live : batch) {
                        Object[] position = Positions.of(live.getExt());
                        if (floor != null && position != null && floor.epoch().equals(position[1])
                                && (Long) position[0] <= floor.offset()) {
                            duplicates++;
                            continue;
                        }
                        queue(live);
                    }
                }
            } finally {
                RELEASING.remove();
            }
        }

        /**
         * Queues a held message as the fan-out would have: the session's own extensions run again (this one lets it
         * pass), the server's do not (they ran before it was held).
         */
        private void queue(ServerMessage message) {
            try {
                node.deliverTo(session, message);
            } catch (IllegalArgumentException notShared) {
                // Changed into a copy of its own by an extension before this one: not the engine's frozen message.
                session.deliver(null, message.copy(), Promise.noop());
            }
        }
    }
}
