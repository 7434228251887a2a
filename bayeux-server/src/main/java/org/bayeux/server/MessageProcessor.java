package org.bayeux.server;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

import org.bayeux.api.ChannelId;
import org.bayeux.api.Message;
import org.bayeux.api.json.JsonCodec;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.server.cluster.ClusterRefusedException;
import org.bayeux.server.cluster.ClusterUnavailableException;
import org.bayeux.server.internal.RateLimitedLog;
import org.bayeux.server.transport.Carrier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The incoming path: for each message of a batch, in order, validate, run incoming extensions, then the meta
 * handler, or publish; then run outgoing extensions on the reply; finally answer the batch on its carrier.
 */
final class MessageProcessor {
    private static final Logger LOG = LoggerFactory.getLogger(MessageProcessor.class);
    private static final RateLimitedLog QUIET = new RateLimitedLog(LOG);

    private final MetaHandlers meta;
    private final ChannelCreation creation;
    private final SessionRegistry sessions;
    private final ExtensionChain extensions;
    private final Security security;
    private final Publisher publisher;
    private final Limits limits;
    private final JsonCodec codec;

    MessageProcessor(MetaHandlers meta, ChannelCreation creation, SessionRegistry sessions,
            ExtensionChain extensions, Security security, Publisher publisher, Limits limits, JsonCodec codec,
            EngineStatistics statistics, SessionAdoptions adoptions) {
        this.statistics = statistics;
        this.adoptions = adoptions;
        this.meta = meta;
        this.creation = creation;
        this.sessions = sessions;
        this.extensions = extensions;
        this.security = security;
        this.publisher = publisher;
        this.limits = limits;
        this.codec = codec;
    }

    private final EngineStatistics statistics;
    private final SessionAdoptions adoptions;

    MetaHandlers meta() {
        return meta;
    }

    CompletionStage<Void> handle(List<ServerMessageImpl> batch, Carrier carrier) {
        statistics.received(batch.size());
        if (batch instanceof Limits.OversizedBatch) {
            // Nothing of the batch is processed: its first message is answered for all of them.
            ServerMessageImpl reply = Outcome.fail(Outcome.replyTo(batch.get(0)), Limit.MESSAGES_PER_BATCH);
            reply.freeze();
            carrier.send(sending(new Deliveries(List.of(reply), codec)));
            return CompletableFuture.completedFuture(null);
        }
        List<Outcome> outcomes = new ArrayList<>(batch.size());
        boolean alone = batch.size() == 1;
        CompletionStage<Void> chain = CompletableFuture.completedFuture(null);
        for (ServerMessageImpl message : batch) {
            chain = chain.thenCompose(ignored -> processSafely(message, carrier, alone)).thenAccept(outcomes::add);
        }
        return chain.thenAccept(ignored -> respond(outcomes, carrier));
    }

    private CompletionStage<Outcome> processSafely(ServerMessageImpl message, Carrier carrier, boolean alone) {
        CompletionStage<Outcome> outcome;
        try {
            outcome = process(message, carrier, alone);
        } catch (RuntimeException failure) {
            outcome = CompletableFuture.failedFuture(failure);
        }
        return outcome.exceptionally(failure -> {
            // The message and its clientId reach the log at DEBUG only.
            QUIET.warn("process:" + failure.getClass().getName(), "Failed to process a message on {}",
                    channelOf(message), failure);
            LOG.debug("Failed to process {}", message);
            return Outcome.reply(null, Outcome.fail(Outcome.replyTo(message), 500, "", "server_error"));
        });
    }

    /** @return the message's channel for a log line: short names only, as a name over the limit may be huge */
    private static String channelOf(ServerMessageImpl message) {
        Object channel = message.get(Message.CHANNEL_FIELD);
        if (!(channel instanceof String)) {
            return "no channel";
        }
        String name = (String) channel;
        return name.length() <= 128 ? name : name.substring(0, 128) + "...";
    }

