package org.bayeux.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.MapMessage;
import org.bayeux.api.Message;
import org.bayeux.api.client.ClientSessionChannel.MessageListener;
import org.bayeux.client.BayeuxClient.State;
import org.bayeux.client.PendingReplies.Pending;
import org.bayeux.client.transport.ClientTransport;
import org.bayeux.client.transport.WebSocketUnavailableException;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's state machine and its loop: the handshake (one at a time), the {@code /meta/connect} that follows
 * each reply after the advised interval, the back-off after failures, the re-handshake when the session is gone
 * ({@code reconnect:"handshake"}, a 402, or too long unconnected), and the end of the session.
 *
 * <p>Every transition happens under one lock, in the methods below; nothing is sent, and no user code runs, while
 * it is held. Every timer and reply carries the number of the session attempt ({@code epoch}) or the id of the
 * message it belongs to, so a late one cannot move a newer session.</p>
 */
final class SessionLoop {
    private static final Logger LOG = LoggerFactory.getLogger(SessionLoop.class);
    private static final Set<State> HAVE_SESSION = Set.of(State.HANDSHAKEN, State.CONNECTED, State.UNCONNECTED);

    private final BayeuxClient client;
    private final BayeuxClientConfig config;
    private final ClientResources resources;
    private final RequestHeaders requestHeaders;
    private final Transports transports;
    private final Outbox outbox;
    private final Inbox inbox;
    private final PendingReplies pending;
    private final ChannelTable channels;
    private final Backoff backoff;
    private final List<BayeuxClient.StateListener> stateListeners = new CopyOnWriteArrayList<>();

    private final Object lock = new Object();
    // Everything below is guarded by lock.
    private State state = State.DISCONNECTED;
    private long epoch;
    private String clientId;
    private Advice advice = Advice.INITIAL;
    private ClientTransport transport;
    /** The transports the server offered at the last handshake. */
    private Object offeredTransports;
    private Map<String, Object> template = Map.of();
    private int handshakeAttempts;
    private String handshakeId;
    private String connectId;
    private String disconnectId;
    /** The next connect asks the server not to hold it: the first after a handshake, and after a failure. */
    private boolean connectAtOnce;
    private long unconnectedSinceNanos;
    private Scheduler.Task timer;

    /**
     * @param client the client, only as the one its state listeners are told about
     */
    SessionLoop(BayeuxClient client, BayeuxClientConfig config, ClientResources resources,
            RequestHeaders requestHeaders, Transports transports, Outbox outbox, Inbox inbox, PendingReplies pending,
            ChannelTable channels) {
        this.client = client;
        this.config = config;
        this.resources = resources;
        this.requestHeaders = requestHeaders;
        this.transports = transports;
        this.outbox = outbox;
        this.inbox = inbox;
        this.pending = pending;
        this.channels = channels;
        this.backoff = new Backoff(config);
    }

    /** Where an application message goes now: to a transport, into the wait for a session, or nowhere. */
    static final class Route {
        static final Route WAIT = new Route(true, null, null);
        static final Route CLOSED = new Route(false, null, null);

        final boolean waiting;
        final String clientId;
        final ClientTransport transport;

        private Route(boolean waiting, String clientId, ClientTransport transport) {
            this.waiting = waiting;
            this.clientId = clientId;
            this.transport = transport;
        }
    }

    Route route() {
        synchronized (lock) {
            if (HAVE_SESSION.contains(state)) {
                return new Route(false, clientId, transport);
            }
            return state == State.HANDSHAKING || state == State.REHANDSHAKING ? Route.WAIT : Route.CLOSED;
        }
    }

    // ---- Handshake ----

    void handshake(Map<String, Object> handshakeTemplate, MessageListener callback) {
        long attempt;
        List<State> changes = new ArrayList<>(1);
        synchronized (lock) {
            if (state != State.DISCONNECTED) {
                throw new IllegalStateException("Cannot handshake: the client is " + state + "; disconnect first");
            }
            template = handshakeTemplate == null ? Map.of() : new HashMap<>(handshakeTemplate);
            advice = Advice.INITIAL;
            backoff.reset();
            handshakeAttempts = 0;
            attempt = ++epoch;
            setState(State.HANDSHAKING, changes);
        }
        notifyStates(changes);
        sendHandshake(attempt, callback);
    }

