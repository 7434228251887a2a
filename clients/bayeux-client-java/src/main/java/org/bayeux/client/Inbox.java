package org.bayeux.client;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.TimeoutException;

import org.bayeux.api.MapMessage;
import org.bayeux.api.Message;
import org.bayeux.api.client.ClientSession;
import org.bayeux.api.client.ClientSession.Extension;
import org.bayeux.api.client.ClientSessionChannel.MessageListener;
import org.bayeux.client.PendingReplies.Pending;
import org.bayeux.client.ext.RecoveryExtension;
import org.bayeux.client.transport.ClientTransport;
import org.bayeux.client.transport.TransportListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The way in: runs the incoming extensions on what the transports read, tells the session loop about its own
 * replies, completes the callbacks of replies, and dispatches deliveries to channels. Messages that got no reply
 * take the same path as a reply the client makes up (see {@link ClientErrors}).
 *
 * <p>One client's messages are handled one at a time, in the order they arrive: a long-polling client may have two
 * responses arriving at once (a held connect and a publish), and listeners must not see their messages interleaved.
 * A thread that brings messages while a listener is still busy waits for it: the memory a slow listener holds up is
 * one response or frame per request the client has in flight, never a growing queue.</p>
 */
final class Inbox implements TransportListener {
    private static final Logger LOG = LoggerFactory.getLogger(Inbox.class);

    private final ClientSession session;
    private final List<Extension> extensions;
    private final PendingReplies pending;
    private final ChannelTable channels;
    private final Object order = new Object();
    /** Messages the recovery extension let through, to route after the message being handled; guarded by order. */
    private final ArrayDeque<Message.Mutable> released = new ArrayDeque<>();
    /** Whether a thread is handling messages under {@link #order}; guarded by order. */
    private boolean handling;
    private SessionLoop loop;
    private RecoveryExtension recovery;

    /**
     * @param session the session incoming extensions are given
     */
    Inbox(ClientSession session, List<Extension> extensions, PendingReplies pending, ChannelTable channels) {
        this.session = session;
        this.extensions = extensions;
        this.pending = pending;
        this.channels = channels;
    }

    void bind(SessionLoop loop) {
        this.loop = loop;
    }

    /** @param recovery the recovery extension the client added, told of subscribes that failed locally; or null */
    void bind(RecoveryExtension recovery) {
        this.recovery = recovery;
    }

    @Override
    public void onMessages(ClientTransport transport, List<Message.Mutable> messages) {
        inOrder(() -> {
            for (Message.Mutable message : messages) {
                if (runExtensions(message, 0)) {
                    route(message, null);
                }
                routeReleased();
            }
        });
    }

    /**
     * Runs code in the order incoming messages are handled, then routes what the recovery extension let through
     * meanwhile (unless an outer call on this thread does).
     */
    void inOrder(Runnable code) {
        synchronized (order) {
            boolean outer = !handling;
            handling = true;
            try {
                code.run();
                if (outer) {
                    routeReleased();
                }
            } finally {
                if (outer) {
                    handling = false;
                }
            }
        }
    }

    /** Messages the recovery extension held back and now lets through, after the message being handled. */
    void release(List<Message.Mutable> messages) {
        inOrder(() -> released.addAll(messages));
    }

    private void routeReleased() {
        Message.Mutable next;
        while ((next = released.poll()) != null) {
            if (runExtensions(next, extensions.indexOf(recovery) + 1)) {
                route(next, null);
            }
        }
    }

    @Override
    public void onFailure(ClientTransport transport, List<Message.Mutable> unanswered, Throwable cause) {
        String error = cause instanceof TimeoutException ? ClientErrors.TIMEOUT
                : cause instanceof ClientClosedException ? ClientErrors.NOT_CONNECTED
                : ClientErrors.TRANSPORT_FAILURE;
        if (LOG.isDebugEnabled()) {
            LOG.debug("{} message(s) without reply on {}: {}", unanswered.size(), transport, cause.toString());
        }
        inOrder(() -> {
            for (Message.Mutable request : unanswered) {
                failed(request, error, cause);
            }
        });
    }

    /**
     * Answers a request that got no reply with a failed reply of the client's making.
     *
     * @param request the request
     * @param error one of {@link ClientErrors}
     * @param cause what happened, or null
     */
    void failed(Message request, String error, Throwable cause) {
        inOrder(() -> {
            Message.Mutable reply = LocalReplies.failure(request, error, cause);
            if (recovery != null && Message.META_SUBSCRIBE.equals(reply.getChannel())) {
                // The one extension told of local failures: a recovery waiting for this reply learns it was lost.
                Callbacks.test(recovery, () -> recovery.rcvMeta(session, reply), true);
            }
            route(reply, cause == null ? new IllegalStateException(error) : cause);
        });
    }

    /**
     * Calls back a request's callback with a failed reply, for a request no longer (or never) recorded as pending.
     *
     * @param entry the request and its callback
     * @param error one of {@link ClientErrors}
     * @param cause what happened, or null
     */
    void notifyFailure(Pending entry, String error, Throwable cause) {
        Message reply = MapMessage.readOnly(LocalReplies.failure(entry.request, error, cause));
        inOrder(() -> {
            notifyCallback(entry, reply);
            notifyListeners(reply);
        });
    }

