package org.bayeux.server;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.Message;
import org.bayeux.api.Promise;
import org.bayeux.api.Session;
import org.bayeux.api.server.DeQueueListener;
import org.bayeux.api.server.LocalSession;
import org.bayeux.api.server.MaxQueueListener;
import org.bayeux.api.server.QueueListener;
import org.bayeux.api.server.ServerChannel;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.api.server.SessionExtension;
import org.bayeux.api.server.SessionMessageListener;
import org.bayeux.api.server.SessionRemovedListener;
import org.bayeux.api.support.Attributes;
import org.bayeux.api.support.AttributesMixin;
import org.bayeux.server.SessionFailover.Handover;
import org.bayeux.server.SessionFailover.JournalEntry;
import org.bayeux.server.SessionQueue.Overflow;
import org.bayeux.server.internal.Callbacks;
import org.bayeux.server.cluster.AcknowledgedBatch;
import org.bayeux.server.cluster.ChannelPosition;
import org.bayeux.server.cluster.SessionFencedException;
import org.bayeux.server.cluster.SessionState;
import org.bayeux.server.cluster.SessionStore;
import org.bayeux.server.transport.Carrier;

/**
 * One session of the engine: its state, its one lock and one queue, the connect it holds, and its expiry. It is made
 * of parts, each a plain object it builds and keeps in a final field: its settings ({@link SessionSettings}), its
 * extensions and listeners ({@link SessionCallbacks}), its subscriptions, which with its positions are the state a
 * store keeps ({@link SessionDurableState}), its queue with the overflow policy ({@link SessionQueue}, in
 * {@link SessionOutbox}), and its attributes. The session is what the API sees of them, and what the store is told
 * about ({@link SessionState}).
 *
 * <p>Everything that changes the queue, the held connect or the expiry happens under the session's lock, the monitor
 * of its outbox ({@link #out}), which never leaves the session. The carrier's {@link Carrier#send(List)} is called
 * under the lock too (it must not block), so that a session's messages leave in the order they were queued; user code
 * other than the queue listeners runs outside it.</p>
 */
final class ServerSessionImpl implements ServerSession, SessionState, AttributesMixin {
    /** What every session of the engine works with. */
    final SessionParts parts;
    private final SessionSettings settings;
    private final SessionCallbacks callbacks = new SessionCallbacks();
    private final SessionDurableState durable = new SessionDurableState();
    private final Attributes attributes = new Attributes();
    private final String id;
    private final LocalSessionImpl localSession;

    private volatile State state = State.HANDSHAKEN;
    private volatile Carrier carrier;
    private volatile long expiresAtNanos;

    // Guarded by the lock, out's monitor.
    /**
     * The queue, what is due, pushes in flight, and what was taken for carriers; its monitor is the session's lock
     * (an object of its own for that would cost every session 16 bytes and a field).
     */
    private final SessionOutbox out;
    private HeldConnect held;
    private long holdCycle;
    private final HoldTimer holdTimer;
    private int batchDepth;
    private boolean connectedOnce;
    private final ConnectAdvice advised = new ConnectAdvice();
    /** The engine drains: connects are answered at once, and the one that empties the queue ends the session. */
    private boolean handingOff;

    ServerSessionImpl(SessionParts parts, String id, LocalSessionImpl localSession) {
        this.parts = parts;
        this.settings = new SessionSettings(parts.config());
        this.id = id;
        this.localSession = localSession;
        this.holdTimer = new HoldTimer(parts.scheduler(), this::holdTimedOut);
        this.out = new SessionOutbox(parts.codec(),
                localSession == null && parts.store().adopts() ? new SessionFailover() : null);
        this.expiresAtNanos = localSession != null ? Long.MAX_VALUE : System.nanoTime() + expiryDelayNanos(true);
        if (out.failover != null) {
            // Every delivery then leaves in a connect reply, journaled first: what a dead socket may have delivered is
            // one reply's messages at most, and known (a push or a piggy-back would leave unnumbered).
            settings.setMetaConnectDeliveryOnly(true);
        }
    }

    @Override
    public String getId() {
        return id;
    }

    @Override
    public State getState() {
        return state;
    }

    @Override
    public boolean isHandshook() {
        return !state.isEnded();
    }

    @Override
    public boolean isConnected() {
        return state == State.CONNECTED;
    }

    @Override
    public boolean isLocalSession() {
        return localSession != null;
    }

    @Override
    public LocalSession getLocalSession() {
        return localSession;
    }

    @Override
    public String getTransportName() {
        Carrier current = carrier;
        return current == null ? null : current.capabilities().transportName();
    }

