package org.bayeux.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.bayeux.api.ChannelId;
import org.bayeux.api.Message;
import org.bayeux.api.server.ServerSession.State;
import org.bayeux.server.transport.Carrier;

/**
 * The handlers of the five meta channels and the advice rules of the protocol.
 */
final class MetaHandlers {
    private final SessionParts sessionParts;
    private final SessionRegistry sessions;
    private final ChannelRegistry channels;
    private final ChannelCreation creation;
    private final Security security;
    private final Limits limits;
    private final EngineEvents events;
    private final TransportNames transports;
    private final Draining draining;

    MetaHandlers(SessionParts sessionParts, SessionRegistry sessions, ChannelRegistry channels,
            ChannelCreation creation, Security security, Limits limits, EngineEvents events,
            TransportNames transports, Draining draining) {
        this.draining = draining;
        this.sessionParts = sessionParts;
        this.sessions = sessions;
        this.channels = channels;
        this.creation = creation;
        this.security = security;
        this.limits = limits;
        this.events = events;
        this.transports = transports;
    }

    // ---- handshake -------------------------------------------------------------------------------------------

    CompletionStage<Outcome> handshake(ServerMessageImpl request, Carrier carrier) {
        ServerMessageImpl reply = Outcome.replyTo(request);
        Object version = request.get(Message.VERSION_FIELD);
        Object minimum = request.get(Message.MIN_VERSION_FIELD);
        if (version != null && !String.valueOf(version).startsWith("1")) {
            return failedHandshake(reply, 300, String.valueOf(version), "version_mismatch");
        }
        if (minimum != null && isAboveOne(String.valueOf(minimum))) {
            return failedHandshake(reply, 300, String.valueOf(minimum), "version_mismatch");
        }
        Object offered = request.get(Message.SUPPORTED_CONNECTION_TYPES_FIELD);
        if (offered instanceof List && !(carrier instanceof LocalSessionImpl.LocalCarrier)) {
            List<?> types = (List<?>) offered;
            if (types.stream().noneMatch(transports.advertised()::contains)) {
                return failedHandshake(reply, 301, joined(types), "connection_types_mismatch");
            }
        }
        LocalSessionImpl local = carrier instanceof LocalSessionImpl.LocalCarrier
                ? ((LocalSessionImpl.LocalCarrier) carrier).session() : null;
        if (local == null && draining.isOn()) {
            return CompletableFuture.completedFuture(Outcome.reply(null, draining.refuseHandshake(reply)));
        }
        ServerSessionImpl session = new ServerSessionImpl(sessionParts, sessions.newId(local == null ? null
                : local.idHint()), local);
        return security.canHandshake(session, request).thenApply(allowed -> {
            if (!allowed) {
                Outcome.fail(reply, 403, "", "handshake_denied");
                reply.put(Message.ADVICE_FIELD, advice(Message.RECONNECT_NONE));
                return Outcome.reply(null, reply);
            }
            sessions.add(session);
            if (draining.isOn()) {
                // It passed the check above before the drain began, and missed the drain's round of the sessions.
                session.handOff();
            }
            if (local != null) {
                session.connect(reply, 0, false, carrier);
            } else {
                session.settings().pinTo(carrier);
                carrier.attach(session);
            }
            reply.setSuccessful(true);
            reply.setClientId(session.getId());
            reply.put(Message.VERSION_FIELD, "1.0");
            reply.put(Message.MIN_VERSION_FIELD, "1.0");
            reply.put(Message.SUPPORTED_CONNECTION_TYPES_FIELD, new ArrayList<>(transports.advertised()));
            reply.put(Message.ADVICE_FIELD, fullAdvice(session, Message.RECONNECT_RETRY));
            events.sessionAdded(session, request);
            return Outcome.reply(session, reply, writesThrough());
        });
    }

    /** @return true if a dotted version such as {@code 1.1} or {@code 2} is above {@code 1.0} */
    static boolean isAboveOne(String version) {
        String[] parts = version.trim().split("\\.");
        for (int i = 0; i < parts.length; i++) {
            long number;
            try {
                number = Long.parseLong(parts[i]);
            } catch (NumberFormatException notNumeric) {
                return false;
            }
            long limit = i == 0 ? 1 : 0;
            if (number != limit) {
                return number > limit;
            }
        }
        return false;
    }

