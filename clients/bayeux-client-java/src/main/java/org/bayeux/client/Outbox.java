package org.bayeux.client;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import org.bayeux.api.MapMessage;
import org.bayeux.api.Message;
import org.bayeux.api.client.ClientSession;
import org.bayeux.api.client.ClientSession.Extension;
import org.bayeux.api.client.ClientSessionChannel.MessageListener;
import org.bayeux.client.PendingReplies.Pending;
import org.bayeux.client.transport.ClientTransport;

/**
 * The way out: gives each message its id and the session id, runs the outgoing extensions, and hands it to the
 * transport; or keeps it in the open batch, or until the handshake that gives it a session; or fails it at once.
 */
final class Outbox {
    private final ClientSession session;
    private final List<Extension> extensions;
    private final ClientResources resources;
    private final PendingReplies pending;
    private final Inbox inbox;
    private final Duration maxNetworkDelay;
    private final AtomicLong lastId = new AtomicLong();
    private final Object lock = new Object();
    private SessionLoop loop;
    /** Guarded by {@link #lock}. */
    private int batchDepth;
    /** Guarded by {@link #lock}. */
    private List<Message.Mutable> batched = new ArrayList<>();
    /** Messages sent while handshaking, to go once there is a session; guarded by {@link #lock}. */
    private final ArrayDeque<Message.Mutable> waitingForSession = new ArrayDeque<>();

    /**
     * @param session the session outgoing extensions are given
     */
    Outbox(ClientSession session, List<Extension> extensions, PendingReplies pending, Inbox inbox,
            ClientResources resources, BayeuxClientConfig config) {
        this.session = session;
        this.extensions = extensions;
        this.resources = resources;
        this.pending = pending;
        this.inbox = inbox;
        this.maxNetworkDelay = config.maxNetworkDelay();
    }

    void bind(SessionLoop loop) {
        this.loop = loop;
    }

    /** @return a new message id: decimal, from 1, as the reference clients number theirs */
    String nextId() {
        return Long.toString(lastId.incrementAndGet());
    }

    /**
     * Sends a publish.
     *
     * @param message the message, its channel set
     * @param callback called with the reply, or null
     */
    void submit(Message.Mutable message, MessageListener callback) {
        message.setId(nextId());
        if (register(new Pending(message, callback, null, false, true))) {
            route(List.of(message));
        }
    }

    /**
     * Sends a subscribe or an unsubscribe.
     *
     * @param metaChannel {@code /meta/subscribe} or {@code /meta/unsubscribe}
     * @param channel the channel
     * @param subscriber for a subscribe, the listener to drop if the server refuses
     * @param callback called with the reply, or null
     */
    void submitSubscription(String metaChannel, ClientChannel channel, MessageListener subscriber,
            MessageListener callback) {
        MapMessage message = MapMessage.on(metaChannel);
        message.put(Message.SUBSCRIPTION_FIELD, channel.getId());
        message.setId(nextId());
        if (register(new Pending(message, callback, subscriber, false, true))) {
            route(List.of(message));
        } else if (subscriber != null) {
            channel.removeSubscriber(subscriber);
        }
    }

    /**
     * Sends a request to a service channel; the callback gets the service's answer, or a failure.
     *
     * @param message the request, its channel and data set
     * @param callback called once with the answer
     * @param timeout how long to wait for the answer
     */
    void submitRemoteCall(Message.Mutable message, MessageListener callback, Duration timeout) {
        String id = nextId();
        message.setId(id);
        Pending call = new Pending(message, callback, null, true, true);
        if (!register(call)) {
            return;
        }
        call.timer = resources.scheduler().schedule(() -> resources.executor().execute(() -> {
            Pending expired = pending.take(id);
            if (expired != null) {
                inbox.notifyFailure(expired, ClientErrors.TIMEOUT,
                        new TimeoutException("No answer within " + timeout.toMillis() + " ms"));
            }
        }), timeout);
        route(List.of(message));
    }