    Carrier carrier() {
        return carrier;
    }

    @Override
    public int getQueueSize() {
        synchronized (out) {
            return out.queue().size();
        }
    }

    @Override
    public long getQueueBytes() {
        synchronized (out) {
            return out.queue().bytes();
        }
    }

    @Override
    public long deliveryPosition() {
        return out.delivered();
    }

    /**
     * @return per channel, the last position handed to a carrier or, with the {@code ack} extension, acknowledged:
     *         a copy, taken under the session's lock
     */
    private Map<String, ChannelPosition> lastPositions() {
        synchronized (out) {
            AcknowledgedBatch acknowledging = acknowledging();
            return Map.copyOf(acknowledging != null ? acknowledging.acknowledgedPositions() : out.handedPositions());
        }
    }

    // ---- delivery -------------------------------------------------------------------------------------------

    @Override
    public void deliver(Session sender, ServerMessage.Mutable message, Promise<Boolean> promise) {
        ServerSessionImpl from = ServerChannelImpl.sessionOf(sender);
        ServerMessageImpl outgoing = (ServerMessageImpl) message;
        parts.extensions().outgoing(from, this, outgoing).whenComplete((keep, failure) -> {
            if (failure != null) {
                promise.fail(failure);
            } else if (!keep) {
                promise.succeed(false);
            } else {
                outgoing.freeze();
                promise.succeed(enqueue(from, outgoing));
            }
        });
    }

    @Override
    public void deliver(Session sender, String channel, Object data, Promise<Boolean> promise) {
        ServerMessageImpl message = new ServerMessageImpl();
        message.setChannel(channel);
        message.setData(data);
        deliver(sender, message, promise);
    }

    /** @return true if this session belongs to the server of that cluster seam */
    boolean belongsTo(ClusterSeam seam) {
        return parts.cluster() == seam;
    }

    /**
     * Queues a frozen message for this session and wakes whatever carries the session, unless the message is lazy
     * or a batch is open.
     *
     * @param sender the sending session, or null
     * @param frozen the message, shared with other recipients
     * @return true if the message was queued (or handed to a local session)
     */
    boolean enqueue(ServerSessionImpl sender, ServerMessage frozen) {
        if (state.isEnded()) {
            return false;
        }
        ServerMessage message = callbacks.applyOutgoingExtensions(this, frozen);
        if (message == null) {
            return false;
        }
        for (SessionMessageListener listener : callbacks.messageListeners()) {
            ServerMessage seen = message;
            if (!Callbacks.test(listener, () -> listener.onMessage(this, sender, seen), true)) {
                return false;
            }
        }
        if (localSession != null) {
            localSession.receive(message);
            return true;
        }
        long lazyDelayNanos = message.isLazy() ? parts.lazyTimeoutOf(message).toNanos() : 0;
        // Outside the lock: encodes the message if no other recipient did yet (frozen messages cache their JSON).
        int size = SessionQueue.sizeToQueue(message, parts.codec());
        if (size < 0) {
            return false;
        }
        boolean overflowDisconnect = false;
        boolean wake;
        synchronized (out) {
            if (state.isEnded() || !callbacks.offerToQueueListeners(this, sender, message)) {
                return false;
            }
            Overflow overflow = out.queue().admit(this, settings, callbacks.maxQueueListeners(), carrier, size, sender,
                    message, parts.queueLimitCounters());
            if (overflow == Overflow.DROP) {
                return false;
            }
            overflowDisconnect = overflow == Overflow.DISCONNECT;
            if (overflowDisconnect) {
                wake = false;
            } else {
                out.add(message, size, lazyDelayNanos, parts.scheduler(), this::lazyFlush);
                wake = out.due && batchDepth == 0;
            }
        }
        if (overflowDisconnect) {
            parts.quietLog().info("maxQueue", "A session reached maxQueue={} or maxQueueBytes={}; disconnecting it",
                    getMaxQueue(), getMaxQueueBytes());
            parts.sessions().remove(this, null, State.DISCONNECTED, true);
            return false;
        }
        if (wake) {
            flush();
        }
        return true;
    }

    private void lazyFlush() {
        synchronized (out) {
            out.lazyFired();
            if (batchDepth > 0) {
                return;
            }
        }
        flush();
    }