    private static CompletionStage<Outcome> failedHandshake(ServerMessageImpl reply, int code, String args, String token) {
        Outcome.fail(reply, code, args, token);
        reply.put(Message.ADVICE_FIELD, advice(Message.RECONNECT_NONE));
        return CompletableFuture.completedFuture(Outcome.reply(null, reply));
    }

    private static String joined(List<?> values) {
        StringBuilder text = new StringBuilder();
        for (Object value : values) {
            text.append(text.length() == 0 ? "" : ",").append(value);
        }
        return text.toString();
    }

    // ---- connect ---------------------------------------------------------------------------------------------

    CompletionStage<Outcome> connect(ServerSessionImpl session, ServerMessageImpl request, Carrier carrier, boolean alone) {
        shareKnownStrings(request, session, carrier);
        ServerMessageImpl reply = Outcome.replyTo(request);
        Object type = request.get(Message.CONNECTION_TYPE_FIELD);
        if (type != null && !transports.accepts(String.valueOf(type))) {
            Outcome.fail(reply, 301, String.valueOf(type), "connection_type_unsupported");
            reply.put(Message.ADVICE_FIELD, advice(Message.RECONNECT_HANDSHAKE));
            return CompletableFuture.completedFuture(Outcome.reply(session, reply));
        }
        reply.setSuccessful(true);
        ConnectOutcome outcome = session.connect(reply, requestedTimeout(request), alone, carrier);
        if (outcome == null) {
            return CompletableFuture.completedFuture(Outcome.reply(null, unknownSession(request)));
        }
        if (outcome.isHeld()) {
            return CompletableFuture.completedFuture(Outcome.HELD);
        }
        if (outcome.journal == null) {
            return CompletableFuture.completedFuture(answered(session, reply, outcome));
        }
        CompletableFuture<Outcome> journaled = new CompletableFuture<>();
        session.afterJournal(outcome.journal, () -> journaled.complete(answered(session, reply, outcome)), () -> {
            // Moved to another node, or ended: nothing leaves; a lone connect's request is answered as superseded.
            if (alone) {
                carrier.holdPolicy().superseded();
            }
            journaled.complete(alone ? Outcome.HELD : Outcome.nothing());
        });
        return journaled;
    }

    private Outcome answered(ServerSessionImpl session, ServerMessageImpl reply, ConnectOutcome outcome) {
        if (outcome.last) {
            sessions.remove(session, null, session.isHandedOver() ? State.MOVED : State.DISCONNECTED, false);
        }
        return Outcome.reply(session, reply, outcome.messages);
    }

    /** @return whether handshake and subscription replies wait for their session to be written through the store */
    private boolean writesThrough() {
        return sessionParts.store().adopts();
    }

    /**
     * A held connect keeps its request (its reply's associated message) until it completes, which for an idle client
     * is most of the time: the request's channel, client id and connection type become the equal strings the server
     * holds anyway, so that each idle session does not also keep the parsed copies (some 180 bytes).
     */
    private static void shareKnownStrings(ServerMessageImpl request, ServerSessionImpl session, Carrier carrier) {
        if (request.isFrozen()) {
            return;
        }
        if (Message.META_CONNECT.equals(request.get(Message.CHANNEL_FIELD))) {
            request.put(Message.CHANNEL_FIELD, Message.META_CONNECT);
        }
        if (session.getId().equals(request.get(Message.CLIENT_ID_FIELD))) {
            request.put(Message.CLIENT_ID_FIELD, session.getId());
        }
        String transport = carrier.capabilities().transportName();
        if (transport != null && transport.equals(request.get(Message.CONNECTION_TYPE_FIELD))) {
            request.put(Message.CONNECTION_TYPE_FIELD, transport);
        }
    }

    private static long requestedTimeout(ServerMessageImpl request) {
        Map<String, Object> advice = request.getAdvice();
        Object timeout = advice == null ? null : advice.get(Message.TIMEOUT_FIELD);
        if (timeout instanceof Number) {
            return Math.max(0, ((Number) timeout).longValue());
        }
        return -1;
    }

    // ---- subscribe and unsubscribe ---------------------------------------------------------------------------