    private void sendHandshake(long forEpoch, MessageListener callback) {
        MapMessage message;
        ClientTransport via;
        HandshakeRequest request;
        synchronized (lock) {
            if (forEpoch != epoch || handshakeId != null
                    || (state != State.HANDSHAKING && state != State.REHANDSHAKING)) {
                return;
            }
            via = transports.forHandshake();
            message = new MapMessage(template);
            message.setChannel(Message.META_HANDSHAKE);
            message.put(Message.VERSION_FIELD, "1.0");
            message.put(Message.MIN_VERSION_FIELD, "1.0");
            message.put(Message.SUPPORTED_CONNECTION_TYPES_FIELD, transports.availableNames());
            message.setId(outbox.nextId());
            handshakeId = message.getId();
            request = new HandshakeRequest(message, state == State.REHANDSHAKING, ++handshakeAttempts,
                    requestHeaders::set);
        }
        if (callback != null) {
            pending.add(new Pending(message, callback, null, false, false));
        }
        Map<String, String> headersBefore = requestHeaders.snapshot();
        CompletionStage<?> ready;
        try {
            ready = config.handshakeHook().beforeHandshake(request);
        } catch (RuntimeException failure) {
            ready = CompletableFuture.failedFuture(failure);
        }
        ready.whenComplete((ignored, failure) -> {
            if (failure != null) {
                LOG.warn("The handshake hook failed; handshaking again after the back-off", failure);
                inbox.failed(message, ClientErrors.TRANSPORT_FAILURE, failure);
            } else if (isCurrentHandshake(message.getId())) {
                if (!headersBefore.equals(requestHeaders.snapshot())) {
                    // Headers go with a WebSocket's upgrade only: new credentials need a new socket.
                    via.close(new Inbox.ClientClosedException("New credentials"));
                }
                outbox.sendMeta(message, via, null, config.maxNetworkDelay());
            }
        });
    }

    private boolean isCurrentHandshake(String id) {
        synchronized (lock) {
            return id.equals(handshakeId);
        }
    }

    /**
     * @param reply a handshake reply, or a failure the client made up
     * @param cause why no reply came, for a made-up failure; else null
     * @return true if this is the reply to the handshake in flight (else it is stale and ignored)
     */
    boolean onHandshakeReply(Message reply, Throwable cause) {
        List<State> changes = new ArrayList<>(1);
        Runnable next;
        synchronized (lock) {
            if (handshakeId == null || !handshakeId.equals(reply.getId())) {
                return false;
            }
            handshakeId = null;
            if (cause == null) {
                advice = advice.update(reply.getAdvice());
            }
            if (reply.isSuccessful()) {
                next = handshook(reply, changes);
            } else if (Message.RECONNECT_NONE.equals(Advice.reconnectOf(reply, Message.RECONNECT_HANDSHAKE))) {
                LOG.info("Handshake refused with reconnect:none ({}); the client stops", reply.getError());
                next = terminate(changes);
            } else if (cause instanceof WebSocketUnavailableException
                    && transports.fallBackFrom(ClientTransport.WEBSOCKET)) {
                LOG.info("WebSocket unavailable at {}; falling back to long-polling", config.url());
                long forEpoch = epoch;
                next = schedule(0, () -> sendHandshake(forEpoch, null));
            } else {
                long forEpoch = epoch;
                long delay = advice.intervalMillis + backoff.nextMillis();
                LOG.debug("Handshake failed ({}); next attempt in {} ms", reply.getError(), delay);
                next = schedule(delay, () -> sendHandshake(forEpoch, null));
            }
        }
        notifyStates(changes);
        next.run();
        return true;
    }

    /**
     * @param reply a successful handshake reply
     * @return true if the server offers one of the client's transports
     */
    boolean offersATransport(Message reply) {
        return transports.negotiate(reply.get(Message.SUPPORTED_CONNECTION_TYPES_FIELD)) != null;
    }

    /** Called under the lock with a successful handshake reply. */
    private Runnable handshook(Message reply, List<State> changes) {
        ClientTransport negotiated = transports.negotiate(reply.get(Message.SUPPORTED_CONNECTION_TYPES_FIELD));
        if (negotiated == null || reply.getClientId() == null) {
            LOG.warn("The server at {} offers {}, none of the client's transports {}; the client stops", config.url(),
                    reply.get(Message.SUPPORTED_CONNECTION_TYPES_FIELD), transports.availableNames());
            return terminate(changes);
        }
        boolean rehandshake = state == State.REHANDSHAKING;
        clientId = reply.getClientId();
        transport = negotiated;
        offeredTransports = reply.get(Message.SUPPORTED_CONNECTION_TYPES_FIELD);
        connectAtOnce = true;
        handshakeAttempts = 0;
        setState(State.HANDSHAKEN, changes);
        long forEpoch = epoch;
        return () -> {
            if (rehandshake) {
                if (config.autoResubscribe()) {
                    outbox.resubscribe(channels.subscribedNames());
                } else {
                    channels.clearSubscriptions();
                }
            }
            outbox.releaseWaiting();
            sendConnect(forEpoch);
        };
    }