    /**
     * Sends what is queued through whatever carries the session: pushes it on a carrier that allows that while a
     * connect is held, or completes the held connect. With no held connect, messages wait.
     */
    void flush() {
        Carrier pushing;
        synchronized (out) {
            if (batchDepth > 0 || held == null || !out.due || isHandedOver()) {
                return;
            }
            if (!held.carrier.capabilities().pushesWhileHeld() || isMetaConnectDeliveryOnly()) {
                pushing = null;
            } else if (out.pushScheduled || out.pushDeferred) {
                // The scheduled or deferred push has not run yet; it will take this message too.
                return;
            } else {
                out.pushScheduled = true;
                pushing = held.carrier;
            }
        }
        if (pushing != null) {
            pushing.flowControl().executePush(this::push);
        } else {
            flushNow();
        }
    }

    /** Runs when the carrier decides: sends everything queued meanwhile, or completes the held connect. */
    private void push() {
        synchronized (out) {
            out.pushScheduled = false;
            if (batchDepth > 0 || held == null || !out.due) {
                return;
            }
            if (held.carrier.capabilities().pushesWhileHeld() && !isMetaConnectDeliveryOnly()) {
                // Frames are capped in size: send as many as the queue needs, bounded by its length now, while the
                // socket keeps up; what it cannot take yet stays queued, within reach of the max-queue policy.
                for (int frames = out.queue().size(); frames > 0 && !out.queue().isEmpty(); frames--) {
                    if (held.carrier.flowControl().deferPush(this::resumePush)) {
                        out.pushDeferred = true;
                        return;
                    }
                    held.carrier.send(parts.encoded(drain(null, held.carrier.capabilities().maxResponseBytes())));
                }
                return;
            }
        }
        // The session moved to a carrier that cannot push while the push waited.
        flushNow();
    }

    /** The carrier's backlog shrank after a deferred push. */
    private void resumePush() {
        synchronized (out) {
            out.pushDeferred = false;
        }
        flush();
    }

    private void flushNow() {
        EndedHold ended;
        synchronized (out) {
            if (batchDepth > 0 || held == null || !out.due || isHandedOver()) {
                // Handed over, the session delivers nothing: its held connect waits for the release to be answered.
                return;
            }
            ended = endHold(true);
        }
        completeConnect(ended);
    }

    /**
     * A held connect that ended: its reply, the messages taken to go before it, and with a store that adopts
     * sessions its journal entry (else null).
     */
    private record EndedHold(HeldConnect connect, ServerMessageImpl reply, List<ServerMessage> messages,
            JournalEntry journal) {
    }

    /**
     * Ends the held connect, under the lock: takes what fits its carrier, to be sent by {@link #completeConnect}
     * outside the lock.
     *
     * @param disarm whether the hold timer is still armed for it (false when it is the timer that fired)
     */
    private EndedHold endHold(boolean disarm) {
        HeldConnect completing = held;
        held = null;
        if (disarm) {
            holdTimer.disarm();
        }
        ServerMessageImpl reply = completing.reply();
        if (out.failover != null && out.failover.handover != Handover.NONE) {
            // Handed over: the messages are the next owner's to deliver, from the backplane's history.
            Draining.handOver(reply, this);
            return new EndedHold(completing, reply, List.of(), out.failover.placeOnly());
        }
        List<ServerMessage> taken = drain(reply, completing.carrier.capabilities().maxResponseBytes());
        return new EndedHold(completing, reply, taken, journalEntry(reply, taken));
    }

    /**
     * Under the lock, right after a connect reply took its messages: with a store that adopts sessions, what to
     * journal before the reply leaves. With the {@code ack} extension every reply is numbered (by the extension, just
     * now); without it, replies that carry messages are numbered here.
     *
     * @param reply the connect's reply, whose {@code id} is the connect's
     * @param taken the messages it carries
     * @return the entry, or null if the reply needs none
     */
    private JournalEntry journalEntry(ServerMessageImpl reply, List<ServerMessage> taken) {
        if (out.failover == null) {
            return null;
        }
        AcknowledgedBatch acknowledging = acknowledging();
        if (acknowledging != null) {
            return out.failover.entry(acknowledging.lastBatch(), acknowledging.positionsAfterLastBatch(),
                    reply.getId());
        }
        if (taken.isEmpty()) {
            return null;
        }
        return out.failover.entry(out.failover.nextReply(), Map.copyOf(out.handedPositions()), reply.getId());
    }

    /**
     * The one asynchronous step before a journaled connect reply leaves: journals its entry, waits for the reply
     * before it to have left, then sends it; or withholds it if the session moved to another node (the store fenced
     * the entry) or ended meanwhile. A failed entry is counted and the reply leaves anyway.
     *
     * @param entry the reply's entry and place ({@link SessionFailover#entry})
     * @param send sends the reply
     * @param withhold answers the connect without sending anything to the client
     */
    void afterJournal(JournalEntry entry, Runnable send, Runnable withhold) {
        CompletionStage<Void> written;
        if (entry.batch() < 0) {
            written = CompletableFuture.completedFuture(null);
        } else {
            try {
                written = store().journal(this, entry.batch(), entry.positions(), entry.requestId());
            } catch (RuntimeException failure) {
                written = CompletableFuture.failedFuture(failure);
            }
        }
        entry.previousLeft().thenCombine(written.handle((ok, failure) -> failure), (ignored, failure) -> failure)
                .whenComplete((failure, unexpected) -> {
                    try {
                        leave(failure, send, withhold);
                    } finally {
                        entry.left().complete(null);
                    }
                });
    }

