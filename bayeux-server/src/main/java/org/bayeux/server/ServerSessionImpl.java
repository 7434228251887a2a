package org.bayeux.server;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.Message;
import org.bayeux.api.Promise;
import org.bayeux.api.Session;
import org.bayeux.api.server.DeQueueListener;
import org.bayeux.api.server.LocalSession;
import org.bayeux.api.server.ServerChannel;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.SessionMessageListener;
import org.bayeux.api.server.SessionRemovedListener;
import org.bayeux.server.internal.Callbacks;
import org.bayeux.api.server.SessionExtension;
import org.bayeux.server.cluster.AcknowledgedBatch;
import org.bayeux.server.cluster.SessionState;
import org.bayeux.server.transport.Carrier;

/**
 * One session of the engine: its state, its one lock and one queue, the connect it holds, and its expiry.
 *
 * <p>Everything that changes the queue, the held connect or the expiry happens under {@link #lock}. The
 * carrier's {@link Carrier#send(List)} is called under the lock too (it must not block), so that a session's
 * messages leave in the order they were queued; user code other than the queue listeners runs outside it.</p>
 */
final class ServerSessionImpl extends SessionCallbacks implements SessionState {
    private final SessionParts parts;
    private final String id;
    private final LocalSessionImpl localSession;
    private final Object lock = new Object();
    /** The channels subscribed to ({@link SubscriptionSets}); changed under {@code this}, read without a lock. */
    private volatile Set<ServerChannelImpl> subscriptions = Set.of();

    private volatile State state = State.HANDSHAKEN;
    private volatile Carrier carrier;
    private volatile long expiresAtNanos;

    // Guarded by lock.
    private final SessionQueue queue;
    private HeldConnect held;
    private long holdCycle;
    private final HoldTimer holdTimer;
    /** Made when the first lazy message is queued: most sessions never receive one. */
    private LazyFlushTimer lazyFlushTimer;
    private int batchDepth;
    private boolean connectedOnce;
    private final ConnectAdvice advised = new ConnectAdvice();
    /** The queue holds a message that must not wait: a non-lazy one, or lazy ones whose timeout has passed. */
    private boolean due;
    /** A push was handed to the carrier ({@link Carrier#executePush(Runnable)}) and has not run yet. */
    private boolean pushScheduled;
    /** A push waits for the carrier's backlog to shrink ({@link Carrier#deferPush(Runnable)}). */
    private boolean pushDeferred;
    /** The engine drains: connects are answered at once, and the one that empties the queue ends the session. */
    private boolean handingOff;
    /** How many messages were taken from the queue for carriers; written under the lock. */
    private volatile long delivered;

    ServerSessionImpl(SessionParts parts, String id, LocalSessionImpl localSession) {
        super(parts.config());
        this.parts = parts;
        this.id = id;
        this.localSession = localSession;
        this.holdTimer = new HoldTimer(parts.scheduler(), this::holdTimedOut);
        this.queue = new SessionQueue(parts.codec());
        this.expiresAtNanos = localSession != null ? Long.MAX_VALUE : System.nanoTime() + expiryDelayNanos(true);
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
        return current == null ? null : current.transportName();
    }

    Carrier carrier() {
        return carrier;
    }

    @Override
    public int getQueueSize() {
        synchronized (lock) {
            return queue.size();
        }
    }

    @Override
    public long getQueueBytes() {
        synchronized (lock) {
            return queue.bytes();
        }
    }

    @Override
    public Set<ServerChannel> getSubscriptions() {
        return Set.copyOf(subscriptions);
    }

    void subscribed(ServerChannelImpl channel) {
        synchronized (this) {
            subscriptions = SubscriptionSets.with(subscriptions, channel);
        }
        parts.store().changed(this);
    }

    void unsubscribed(ServerChannelImpl channel) {
        synchronized (this) {
            subscriptions = SubscriptionSets.without(subscriptions, channel);
        }
        parts.store().changed(this);
    }

    @Override
    public String sessionId() {
        return id;
    }

    @Override
    public Set<String> subscriptions() {
        Set<ServerChannelImpl> now = subscriptions;
        Set<String> names = new java.util.LinkedHashSet<>(now.size() * 2);
        for (ServerChannelImpl channel : now) {
            names.add(channel.getId());
        }
        return names;
    }

    @Override
    public long deliveryPosition() {
        return delivered;
    }

    @Override
    public long ackBatch() {
        for (SessionExtension extension : extensionList()) {
            if (extension instanceof AcknowledgedBatch numbered) {
                return numbered.acknowledgedBatch();
            }
        }
        return -1;
    }