    // ---- Connect ----

    private void sendConnect(long forEpoch) {
        MapMessage message = MapMessage.on(Message.META_CONNECT);
        ClientTransport via;
        String session;
        long holdMillis;
        synchronized (lock) {
            if (forEpoch != epoch || connectId != null || !HAVE_SESSION.contains(state)) {
                return;
            }
            via = transport;
            session = clientId;
            message.put(Message.CONNECTION_TYPE_FIELD, via.name());
            holdMillis = advice.timeoutMillis;
            if (connectAtOnce) {
                message.getAdvice(true).put(Message.TIMEOUT_FIELD, 0);
                holdMillis = 0;
            }
            message.setId(outbox.nextId());
            connectId = message.getId();
        }
        outbox.sendMeta(message, via, session, Duration.ofMillis(holdMillis).plus(config.maxNetworkDelay()));
    }

    /**
     * @param reply a connect reply, or a failure the client made up
     * @param cause why no reply came, for a made-up failure; else null
     * @return true if this is the reply to the connect in flight (else it is stale and ignored)
     */
    boolean onConnectReply(Message reply, Throwable cause) {
        List<State> changes = new ArrayList<>(1);
        Runnable next;
        synchronized (lock) {
            if (connectId == null || !connectId.equals(reply.getId())) {
                return false;
            }
            connectId = null;
            if (cause == null) {
                advice = advice.update(reply.getAdvice());
            }
            long forEpoch = epoch;
            String reconnect = Advice.reconnectOf(reply, Message.RECONNECT_RETRY);
            if (Message.RECONNECT_NONE.equals(reconnect)) {
                LOG.debug("Connect answered with reconnect:none; the client stops");
                next = terminate(changes);
            } else if (Message.RECONNECT_HANDSHAKE.equals(reconnect)) {
                LOG.debug("The server lost the session ({}); handshaking again", reply.getError());
                next = rehandshake(advice.intervalMillis + backoff.nextMillis(), changes);
            } else if (reply.isSuccessful()) {
                connectAtOnce = false;
                backoff.reset();
                setState(State.CONNECTED, changes);
                next = schedule(advice.intervalMillis, () -> sendConnect(forEpoch));
            } else {
                next = connectFailed(cause, changes);
            }
        }
        notifyStates(changes);
        next.run();
        return true;
    }