    private void leave(Throwable journalFailure, Runnable send, Runnable withhold) {
        if (journalFailure != null && SessionFencedException.isFenced(journalFailure)) {
            // Another node adopted the session and delivers from now on: this node's copy goes without a word.
            parts.sessions().remove(this, null, State.MOVED, false);
            withhold.run();
            return;
        }
        if (state.isEnded()) {
            withhold.run();
            return;
        }
        if (journalFailure != null) {
            parts.statistics().journalFailed();
            parts.quietLog().warn("journal", "Failed to journal a delivery batch; sending it anyway ({})",
                    journalFailure.toString());
        }
        send.run();
    }

    /**
     * Writes the session through its store before a reply its client will rely on (a handshake's, a subscription's)
     * leaves; a failure is counted and the reply leaves anyway, but for a write refused because another node owns
     * the session (fenced), whose state then lacks what the reply would confirm.
     *
     * @return completes with false if the write was fenced, else true (written, or failed otherwise); never
     *         exceptionally
     */
    CompletionStage<Boolean> writeThrough() {
        CompletionStage<Void> written;
        try {
            written = store().writeNow(this);
        } catch (RuntimeException failure) {
            written = CompletableFuture.failedFuture(failure);
        }
        return written.handle((ok, failure) -> {
            if (failure != null && SessionFencedException.isFenced(failure)) {
                // Another node owns the session now: what this reply would confirm is not in its state.
                return Boolean.FALSE;
            }
            if (failure != null) {
                parts.statistics().storeWriteFailed();
                parts.quietLog().warn("writeNow", "Failed to write a session through its store; replying anyway ({})",
                        failure.toString());
            }
            return Boolean.TRUE;
        });
    }

    /** Takes what fits for a carrier ({@link SessionOutbox#drain}); under the lock. */
    private List<ServerMessage> drain(ServerMessageImpl connectReply, int maxBytes) {
        return out.drain(this, connectReply, maxBytes);
    }

    /**
     * Takes queued messages to send with the replies of a batch, if piggy-backing is allowed.
     *
     * @param carrier the carrier the batch arrived on
     * @return the messages, possibly none
     */
    List<ServerMessage> takeForPiggyback(Carrier carrier) {
        if (!carrier.capabilities().allowsPiggyback() || isMetaConnectDeliveryOnly() || localSession != null) {
            return List.of();
        }
        synchronized (out) {
            if (batchDepth > 0 || out.queue().isEmpty()) {
                return List.of();
            }
            if (held != null && held.carrier.capabilities().pushesWhileHeld()) {
                // Pushes are the way out: taken here for a reply, messages could overtake, or be overtaken by, a
                // push running on another thread at the same time.
                return List.of();
            }
            return drain(null, carrier.capabilities().maxResponseBytes());
        }
    }

    // ---- connect ---------------------------------------------------------------------------------------------