    /**
     * Subscribes again, in one batch, to channels of a session that ended.
     *
     * @param channels the channel names
     */
    void resubscribe(List<String> channels) {
        List<Message.Mutable> messages = new ArrayList<>(channels.size());
        for (String channel : channels) {
            MapMessage message = MapMessage.on(Message.META_SUBSCRIBE);
            message.put(Message.SUBSCRIPTION_FIELD, channel);
            message.setId(nextId());
            if (register(new Pending(message, null, null, false, true))) {
                messages.add(message);
            }
        }
        if (!messages.isEmpty()) {
            route(messages);
        }
    }

    private boolean register(Pending entry) {
        if (pending.add(entry)) {
            return true;
        }
        inbox.notifyFailure(entry, ClientErrors.TOO_MANY_PENDING, null);
        return false;
    }

    private void route(List<Message.Mutable> messages) {
        SessionLoop.Route route;
        synchronized (lock) {
            if (batchDepth > 0) {
                batched.addAll(messages);
                return;
            }
            route = loop.route();
            if (route.waiting) {
                // Bounded: every message here is counted in the pending replies.
                waitingForSession.addAll(messages);
                return;
            }
        }
        if (route.transport == null) {
            fail(messages, ClientErrors.NOT_CONNECTED);
        } else {
            transmit(messages, route);
        }
    }

    /** Sends the messages kept while handshaking, now that there is a session. */
    void releaseWaiting() {
        List<Message.Mutable> released;
        SessionLoop.Route route;
        synchronized (lock) {
            route = loop.route();
            if (route.transport == null || waitingForSession.isEmpty()) {
                return;
            }
            released = new ArrayList<>(waitingForSession);
            waitingForSession.clear();
        }
        transmit(released, route);
    }

    /** Fails the messages kept while handshaking: the client gave up its session. */
    void failWaiting() {
        List<Message.Mutable> failed;
        synchronized (lock) {
            failed = new ArrayList<>(waitingForSession);
            waitingForSession.clear();
        }
        fail(failed, ClientErrors.NOT_CONNECTED);
    }

    private void fail(List<Message.Mutable> messages, String error) {
        for (Message.Mutable message : messages) {
            inbox.failed(message, error, null);
        }
    }

    private void transmit(List<Message.Mutable> messages, SessionLoop.Route route) {
        List<Message.Mutable> kept = new ArrayList<>(messages.size());
        for (Message.Mutable message : messages) {
            message.setClientId(route.clientId);
            if (runExtensions(message)) {
                kept.add(message);
            } else {
                inbox.failed(message, ClientErrors.MESSAGE_DELETED, null);
            }
        }
        if (!kept.isEmpty()) {
            route.transport.send(kept, maxNetworkDelay);
        }
    }

    /**
     * Sends a message of the session's own: handshake, connect, disconnect. It never waits in a batch.
     *
     * @param message the message, its id set
     * @param transport the transport to send it on
     * @param clientId the session id, or null for a handshake
     * @param replyTimeout how long to wait for its reply
     */
    void sendMeta(Message.Mutable message, ClientTransport transport, String clientId, Duration replyTimeout) {
        message.setClientId(clientId);
        if (runExtensions(message)) {
            transport.send(List.of(message), replyTimeout);
        } else {
            inbox.failed(message, ClientErrors.MESSAGE_DELETED, null);
        }
    }

    private boolean runExtensions(Message.Mutable message) {
        boolean meta = message.isMeta();
        for (Extension extension : extensions) {
            boolean keep = Callbacks.test(extension, () -> meta ? extension.sendMeta(session, message)
                    : extension.send(session, message), true);
            if (!keep) {
                return false;
            }
        }
        return true;
    }

    void startBatch() {
        synchronized (lock) {
            batchDepth++;
        }
    }

    boolean endBatch() {
        List<Message.Mutable> toSend;
        synchronized (lock) {
            if (batchDepth == 0) {
                throw new IllegalStateException("endBatch() without startBatch()");
            }
            if (--batchDepth > 0) {
                return false;
            }
            toSend = batched;
            batched = new ArrayList<>();
        }
        if (!toSend.isEmpty()) {
            route(toSend);
        }
        return true;
    }
}