    CompletionStage<Outcome> subscribe(ServerSessionImpl session, ServerMessageImpl request) {
        ServerMessageImpl reply = Outcome.replyTo(request);
        List<String> channels = subscriptionsOf(request, reply);
        if (channels == null) {
            return CompletableFuture.completedFuture(Outcome.reply(session, reply));
        }
        Limit tooMany = limits.checkSubscriptionCount(session, channels.size());
        if (tooMany != null) {
            Outcome.fail(reply, tooMany);
            return CompletableFuture.completedFuture(Outcome.reply(session, reply));
        }
        CompletionStage<Boolean> chain = CompletableFuture.completedFuture(Boolean.TRUE);
        for (String name : channels) {
            chain = chain.thenCompose(goOn -> goOn ? subscribeOne(session, request, reply, name)
                    : CompletableFuture.completedFuture(Boolean.FALSE));
        }
        return chain.thenApply(allDone -> {
            if (allDone) {
                reply.setSuccessful(true);
            }
            return Outcome.reply(session, reply, writesThrough());
        });
    }

    private CompletionStage<Boolean> subscribeOne(ServerSessionImpl session, ServerMessageImpl request,
            ServerMessageImpl reply, String name) {
        Limit nameLimit = limits.checkChannelName(name);
        if (nameLimit != null) {
            Outcome.fail(reply, nameLimit);
            return CompletableFuture.completedFuture(Boolean.FALSE);
        }
        if (!ChannelId.isValid(name)) {
            Outcome.fail(reply, 403, "", "subscription_invalid");
            return CompletableFuture.completedFuture(Boolean.FALSE);
        }
        ChannelId id = ChannelId.of(name);
        if (id.isMeta()) {
            Outcome.fail(reply, 403, name, "subscribe_denied");
            return CompletableFuture.completedFuture(Boolean.FALSE);
        }
        if (id.isService() && !session.isLocalSession()) {
            // A remote session's subscription to a service channel succeeds and is not recorded.
            return CompletableFuture.completedFuture(Boolean.TRUE);
        }
        if (!isSubscribed(session, name)) {
            Limit full = limits.checkNewSubscription(session);
            if (full != null) {
                Outcome.fail(reply, full);
                return CompletableFuture.completedFuture(Boolean.FALSE);
            }
        }
        return creation.channelFor(session, id, request, reply).thenCompose(channel -> {
            if (channel == null) {
                failUnlessFailed(reply, name, "subscribe_denied");
                return CompletableFuture.completedFuture(Boolean.FALSE);
            }
            return security.canSubscribe(session, channel, request).thenApply(denial -> {
                if (denial != null) {
                    Outcome.fail(reply, 403, denial, "subscribe_denied");
                    return Boolean.FALSE;
                }
                channel.subscribe(session, request);
                if (channel.isRemoved()) {
                    // The sweep removed the channel meanwhile: subscribe again to the channel that replaces it.
                    channel.unsubscribe(session, null);
                    return null;
                }
                return Boolean.TRUE;
            });
        }).thenCompose(done -> done != null ? CompletableFuture.completedFuture(done)
                : subscribeOne(session, request, reply, name));
    }

    private boolean isSubscribed(ServerSessionImpl session, String name) {
        ServerChannelImpl existing = channels.get(name);
        return existing != null && existing.subscribers().contains(session);
    }

    CompletionStage<Outcome> unsubscribe(ServerSessionImpl session, ServerMessageImpl request) {
        ServerMessageImpl reply = Outcome.replyTo(request);
        List<String> channels = subscriptionsOf(request, reply);
        if (channels == null) {
            return CompletableFuture.completedFuture(Outcome.reply(session, reply));
        }
        for (String name : channels) {
            Limit nameLimit = limits.checkChannelName(name);
            if (nameLimit != null) {
                Outcome.fail(reply, nameLimit);
                return CompletableFuture.completedFuture(Outcome.reply(session, reply));
            }
            if (!ChannelId.isValid(name)) {
                Outcome.fail(reply, 403, "", "subscription_invalid");
                return CompletableFuture.completedFuture(Outcome.reply(session, reply));
            }
            if (ChannelId.of(name).isMeta()) {
                Outcome.fail(reply, 403, name, "subscribe_denied");
                return CompletableFuture.completedFuture(Outcome.reply(session, reply));
            }
            ServerChannelImpl channel = this.channels.get(name);
            if (channel != null) {
                channel.unsubscribe(session, request);
            }
        }
        reply.setSuccessful(true);
        return CompletableFuture.completedFuture(Outcome.reply(session, reply, writesThrough()));
    }