    /**
     * Handles a connect: supersedes a held one, then holds this one or answers it now.
     *
     * @param reply the reply; the advice is added when the client needs it ({@link ConnectAdvice})
     * @param requestedTimeoutMillis the client's {@code advice.timeout} for this connect, or -1
     * @param alone whether the connect is the only message of its batch
     * @param via the carrier it arrived on
     * @return null if the session has ended, else the outcome
     */
    ConnectOutcome connect(ServerMessageImpl reply, long requestedTimeoutMillis, boolean alone, Carrier via) {
        HeldConnect superseded;
        ConnectOutcome outcome;
        synchronized (out) {
            if (state.isEnded()) {
                return null;
            }
            state = State.CONNECTED;
            // A push deferred by the previous carrier would wait for a backlog that no longer matters.
            out.pushDeferred &= carrier == via;
            carrier = via;
            superseded = held;
            held = null;
            if (superseded != null) {
                holdTimer.disarm();
            }
            boolean first = !connectedOnce;
            connectedOnce = true;
            long holdMillis = getTimeout().toMillis();
            if (requestedTimeoutMillis >= 0) {
                holdMillis = Math.min(holdMillis, requestedTimeoutMillis);
            }
            // Queued lazy messages, or messages of an open batch, are not due: the connect may wait for them.
            boolean nothingDue = !out.due || batchDepth > 0;
            Map<String, Object> refusal = null;
            Handover handover = out.failover == null ? Handover.NONE : out.failover.handover;
            if (handover == Handover.RELEASING) {
                // The connect waits for the release (or the session's timeout), even one asking to be answered at
                // once: answered before the release, the client would reach a node that cannot adopt the session yet.
                holdMillis = Math.max(holdMillis, getTimeout().toMillis());
            }
            boolean hold = handover == Handover.RELEASING ? alone && via.capabilities().canHoldConnect()
                    && holdMillis > 0
                    : handover == Handover.NONE && alone && !first && holdMillis > 0 && nothingDue && !handingOff
                    && via.capabilities().canHoldConnect() && (refusal = via.holdPolicy().refuseHold(this)) == null;
            Map<String, Object> advice = advised.forReply(this, requestedTimeoutMillis >= 0, refusal);
            if (advice != null) {
                reply.put(Message.ADVICE_FIELD, advice);
            }
            if (hold) {
                HeldConnect connect = new HeldConnect(++holdCycle, reply, via);
                held = connect;
                expiresAtNanos = Long.MAX_VALUE;
                holdTimer.arm(connect.cycle, TimeUnit.MILLISECONDS.toNanos(holdMillis));
                outcome = ConnectOutcome.HELD;
            } else if (handover != Handover.NONE) {
                // Handed over: come back at once, to the node that adopts the session; released, it leaves here.
                Draining.handOver(reply, this);
                outcome = new ConnectOutcome(List.of(), handover == Handover.RELEASED, out.failover.placeOnly());
                expiresAtNanos = System.nanoTime() + expiryDelayNanos(true);
            } else {
                List<ServerMessage> taken = drain(reply, via.capabilities().maxResponseBytes());
                outcome = new ConnectOutcome(taken, false, journalEntry(reply, taken));
                if (handingOff && out.queue().isEmpty()) {
                    Draining.lastConnect(reply);
                    outcome = new ConnectOutcome(outcome.messages, true, outcome.journal);
                }
                if (localSession == null) {
                    expiresAtNanos = System.nanoTime() + expiryDelayNanos(true);
                }
            }
        }
        via.attach(this);
        if (superseded != null) {
            superseded.carrier.holdPolicy().holdEnded(this);
            superseded.carrier.holdPolicy().superseded();
        }
        return outcome;
    }

    /**
     * The engine drains: from now on this session's connects are answered at once with what is queued, and the one
     * that leaves the queue empty is refused with {@code reconnect:"handshake"} ({@link Draining#lastConnect}) and
     * ends the session. A held connect is answered now. A client that never comes back is ended by the engine's
     * stop, at the drain's deadline.
     *
     * @return true if the session ended now
     */
    boolean handOff() {
        if (out.failover != null) {
            handOver();
            return false;
        }
        return answerLastConnects();
    }

    /** {@link #handOff} without a store that adopts sessions, or when the store could not release the session. */
    private boolean answerLastConnects() {
        EndedHold ended;
        boolean last;
        synchronized (out) {
            if (state.isEnded() || localSession != null) {
                return false;
            }
            handingOff = true;
            if (held == null) {
                return false;
            }
            ended = endHold(true);
            last = out.queue().isEmpty();
            if (last) {
                Draining.lastConnect(ended.reply());
            }
        }
        completeConnect(ended);
        if (last) {
            parts.sessions().remove(this, null, State.DISCONNECTED, false);
        }
        return last;
    }

    /**
     * The engine drains and the store adopts sessions: hands this session over to the next node its client reaches.
     * From now on nothing is delivered (the messages are in the backplane's history, which the adopting node replays
     * from the released positions); once the store released it, the held connect, or else the next one, is answered
     * {@code successful} with {@code reconnect:"retry"} at once ({@link Draining#handOver}) and the session leaves this
     * node without {@code /meta/disconnect} and without being removed from the store ({@link State#MOVED}). Should
     * the release fail, the session is drained as without such a store (its client handshakes again).
     */
    private void handOver() {
        JournalEntry place;
        synchronized (out) {
            if (state.isEnded() || out.failover.handover != Handover.NONE) {
                return;
            }
            out.failover.handover = Handover.RELEASING;
            place = out.failover.placeOnly();
        }
        // Released after the replies already on their way: the final state then counts what they carry.
        place.previousLeft().whenComplete((before, ignored) -> {
            CompletionStage<Void> released;
            try {
                released = store().release(this);
            } catch (RuntimeException failure) {
                released = CompletableFuture.failedFuture(failure);
            }
            released.whenComplete((ok, failure) -> {
                place.left().complete(null);
                released(failure);
            });
        });
    }