    Set<ServerChannelImpl> subscribedChannels() {
        return subscriptions;
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
        ServerMessage message = applyOutgoingExtensions(frozen);
        if (message == null) {
            return false;
        }
        for (SessionMessageListener listener : messageListeners()) {
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
        synchronized (lock) {
            if (state.isEnded() || !offerToQueueListeners(sender, message)) {
                return false;
            }
            Overflow overflow = admit(queue, carrier, size, sender, message, parts.queueLimitCounters());
            if (overflow == Overflow.DROP) {
                return false;
            }
            overflowDisconnect = overflow == Overflow.DISCONNECT;
            if (overflowDisconnect) {
                wake = false;
            } else {
                queue.add(message, size);
                if (lazyDelayNanos == 0) {
                    due = true;
                } else {
                    if (lazyFlushTimer == null) {
                        lazyFlushTimer = new LazyFlushTimer(parts.scheduler(), this::lazyFlush);
                    }
                    lazyFlushTimer.schedule(lazyDelayNanos);
                }
                wake = due && batchDepth == 0;
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
        synchronized (lock) {
            lazyFlushTimer.fired();
            due = !queue.isEmpty();
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
        synchronized (lock) {
            if (batchDepth > 0 || held == null || !due) {
                return;
            }
            if (!held.carrier.pushesWhileHeld() || isMetaConnectDeliveryOnly()) {
                pushing = null;
            } else if (pushScheduled || pushDeferred) {
                // The scheduled or deferred push has not run yet; it will take this message too.
                return;
            } else {
                pushScheduled = true;
                pushing = held.carrier;
            }
        }
        if (pushing != null) {
            pushing.executePush(this::push);
        } else {
            flushNow();
        }
    }

    /** Runs when the carrier decides: sends everything queued meanwhile, or completes the held connect. */
    private void push() {
        synchronized (lock) {
            pushScheduled = false;
            if (batchDepth > 0 || held == null || !due) {
                return;
            }
            if (held.carrier.pushesWhileHeld() && !isMetaConnectDeliveryOnly()) {
                // Frames are capped in size: send as many as the queue needs, bounded by its length now, while the
                // socket keeps up; what it cannot take yet stays queued, within reach of the max-queue policy.
                for (int frames = queue.size(); frames > 0 && !queue.isEmpty(); frames--) {
                    if (held.carrier.deferPush(this::resumePush)) {
                        pushDeferred = true;
                        return;
                    }
                    held.carrier.send(parts.encoded(drain(null, held.carrier.maxResponseBytes())));
                }
                return;
            }
        }
        // The session moved to a carrier that cannot push while the push waited.
        flushNow();
    }

    /** The carrier's backlog shrank after a deferred push. */
    private void resumePush() {
        synchronized (lock) {
            pushDeferred = false;
        }
        flush();
    }

    private void flushNow() {
        HeldConnect completing;
        ServerMessageImpl reply;
        List<ServerMessage> messages;
        synchronized (lock) {
            if (batchDepth > 0 || held == null || !due) {
                return;
            }
            completing = held;
            held = null;
            holdTimer.disarm();
            reply = completing.reply();
            messages = drain(reply, completing.carrier.maxResponseBytes());
        }
        completeConnect(completing, reply, messages);
    }

    /**
     * Takes what fits in {@code maxBytes} for delivery ({@link SessionQueue#take}); {@link DeQueueListener}s may
     * rewrite it first; the rest stays queued, still due. Called under the lock.
     *
     * @param connectReply the connect reply the messages go out with (listeners then run even for an empty
     *                     queue), or null when they are pushed or piggy-backed
     * @param maxBytes the most JSON bytes the carrier takes at once
     */
    private List<ServerMessage> drain(ServerMessageImpl connectReply, int maxBytes) {
        // Listeners see a connect reply's empty queue too; with none, an empty queue needs no work (nor a deque).
        boolean always = connectReply != null && !deQueueListeners().isEmpty();
        List<ServerMessage> result = queue.take(maxBytes, always, leaving -> {
            for (DeQueueListener listener : deQueueListeners()) {
                Callbacks.run(listener, () -> listener.deQueue(this, leaving, connectReply));
            }
        });
        due = !queue.isEmpty();
        delivered += result.size();
        if (!due && lazyFlushTimer != null) {
            lazyFlushTimer.cancel();
        }
        return result;
    }

    /**
     * Takes queued messages to send with the replies of a batch, if piggy-backing is allowed.
     *
     * @param carrier the carrier the batch arrived on
     * @return the messages, possibly none
     */
    List<ServerMessage> takeForPiggyback(Carrier carrier) {
        if (!carrier.allowsPiggyback() || isMetaConnectDeliveryOnly() || localSession != null) {
            return List.of();
        }
        synchronized (lock) {
            if (batchDepth > 0 || queue.isEmpty()) {
                return List.of();
            }
            if (held != null && held.carrier.pushesWhileHeld()) {
                // Pushes are the way out: taken here for a reply, messages could overtake, or be overtaken by, a
                // push running on another thread at the same time.
                return List.of();
            }
            return drain(null, carrier.maxResponseBytes());
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
        synchronized (lock) {
            if (state.isEnded()) {
                return null;
            }
            state = State.CONNECTED;
            // A push deferred by the previous carrier would wait for a backlog that no longer matters.
            pushDeferred &= carrier == via;
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
            boolean nothingDue = !due || batchDepth > 0;
            Map<String, Object> refusal = null;
            boolean hold = alone && !first && holdMillis > 0 && nothingDue && !handingOff && via.canHoldConnect()
                    && (refusal = via.refuseHold(this)) == null;
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
            } else {
                outcome = new ConnectOutcome(drain(reply, via.maxResponseBytes()));
                if (handingOff && queue.isEmpty()) {
                    Draining.lastConnect(reply);
                    outcome = new ConnectOutcome(outcome.messages, true);
                }
                if (localSession == null) {
                    expiresAtNanos = System.nanoTime() + expiryDelayNanos(true);
                }
            }
        }
        via.attach(this);
        if (superseded != null) {
            superseded.carrier.holdEnded(this);
            superseded.carrier.superseded();
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
        HeldConnect completing;
        ServerMessageImpl reply;
        List<ServerMessage> messages;
        boolean last;
        synchronized (lock) {
            if (state.isEnded() || localSession != null) {
                return false;
            }
            handingOff = true;
            if (held == null) {
                return false;
            }
            completing = held;
            held = null;
            holdTimer.disarm();
            reply = completing.reply();
            messages = drain(reply, completing.carrier.maxResponseBytes());
            last = queue.isEmpty();
            if (last) {
                Draining.lastConnect(reply);
            }
        }
        completeConnect(completing, reply, messages);
        if (last) {
            parts.sessions().remove(this, null, State.DISCONNECTED, false);
        }
        return last;
    }

    private void holdTimedOut(long cycle) {
        HeldConnect completing;
        ServerMessageImpl reply;
        List<ServerMessage> messages;
        synchronized (lock) {
            if (held == null || held.cycle != cycle) {
                return;
            }
            completing = held;
            held = null;
            reply = completing.reply();
            messages = drain(reply, completing.carrier.maxResponseBytes());
        }
        completeConnect(completing, reply, messages);
    }

    private void completeConnect(HeldConnect connect, ServerMessageImpl reply, List<ServerMessage> messages) {
        connect.carrier.holdEnded(this);
        synchronized (lock) {
            expiresAtNanos = System.nanoTime() + expiryDelayNanos(true);
        }
        parts.sendReply(this, reply, messages, connect.carrier);
    }

    /**
     * The carrier of this session died (socket closed, request aborted, write failed): forget it, and start expiry
     * if it held the session's connect.
     *
     * @param failed the carrier
     */
    void carrierFailed(Carrier failed) {
        HeldConnect dropped = null;
        synchronized (lock) {
            if (held != null && held.carrier == failed) {
                dropped = held;
                held = null;
                holdTimer.disarm();
                expiresAtNanos = System.nanoTime() + expiryDelayNanos(false);
            }
            if (carrier == failed) {
                carrier = null;
                pushDeferred = false;
            }
        }
        if (dropped != null) {
            failed.holdEnded(this);
        }
    }

    /** A message other than a connect arrived: the session lives at least {@code maxInterval} more. */
    void touch() {
        synchronized (lock) {
            if (held == null && expiresAtNanos != Long.MAX_VALUE) {
                long candidate = System.nanoTime() + expiryDelayNanos(false);
                if (candidate - expiresAtNanos > 0) {
                    expiresAtNanos = candidate;
                }
            }
        }
    }

    boolean holdsConnect() {
        synchronized (lock) {
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
        synchronized (lock) {
            if (state.isEnded()) {
                return false;
            }
            state = endState;
            releasing = held;
            held = null;
            holdTimer.stop();
            queue.clear();
            if (lazyFlushTimer != null) {
                lazyFlushTimer.cancel();
            }
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
        if (releasing != null) {
            releasing.carrier.holdEnded(this);
            ServerMessageImpl reply = releasing.reply();
            reply.put(Message.ADVICE_FIELD, MetaHandlers.fullAdvice(this, Message.RECONNECT_NONE));
            parts.sendReply(this, reply, first, releasing.carrier);
        } else if (tellClient && last != null && last.pushesWhileHeld()) {
            last.send(parts.encoded(first));
        }
        return true;
    }

    void notifyRemoved(ServerMessage message, boolean expired) {
        for (SessionRemovedListener listener : removedListeners()) {
            Callbacks.run(listener, () -> listener.removed(this, message, expired));
        }
    }

    @Override
    public void disconnect() {
        parts.sessions().remove(this, null, State.DISCONNECTED, true);
    }

    // ---- batching --------------------------------------------------------------------------------------------

    @Override
    public void startBatch() {
        synchronized (lock) {
            batchDepth++;
        }
    }

    @Override
    public boolean endBatch() {
        synchronized (lock) {
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