    /**
     * Reads the {@code subscription} field and echoes it in the reply.
     *
     * @return the channel names, or null after marking the reply failed
     */
    private static List<String> subscriptionsOf(ServerMessageImpl request, ServerMessageImpl reply) {
        Object field = request.get(Message.SUBSCRIPTION_FIELD);
        if (field == null) {
            Outcome.fail(reply, 403, "", "subscription_missing");
            return null;
        }
        reply.put(Message.SUBSCRIPTION_FIELD, field);
        List<String> names = new ArrayList<>();
        if (field instanceof String) {
            names.add((String) field);
        } else if (field instanceof List && !((List<?>) field).isEmpty()) {
            for (Object entry : (List<?>) field) {
                if (!(entry instanceof String)) {
                    Outcome.fail(reply, 403, "", "subscription_invalid");
                    return null;
                }
                names.add((String) entry);
            }
        } else {
            Outcome.fail(reply, 403, "", "subscription_invalid");
            return null;
        }
        return names;
    }

    // ---- disconnect ------------------------------------------------------------------------------------------

    CompletionStage<Outcome> disconnect(ServerSessionImpl session, ServerMessageImpl request) {
        ServerMessageImpl reply = Outcome.replyTo(request);
        reply.setSuccessful(true);
        sessions.remove(session, request, State.DISCONNECTED, false);
        return CompletableFuture.completedFuture(Outcome.reply(session, reply));
    }

    /**
     * @param request a message, not a handshake, naming a session this node does not have (or no longer)
     * @return the refusal to send while the engine drains with a store that adopts sessions
     *         ({@link Draining#refuseWhileHandingOver}), or null to answer as ever (adopt, or {@code 402})
     */
    ServerMessageImpl refuseWhileHandingOver(ServerMessageImpl request) {
        return draining.isOn() && writesThrough() ? draining.refuseWhileHandingOver(request) : null;
    }

    // ---- errors and advice -----------------------------------------------------------------------------------

    /** Marks a reply refused, unless a limit already marked it with its own error. */
    static ServerMessageImpl failUnlessFailed(ServerMessageImpl reply, String args, String token) {
        return reply.containsKey(Message.ERROR_FIELD) ? reply : Outcome.fail(reply, 403, args, token);
    }

    /**
     * The reply to a message whose session does not exist: never created, expired, or ended by its own
     * {@code /meta/disconnect}. Message ids are opaque strings chosen by clients, so a connect read after its
     * session's disconnect is refused like any other, whatever its id (see docs/interoperability.md for the CometD
     * JS client's handling of it).
     *
     * @param request a message whose clientId is unknown or expired
     * @return {@code 402::session_unknown}, with handshake advice on handshake and connect replies only
     */
    static ServerMessageImpl unknownSession(ServerMessageImpl request) {
        ServerMessageImpl reply = Outcome.fail(Outcome.replyTo(request), 402, "", "session_unknown");
        String channel = request.getChannel();
        if (Message.META_CONNECT.equals(channel) || Message.META_HANDSHAKE.equals(channel)) {
            reply.put(Message.ADVICE_FIELD, advice(Message.RECONNECT_HANDSHAKE));
        }
        return reply;
    }

    private static Map<String, Object> advice(String reconnect) {
        Map<String, Object> advice = new java.util.HashMap<>(4);
        advice.put(Message.RECONNECT_FIELD, reconnect);
        advice.put(Message.INTERVAL_FIELD, 0L);
        return advice;
    }

    /** The whole advice object: CometD clients replace their advice with it, so a partial one would reset values. */
    static Map<String, Object> fullAdvice(ServerSessionImpl session, String reconnect) {
        Map<String, Object> advice = new java.util.HashMap<>(8);
        advice.put(Message.RECONNECT_FIELD, reconnect);
        advice.put(Message.INTERVAL_FIELD, session.getInterval().toMillis());
        advice.put(Message.TIMEOUT_FIELD, session.getTimeout().toMillis());
        advice.put(Message.MAX_INTERVAL_FIELD, session.getMaxInterval().toMillis());
        return advice;
    }
}