    private void released(Throwable failure) {
        if (failure != null && SessionFencedException.isFenced(failure)) {
            parts.sessions().remove(this, null, State.MOVED, false);
            return;
        }
        if (failure != null) {
            parts.quietLog().warn("release", "Failed to release a session while draining; telling its client to "
                    + "handshake again ({})", failure.toString());
            synchronized (out) {
                out.failover.handover = Handover.NONE;
                handingOff = true;
            }
            answerLastConnects();
            return;
        }
        HeldConnect answering;
        ServerMessageImpl reply;
        JournalEntry place;
        synchronized (out) {
            if (state.isEnded()) {
                return;
            }
            out.failover.handover = Handover.RELEASED;
            answering = held;
            if (answering == null) {
                // Its next connect is answered (connect) and ends it here.
                return;
            }
            held = null;
            holdTimer.disarm();
            reply = answering.reply();
            Draining.handOver(reply, this);
            place = out.failover.placeOnly();
        }
        Carrier via = answering.carrier;
        via.holdPolicy().holdEnded(this);
        afterJournal(place, () -> {
            parts.sendReply(this, reply, List.of(), via);
            parts.sessions().remove(this, null, State.MOVED, false);
        }, () -> via.holdPolicy().superseded());
    }

    /** @return true once the draining engine began handing this session over to another node */
    boolean isHandedOver() {
        return out.failover != null && out.failover.handover != Handover.NONE;
    }

    private void holdTimedOut(long cycle) {
        EndedHold ended;
        synchronized (out) {
            if (held == null || held.cycle != cycle) {
                return;
            }
            ended = endHold(false);
        }
        completeConnect(ended);
    }

    private void completeConnect(EndedHold ended) {
        Carrier via = ended.connect().carrier;
        via.holdPolicy().holdEnded(this);
        synchronized (out) {
            expiresAtNanos = System.nanoTime() + expiryDelayNanos(true);
        }
        if (ended.journal() == null) {
            parts.sendReply(this, ended.reply(), ended.messages(), via);
        } else {
            afterJournal(ended.journal(), () -> parts.sendReply(this, ended.reply(), ended.messages(), via),
                    () -> via.holdPolicy().superseded());
        }
    }

    /**
     * The carrier of this session died (socket closed, request aborted, write failed): forget it, and start expiry
     * if it held the session's connect.
     *
     * @param failed the carrier
     */
    void carrierFailed(Carrier failed) {
        HeldConnect dropped = null;
        synchronized (out) {
            if (held != null && held.carrier == failed) {
                dropped = held;
                held = null;
                holdTimer.disarm();
                expiresAtNanos = System.nanoTime() + expiryDelayNanos(false);
            }
            if (carrier == failed) {
                carrier = null;
                out.pushDeferred = false;
            }
        }
        if (dropped != null) {
            failed.holdPolicy().holdEnded(this);
        }
    }

    /** A message other than a connect arrived: the session lives at least {@code maxInterval} more. */
    void touch() {
        synchronized (out) {
            if (held == null && expiresAtNanos != Long.MAX_VALUE) {
                long candidate = System.nanoTime() + expiryDelayNanos(false);
                if (candidate - expiresAtNanos > 0) {
                    expiresAtNanos = candidate;
                }
            }
        }
    }

    boolean holdsConnect() {
        synchronized (out) {
            return held != null;
        }
    }

    boolean isExpired(long nowNanos) {
        long deadline = expiresAtNanos;
        return deadline != Long.MAX_VALUE && nowNanos - deadline > 0;
    }

    private long expiryDelayNanos(boolean withInterval) {
        Duration delay = getMaxInterval();
        if (withInterval) {
            delay = delay.plus(getInterval());
        }
        return delay.toNanos();
    }

    // ---- end of life -----------------------------------------------------------------------------------------

