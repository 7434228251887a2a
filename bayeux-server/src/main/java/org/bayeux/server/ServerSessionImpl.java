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
import org.bayeux.server.SessionQueue.Overflow;
import org.bayeux.server.internal.Callbacks;
import org.bayeux.server.cluster.AcknowledgedBatch;
import org.bayeux.server.cluster.ChannelPosition;
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
        this.out = new SessionOutbox(parts.codec());
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
            if (batchDepth > 0 || held == null || !out.due) {
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
            if (batchDepth > 0 || held == null || !out.due) {
                return;
            }
            ended = endHold(true);
        }
        completeConnect(ended);
    }

    /** A held connect that ended: its reply, and the messages taken to go before it. */
    private record EndedHold(HeldConnect connect, ServerMessageImpl reply, List<ServerMessage> messages) {
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
        return new EndedHold(completing, reply, drain(reply, completing.carrier.capabilities().maxResponseBytes()));
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
            boolean hold = alone && !first && holdMillis > 0 && nothingDue && !handingOff && via.capabilities().canHoldConnect()
                    && (refusal = via.holdPolicy().refuseHold(this)) == null;
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
                outcome = new ConnectOutcome(drain(reply, via.capabilities().maxResponseBytes()));
                if (handingOff && out.queue().isEmpty()) {
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
        parts.sendReply(this, ended.reply(), ended.messages(), via);
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
        if (releasing != null) {
            releasing.carrier.holdPolicy().holdEnded(this);
            ServerMessageImpl reply = releasing.reply();
            // Moved: its client carries on with the node that owns it now, so it must not be told to stop.
            reply.put(Message.ADVICE_FIELD, MetaHandlers.fullAdvice(this,
                    endState == State.MOVED ? Message.RECONNECT_RETRY : Message.RECONNECT_NONE));
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
     * which this one must not write.
     */
    private void storeChanged() {
        if (state != State.MOVED) {
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