    private CompletionStage<Outcome> process(ServerMessageImpl message, Carrier carrier, boolean alone) {
        String channel = message.getChannel();
        if (channel == null) {
            return done(Outcome.reply(null, Outcome.fail(Outcome.replyTo(message), 400, "", "channel_missing")));
        }
        // Measured before anything parses the name: a long one costs no more than its length.
        Limit nameLimit = limits.checkChannelName(channel);
        if (nameLimit != null) {
            return done(Outcome.reply(null, Outcome.fail(Outcome.replyTo(message), nameLimit)));
        }
        if (!ChannelId.isValid(channel)) {
            return done(Outcome.reply(null, Outcome.fail(Outcome.replyTo(message), 405, channel, "channel_invalid")));
        }
        ServerMessageImpl notServing = adoptions.refuseWhileNotServing(message, carrier);
        if (notServing != null) {
            return done(Outcome.reply(null, notServing));
        }
        boolean handshake = Message.META_HANDSHAKE.equals(channel);
        if (handshake) {
            return proceed(null, true, message, carrier, alone);
        }
        String clientId = message.getClientId();
        ServerSessionImpl session = sessions.sessionFor(clientId, carrier);
        if (session != null && adoptions.droppedAsServedElsewhere(session, message)) {
            session = null;
        }
        if (session == null || session.getState().isEnded()) {
            // Before any adoption: a draining node adopts nothing.
            ServerMessageImpl refused = meta.refuseWhileHandingOver(message);
            if (refused != null) {
                return done(Outcome.reply(null, refused));
            }
        }
        if (session == null && adoptions.mayAdopt(clientId, carrier)) {
            // Before the extensions: they (the ack extension) need the session.
            return adoptions.adopt(clientId, message, carrier).thenCompose(
                    ignored -> proceed(sessions.sessionFor(clientId, carrier), false, message, carrier, alone));
        }
        return proceed(session, false, message, carrier, alone);
    }

    private CompletionStage<Outcome> proceed(ServerSessionImpl session, boolean handshake, ServerMessageImpl message,
            Carrier carrier, boolean alone) {
        return extensions.incoming(session, message).thenCompose(keep -> {
            if (!keep) {
                return done(Outcome.reply(session, Outcome.fail(Outcome.replyTo(message), 404, "", "message_deleted")));
            }
            if (handshake) {
                return meta.handshake(message, carrier);
            }
            if (session == null || session.getState().isEnded()) {
                return done(Outcome.reply(null, MetaHandlers.unknownSession(message)));
            }
            return dispatch(session, message, carrier, alone);
        }).thenCompose(this::replyOutgoing);
    }

    private CompletionStage<Outcome> dispatch(ServerSessionImpl session, ServerMessageImpl message, Carrier carrier,
            boolean alone) {
        String channel = message.getChannel();
        if (!Message.META_CONNECT.equals(channel)) {
            session.touch();
        }
        switch (channel) {
            case Message.META_CONNECT:
                return meta.connect(session, message, carrier, alone);
            case Message.META_SUBSCRIBE:
                return meta.subscribe(session, message);
            case Message.META_UNSUBSCRIBE:
                return meta.unsubscribe(session, message);
            case Message.META_DISCONNECT:
                return meta.disconnect(session, message);
            default:
                if (channel.startsWith(ChannelId.META_PREFIX)) {
                    return done(Outcome.reply(session, Outcome.fail(Outcome.replyTo(message), 403, channel, "publish_denied")));
                }
                return publish(session, message);
        }
    }