    /**
     * Ends the session: no more queuing, the held connect (if any) completes with {@code reconnect:"none"}.
     *
     * @param endState DISCONNECTED or EXPIRED
     * @param tellClient whether to send {@code /meta/disconnect} first (a server-initiated disconnect)
     * @return false if the session had already ended
     */
    boolean end(State endState, boolean tellClient) {
        HeldConnect releasing;
        Carrier last;
        synchronized (out) {
            if (state.isEnded()) {
                return false;
            }
            state = endState;
            releasing = held;
            held = null;
            holdTimer.stop();
            out.clear();
            last = carrier;
        }
        List<ServerMessage> first = List.of();
        if (tellClient) {
            ServerMessageImpl disconnect = new ServerMessageImpl();
            disconnect.setChannel(Message.META_DISCONNECT);
            disconnect.setSuccessful(true);
            disconnect.freeze();
            first = List.of(disconnect);
        }
        if (releasing != null && endState == State.MOVED) {
            // Moved to another node: its client hears nothing more from this one. Not even an empty reply: with
            // the ack extension it would carry a batch number the new owner never issued.
            releasing.carrier.holdPolicy().holdEnded(this);
            releasing.carrier.holdPolicy().superseded();
        } else if (releasing != null) {
            releasing.carrier.holdPolicy().holdEnded(this);
            ServerMessageImpl reply = releasing.reply();
            reply.put(Message.ADVICE_FIELD, MetaHandlers.fullAdvice(this, Message.RECONNECT_NONE));
            parts.sendReply(this, reply, first, releasing.carrier);
        } else if (tellClient && last != null && last.capabilities().pushesWhileHeld()) {
            last.send(parts.encoded(first));
        }
        return true;
    }

    void notifyRemoved(ServerMessage message, boolean expired) {
        for (SessionRemovedListener listener : callbacks.removedListeners()) {
            Callbacks.run(listener, () -> listener.removed(this, message, expired));
        }
    }

    @Override
    public void disconnect() {
        parts.sessions().remove(this, null, State.DISCONNECTED, true);
    }

    // ---- the parts -------------------------------------------------------------------------------------------

    /** @return the session's settings; the getters and setters of {@link ServerSession} are theirs */
    SessionSettings settings() {
        return settings;
    }

    /** @return the session's extensions and listeners */
    SessionCallbacks callbacks() {
        return callbacks;
    }

    /** @return the store of the engine this session belongs to, now */
    SessionStore store() {
        return parts.store();
    }

    /** @return whether this session keeps positions: its engine has a cluster, which may give messages one */
    boolean tracksPositions() {
        return parts.cluster().hasCluster();
    }

    void subscribed(ServerChannelImpl channel) {
        durable.subscribed(channel);
        storeChanged();
    }

    void unsubscribed(ServerChannelImpl channel) {
        durable.unsubscribed(channel);
        storeChanged();
    }

    /**
     * Tells the store, unless the session moved: its record is another node's now (or that of an adoption undone),
     * which this one must not write; nor once it was handed over.
     */
    private void storeChanged() {
        if (state != State.MOVED && !isHandedOver()) {
            // A session that moved, or was handed over, is the next node's: leaving this one changes nothing stored.
            store().changed(this);
        }
    }

    Set<ServerChannelImpl> subscribedChannels() {
        return durable.channels();
    }

    @Override
    public Set<ServerChannel> getSubscriptions() {
        return Set.copyOf(durable.channels());
    }

    /** @return the session's {@code ack} extension, if it has one */
    AcknowledgedBatch acknowledging() {
        for (SessionExtension extension : callbacks.extensions()) {
            if (extension instanceof AcknowledgedBatch numbered) {
                return numbered;
            }
        }
        return null;
    }

    /**
     * Continues an adopted session without the {@code ack} extension where its former node left it: reply numbers
     * after the last it journaled, and the positions it resumed from as those its client has.
     *
     * @param lastReply the newest reply number journaled
     * @param positions per channel, where it resumes
     */
    void continueReplies(long lastReply, Map<String, ChannelPosition> positions) {
        synchronized (out) {
            if (out.failover != null) {
                out.failover.continueFrom(lastReply);
            }
            out.seedHandedPositions(positions);
        }
    }

    // ---- what a store sees (SessionState) --------------------------------------------------------------------

    @Override
    public String sessionId() {
        return id;
    }

    @Override
    public Set<String> subscriptions() {
        return durable.names();
    }

    @Override
    public Map<String, ChannelPosition> positions() {
        return durable.positions(lastPositions());
    }

    @Override
    public Duration maxInterval() {
        return getMaxInterval();
    }

    @Override
    public long ackBatch() {
        AcknowledgedBatch numbered = acknowledging();
        return numbered == null ? -1 : numbered.acknowledgedBatch();
    }

    @Override
    public long generation() {
        return durable.generation();
    }

    /** @param generation the fencing token the store gave: 1 at creation, the adopted one on adoption */
    void generation(long generation) {
        durable.generation(generation);
    }

    @Override
    public String browserDigest() {
        return settings.browserDigest();
    }

    @Override
    public boolean browserCookieShown() {
        return settings.hasShownBrowserCookie();
    }

    @Override
    public boolean pinned() {
        return settings.isPinRequested();
    }