    /** @param from the index of the first extension to run */
    private boolean runExtensions(Message.Mutable message, int from) {
        boolean meta = message.isMeta();
        int index = 0;
        for (Extension extension : extensions) {
            if (index++ < from) {
                continue;
            }
            boolean keep = Callbacks.test(extension, () -> meta ? extension.rcvMeta(session, message)
                    : extension.rcv(session, message), true);
            if (!keep) {
                return false;
            }
        }
        return true;
    }

    /**
     * @param message a message received, or a reply the client made up
     * @param cause for a made-up reply, why the request failed; null for a message received
     */
    private void route(Message.Mutable message, Throwable cause) {
        String channel = message.getChannel();
        if (channel == null) {
            LOG.debug("Ignoring a message without channel: {}", message);
            return;
        }
        Message view = MapMessage.readOnly(message);
        if (message.isMeta()) {
            routeMeta(channel, view, cause);
        } else if (message.isReply() && !message.isPublish()) {
            publishReply(view);
        } else {
            Pending call = pending.peek(message.getId());
            if (call != null && call.remoteCall && message.isPublish()) {
                complete(pending.take(message.getId()), view);
            } else if (message.isPublish()) {
                channels.dispatch(view);
            } else {
                LOG.debug("Ignoring a message that is neither a reply nor a delivery: {}", message);
            }
        }
    }

    private void routeMeta(String channel, Message reply, Throwable cause) {
        switch (channel) {
            case Message.META_HANDSHAKE:
                // Taken first: a refusal ends the session, which fails whatever is still pending.
                Pending handshake = pending.take(reply.getId());
                Message answer = reply;
                Throwable why = cause;
                if (reply.isSuccessful() && !loop.offersATransport(reply)) {
                    answer = noCommonTransport(reply);
                    why = new IllegalStateException(ClientErrors.NO_COMMON_TRANSPORT);
                }
                if (loop.onHandshakeReply(answer, why)) {
                    complete(handshake, answer);
                }
                break;
            case Message.META_CONNECT:
                if (loop.onConnectReply(reply, cause)) {
                    notifyListeners(reply);
                }
                break;
            case Message.META_DISCONNECT:
                Pending ours = pending.take(reply.getId());
                if (loop.onDisconnectReply(reply)) {
                    complete(ours, reply);
                }
                break;
            default:
                Pending request = pending.take(reply.getId());
                if (request != null && request.subscriber != null && !reply.isSuccessful()) {
                    Object subscription = request.request.get(Message.SUBSCRIPTION_FIELD);
                    ClientChannel subscribed = channels.existing(stringOf(subscription));
                    if (subscribed != null) {
                        subscribed.removeSubscriber(request.subscriber);
                    }
                }
                complete(request, reply);
                break;
        }
    }

    /** A successful handshake the client cannot use: it stops, and says why. */
    private static Message noCommonTransport(Message reply) {
        Message.Mutable refused = LocalReplies.failure(reply, ClientErrors.NO_COMMON_TRANSPORT, null);
        Object offered = reply.get(Message.SUPPORTED_CONNECTION_TYPES_FIELD);
        refused.put(ClientErrors.FAILURE_FIELD, "The server offers " + offered + ", none of the client's transports");
        refused.getAdvice(true).put(Message.RECONNECT_FIELD, Message.RECONNECT_NONE);
        return MapMessage.readOnly(refused);
    }

    private void publishReply(Message reply) {
        Pending request = pending.peek(reply.getId());
        // A remote call waits for the service's answer; its publish reply ends it only when the publish failed.
        if (request != null && (!request.remoteCall || !reply.isSuccessful())) {
            complete(pending.take(reply.getId()), reply);
        } else {
            notifyListeners(reply);
        }
    }

    private void complete(Pending request, Message reply) {
        if (request != null) {
            notifyCallback(request, reply);
        }
        notifyListeners(reply);
    }

    private void notifyCallback(Pending request, Message reply) {
        MessageListener callback = request.callback;
        if (callback != null) {
            ClientChannel channel = handle(reply.getChannel());
            Callbacks.run(callback, () -> callback.onMessage(channel, reply));
        }
    }

    private void notifyListeners(Message reply) {
        ClientChannel channel = channels.existing(reply.getChannel());
        if (channel != null) {
            channel.notifyListeners(reply);
        }
    }

    private ClientChannel handle(String name) {
        try {
            return channels.get(name);
        } catch (IllegalArgumentException invalid) {
            return null;
        }
    }

    private static String stringOf(Object value) {
        return value instanceof String ? (String) value : null;
    }

    /** Why messages failed when the client itself closed their transport: it disconnected. */
    static final class ClientClosedException extends java.io.IOException {
        private static final long serialVersionUID = 1L;

        ClientClosedException(String message) {
            super(message);
        }
    }
}