    private CompletionStage<Outcome> publish(ServerSessionImpl session, ServerMessageImpl message) {
        ServerMessageImpl reply = Outcome.replyTo(message);
        ChannelId id = message.getChannelId();
        if (id.isWildcard()) {
            return done(Outcome.reply(session, Outcome.fail(reply, 405, id.name(), "channel_invalid")));
        }
        return creation.channelFor(session, id, message, reply).thenCompose(channel -> {
            if (channel == null) {
                return done(Outcome.reply(session, MetaHandlers.failUnlessFailed(reply, id.name(), "publish_denied")));
            }
            return security.canPublish(session, channel, message).thenCompose(denial -> {
                if (denial != null) {
                    return done(Outcome.reply(session, Outcome.fail(reply, 403, denial, "publish_denied")));
                }
                return publisher.publish(session, channel, message).handle((published, failure) -> {
                    if (failure != null) {
                        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                                ? failure.getCause() : failure;
                        if (cause instanceof ClusterRefusedException refused) {
                            // The cluster refused this message for a reason of its own: its error, no stack trace.
                            Outcome.fail(reply, refused.code(), "", refused.reason());
                            return Outcome.reply(session, reply);
                        }
                        if (!(cause instanceof ClusterUnavailableException)) {
                            throw failure instanceof CompletionException ? (CompletionException) failure
                                    : new CompletionException(failure);
                        }
                        // The cluster is out of reach for now: a clear error a client may retry on, no stack trace.
                        Outcome.fail(reply, 503, "", ((ClusterUnavailableException) cause).reason());
                    } else if (published) {
                        reply.setSuccessful(true);
                    } else {
                        Outcome.fail(reply, 404, "", "message_deleted");
                    }
                    return Outcome.reply(session, reply);
                });
            });
        });
    }

    /**
     * Runs a subscribe the engine made for a session it adopts through the ordinary path: incoming extensions, the
     * subscribe handler with its authorizers, outgoing extensions on the reply, which is not sent.
     *
     * @param session the adopted session, not yet registered
     * @param subscribe the subscribe
     * @return its reply, or null if an extension dropped the subscribe or the reply
     */
    CompletionStage<ServerMessageImpl> resumeSubscribe(ServerSessionImpl session, ServerMessageImpl subscribe) {
        return extensions.incoming(session, subscribe).thenCompose(keep -> {
            if (!keep) {
                return CompletableFuture.<ServerMessageImpl>completedFuture(null);
            }
            return meta.subscribe(session, subscribe).thenCompose(this::replyOutgoing)
                    .thenApply(outcome -> outcome.reply);
        });
    }

    private CompletionStage<Outcome> replyOutgoing(Outcome outcome) {
        if (outcome.held || outcome.reply == null) {
            return done(outcome);
        }
        ServerSessionImpl receiver = outcome.session != null ? outcome.session
                : sessions.get(outcome.reply.getClientId());
        CompletionStage<Outcome> replied = extensions.reply(receiver, outcome.reply)
                .thenApply(keep -> keep ? outcome : outcome.withoutReply());
        // After the outgoing extensions, which may change the session (the ack extension installs itself).
        return outcome.writeThrough ? replied.thenCompose(MessageProcessor::writtenThrough) : replied;
    }

    private static CompletionStage<Outcome> writtenThrough(Outcome outcome) {
        ServerSessionImpl session = outcome.session;
        if (session == null || session.getState().isEnded()) {
            return done(outcome);
        }
        return session.writeThrough().thenApply(written -> {
            if (!written && outcome.reply != null && outcome.reply.isSuccessful()) {
                // Moved to another node while this request was on its way: the subscription (or unsubscription) is
                // not in the state the new owner has, so the client must not be told it succeeded. A temporary
                // failure it may try again, which reaches the session where it lives now.
                Outcome.fail(outcome.reply, 503, "", "session_moved");
            }
            return outcome;
        });
    }

    private void respond(List<Outcome> outcomes, Carrier carrier) {
        if (outcomes.size() == 1 && outcomes.get(0).held) {
            return;
        }
        List<ServerMessage> response = new ArrayList<>(outcomes.size() + 4);
        ServerSessionImpl session = null;
        for (Outcome outcome : outcomes) {
            response.addAll(outcome.before);
            if (outcome.session != null && !outcome.session.getState().isEnded()) {
                session = outcome.session;
            }
        }
        // A connect in the batch already took what fits in one response; anything left waits for the next one.
        if (session != null && response.isEmpty()) {
            response.addAll(session.takeForPiggyback(carrier));
        }
        for (Outcome outcome : outcomes) {
            if (outcome.reply != null) {
                outcome.reply.freeze();
                response.add(outcome.reply);
            }
        }
        carrier.send(sending(new Deliveries(response, codec)));
    }

    private Deliveries sending(Deliveries out) {
        statistics.sending(out);
        return out;
    }

    private static CompletionStage<Outcome> done(Outcome outcome) {
        return CompletableFuture.completedFuture(outcome);
    }
}