    @Override
    public boolean acknowledges() {
        return acknowledging() != null;
    }

    /**
     * @return with the {@code ack} extension, its newest batch number; else, with a store that adopts sessions, the
     *         number of the newest connect reply that carried messages (the keys of the journal); else 0
     */
    @Override
    public long lastBatch() {
        AcknowledgedBatch numbered = acknowledging();
        if (numbered != null) {
            return numbered.lastBatch();
        }
        return out.failover == null ? 0 : out.failover.lastReply();
    }

    @Override
    public Map<String, String> portableAttributes() {
        return parts.portableAttributes().of(this);
    }

    // ---- settings (SessionSettings) --------------------------------------------------------------------------

    @Override
    public Duration getInterval() {
        return settings.getInterval();
    }

    @Override
    public void setInterval(Duration interval) {
        settings.setInterval(interval);
    }

    @Override
    public Duration getTimeout() {
        return settings.getTimeout();
    }

    @Override
    public void setTimeout(Duration timeout) {
        settings.setTimeout(timeout);
    }

    @Override
    public Duration getMaxInterval() {
        return settings.getMaxInterval();
    }

    @Override
    public void setMaxInterval(Duration maxInterval) {
        settings.setMaxInterval(maxInterval);
    }

    @Override
    public int getMaxQueue() {
        return settings.getMaxQueue();
    }

    @Override
    public void setMaxQueue(int maxQueue) {
        settings.setMaxQueue(maxQueue);
    }

    @Override
    public int getMaxQueueBytes() {
        return settings.getMaxQueueBytes();
    }

    @Override
    public void setMaxQueueBytes(int maxQueueBytes) {
        settings.setMaxQueueBytes(maxQueueBytes);
    }

    @Override
    public boolean isBroadcastToPublisher() {
        return settings.isBroadcastToPublisher();
    }

    @Override
    public void setBroadcastToPublisher(boolean broadcastToPublisher) {
        settings.setBroadcastToPublisher(broadcastToPublisher);
    }

    @Override
    public boolean isMetaConnectDeliveryOnly() {
        return settings.isMetaConnectDeliveryOnly();
    }

    @Override
    public void setMetaConnectDeliveryOnly(boolean metaConnectDeliveryOnly) {
        settings.setMetaConnectDeliveryOnly(metaConnectDeliveryOnly);
    }

    // ---- extensions and listeners (SessionCallbacks) ---------------------------------------------------------

    @Override
    public void addExtension(SessionExtension extension) {
        callbacks.addExtension(extension);
    }

    @Override
    public void removeExtension(SessionExtension extension) {
        callbacks.removeExtension(extension);
    }

    @Override
    public List<SessionExtension> getExtensions() {
        return callbacks.extensions();
    }

    @Override
    public void addQueueListener(QueueListener listener) {
        callbacks.addQueueListener(listener);
    }

    @Override
    public void removeQueueListener(QueueListener listener) {
        callbacks.removeQueueListener(listener);
    }

    @Override
    public void addDeQueueListener(DeQueueListener listener) {
        callbacks.addDeQueueListener(listener);
    }

    @Override
    public void removeDeQueueListener(DeQueueListener listener) {
        callbacks.removeDeQueueListener(listener);
    }

    @Override
    public void addMaxQueueListener(MaxQueueListener listener) {
        callbacks.addMaxQueueListener(listener);
    }

    @Override
    public void removeMaxQueueListener(MaxQueueListener listener) {
        callbacks.removeMaxQueueListener(listener);
    }

    @Override
    public void addMessageListener(SessionMessageListener listener) {
        callbacks.addMessageListener(listener);
    }

    @Override
    public void removeMessageListener(SessionMessageListener listener) {
        callbacks.removeMessageListener(listener);
    }

    @Override
    public void addRemovedListener(SessionRemovedListener listener) {
        callbacks.addRemovedListener(listener);
    }

    @Override
    public void removeRemovedListener(SessionRemovedListener listener) {
        callbacks.removeRemovedListener(listener);
    }

    // ---- attributes (AttributesMixin) -----------------------------------------------------------------------

    @Override
    public Attributes attributes() {
        return attributes;
    }

    // ---- batching --------------------------------------------------------------------------------------------

    @Override
    public void startBatch() {
        synchronized (out) {
            batchDepth++;
        }
    }

    @Override
    public boolean endBatch() {
        synchronized (out) {
            if (batchDepth == 0 || --batchDepth > 0) {
                return false;
            }
        }
        flush();
        return true;
    }

    @Override
    public String toString() {
        return "ServerSession[" + id + "," + state + "]";
    }
}