    /** Called under the lock after a connect that failed or was refused with reconnect:retry. */
    private Runnable connectFailed(Throwable cause, List<State> changes) {
        long forEpoch = epoch;
        if (cause instanceof WebSocketUnavailableException && transports.negotiate(offeredTransports) == transport
                && transports.fallBackFrom(ClientTransport.WEBSOCKET)) {
            ClientTransport fallback = transports.negotiate(offeredTransports);
            if (fallback != null) {
                LOG.info("WebSocket unavailable at {}; falling back to {}", config.url(), fallback.name());
                transport = fallback;
                connectAtOnce = true;
                return schedule(0, () -> sendConnect(forEpoch));
            }
            // The server offers nothing else: handshake again, offering what is left.
            return rehandshake(0, changes);
        }
        if (state != State.UNCONNECTED) {
            unconnectedSinceNanos = System.nanoTime();
            setState(State.UNCONNECTED, changes);
        }
        connectAtOnce = true;
        long unconnectedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - unconnectedSinceNanos);
        if (unconnectedMillis > advice.sessionLifetimeMillis()) {
            LOG.debug("Unconnected for {} ms, longer than the session lives on the server; handshaking again",
                    unconnectedMillis);
            return rehandshake(backoff.nextMillis(), changes);
        }
        return schedule(advice.intervalMillis + backoff.nextMillis(), () -> sendConnect(forEpoch));
    }

    /** Called under the lock: the session is gone; handshake again after a delay. */
    private Runnable rehandshake(long delayMillis, List<State> changes) {
        long forEpoch = ++epoch;
        clientId = null;
        connectId = null;
        handshakeId = null;
        handshakeAttempts = 0;
        setState(State.REHANDSHAKING, changes);
        return schedule(delayMillis, () -> sendHandshake(forEpoch, null));
    }

    // ---- Disconnect ----

    void disconnect(MessageListener callback) {
        List<State> changes = new ArrayList<>(1);
        MapMessage message = MapMessage.on(Message.META_DISCONNECT);
        Runnable next = null;
        ClientTransport via = null;
        String session = null;
        synchronized (lock) {
            if (HAVE_SESSION.contains(state)) {
                cancelTimer();
                // The held connect ends with reconnect:none once the server has the disconnect: not a reason to stop
                // before the disconnect's own reply arrives.
                connectId = null;
                via = transport;
                session = clientId;
                message.setId(outbox.nextId());
                disconnectId = message.getId();
                setState(State.DISCONNECTING, changes);
            } else if (state == State.HANDSHAKING || state == State.REHANDSHAKING) {
                next = terminate(changes);
            }
        }
        notifyStates(changes);
        if (via == null) {
            if (next != null) {
                next.run();
            }
            if (callback != null) {
                MapMessage reply = MapMessage.on(Message.META_DISCONNECT);
                reply.setSuccessful(true);
                Callbacks.run(callback, () -> callback.onMessage(channels.get(Message.META_DISCONNECT),
                        MapMessage.readOnly(reply)));
            }
            return;
        }
        if (callback != null) {
            pending.add(new Pending(message, callback, null, false, false));
        }
        outbox.sendMeta(message, via, session, config.maxNetworkDelay());
    }

    /**
     * @param reply a {@code /meta/disconnect} reply, failure or message from the server
     * @return true if it ends the session: the reply to the client's own disconnect, or a disconnect the server
     *         sent on its own
     */
    boolean onDisconnectReply(Message reply) {
        List<State> changes = new ArrayList<>(1);
        Runnable next;
        synchronized (lock) {
            boolean ours = disconnectId != null && disconnectId.equals(reply.getId());
            boolean fromServer = reply.getId() == null && state != State.DISCONNECTED;
            if (!ours && !fromServer) {
                return false;
            }
            next = terminate(changes);
        }
        notifyStates(changes);
        next.run();
        return true;
    }

    /** Called under the lock: the session ends for good, until the application handshakes again. */
    private Runnable terminate(List<State> changes) {
        epoch++;
        clientId = null;
        handshakeId = null;
        connectId = null;
        disconnectId = null;
        cancelTimer();
        setState(State.DISCONNECTED, changes);
        return () -> {
            outbox.failWaiting();
            for (Pending unanswered : pending.takeAll()) {
                inbox.notifyFailure(unanswered, ClientErrors.NOT_CONNECTED, null);
            }
            transports.closeAll(new Inbox.ClientClosedException("The client disconnected"));
        };
    }

    // ---- Timers and states ----

    /** Called under the lock: runs a task after a delay, in place of any task scheduled before. */
    private Runnable schedule(long delayMillis, Runnable task) {
        cancelTimer();
        if (delayMillis <= 0) {
            return task;
        }
        timer = resources.scheduler().schedule(() -> resources.executor().execute(task),
                delayMillis, TimeUnit.MILLISECONDS);
        return () -> {
        };
    }

    private void cancelTimer() {
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
    }

    private void setState(State next, List<State> changes) {
        if (state != next) {
            state = next;
            changes.add(next);
            lock.notifyAll();
        }
    }

    private void notifyStates(List<State> changes) {
        for (State changed : changes) {
            for (BayeuxClient.StateListener listener : stateListeners) {
                Callbacks.run(listener, () -> listener.onStateChange(client, changed));
            }
        }
    }

    State state() {
        synchronized (lock) {
            return state;
        }
    }

    String clientId() {
        synchronized (lock) {
            return clientId;
        }
    }

    String transportName() {
        synchronized (lock) {
            return transport == null ? null : transport.name();
        }
    }

    void addStateListener(BayeuxClient.StateListener listener) {
        stateListeners.add(listener);
    }

    void removeStateListener(BayeuxClient.StateListener listener) {
        stateListeners.remove(listener);
    }

    /**
     * Blocks until the client is in one of the states, or the time is up.
     *
     * @param timeout the longest wait
     * @param states the states waited for
     * @return true if the client reached one of them
     * @throws InterruptedException if the thread is interrupted
     */
    boolean waitFor(Duration timeout, Set<State> states) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lock) {
            while (!states.contains(state)) {
                long remaining = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (remaining <= 0) {
                    return false;
                }
                lock.wait(remaining);
            }
            return true;
        }
    }
}
