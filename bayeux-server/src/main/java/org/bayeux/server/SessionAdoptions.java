package org.bayeux.server;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;

import org.bayeux.api.ChannelId;
import org.bayeux.api.Message;
import org.bayeux.api.server.ServerExtension;
import org.bayeux.server.cluster.AcknowledgedBatch;
import org.bayeux.server.cluster.AdoptedAcknowledgements;
import org.bayeux.server.cluster.ChannelPosition;
import org.bayeux.server.cluster.ResumeFrom;
import org.bayeux.server.cluster.SessionState;
import org.bayeux.server.cluster.SessionStore;
import org.bayeux.server.config.BayeuxServerConfig;
import org.bayeux.server.config.BayeuxServerConfig.FailoverDelivery;
import org.bayeux.server.internal.RateLimitedLog;
import org.bayeux.server.transport.Carrier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Adoption: a message (other than a handshake) names a {@code clientId} no live session of this node has, and the
 * session store {@linkplain SessionStore#adopts() adopts}: the session may live on in the store, its node dead or
 * draining. This part looks it up, checks that the carrier may act as it (the same rule as for a live session, its
 * cookie known by its digest), takes it over ({@link SessionStore#adopt}), rebuilds it, asks the application's
 * adoption listeners, and resumes each subscription strictly after what its client is known to have, through the
 * ordinary subscribe path (so authorizers run again, and the cluster's recovery replays the gap); only then is the
 * session registered, and the message that named it processed as if it had always lived here. Anything short of an
 * exact continuation leaves no session: the message is answered {@code 402::session_unknown} as today, and the client
 * handshakes again.
 *
 * <p>Bounded, because every unknown {@code clientId}, a made-up one too, costs a store read: one look-up per
 * {@code clientId} at a time (concurrent messages naming it share its result), at most {@code maxAdoptionsInFlight}
 * look-ups at once, at most {@code maxAdoptionsQueued} waiting for one of those to end; beyond, {@code 402} at once
 * and a counter ({@link EngineStatistics#adoptionsShed()}). So a flood of made-up ids costs one store read each and
 * memory bounded by those two numbers.</p>
 */
final class SessionAdoptions {
    private static final Logger LOG = LoggerFactory.getLogger(SessionAdoptions.class);
    private static final RateLimitedLog QUIET = new RateLimitedLog(LOG);
    /** The longest id looked up: the engine's ids are 26 characters; anything much longer was never one. */
    static final int MAX_ID_LENGTH = 128;
    /** The {@code ext} field the cluster's recovery reads and answers: {@link ResumeFrom} in, {@code recovered} out. */
    static final String RECOVERY_FIELD = "recovery";

    /** Runs a subscribe the engine made for a session through the ordinary path, and gives its reply, not sent. */
    @FunctionalInterface
    interface SubscribePath {
        /**
         * @param session the adopted session
         * @param subscribe the subscribe
         * @return its reply after the outgoing extensions, or null if an extension dropped the subscribe or its reply
         */
        CompletionStage<ServerMessageImpl> subscribe(ServerSessionImpl session, ServerMessageImpl subscribe);
    }

    /** What one look-up ended with: a registered session, or none; and the carrier whose binding refused it, if so. */
    private record Result(ServerSessionImpl session, Carrier refusedCarrier) {
        static final Result NONE = new Result(null, null);
    }

    /** How soon a client refused while the node is not serving tries again: about one lease renewal period. */
    static final long NOT_SERVING_RETRY_MILLIS = 1000;
    private final SessionParts parts;
    private final SessionRegistry sessions;
    private final Supplier<SessionStore> store;
    private final EngineEvents events;
    private final ExtensionChain extensions;
    private final EngineStatistics statistics;
    private final SubscribePath subscribePath;
    private final int maxInFlight;
    private final int maxQueued;
    private final FailoverDelivery delivery;
    private final ConcurrentHashMap<String, CompletableFuture<Result>> flights = new ConcurrentHashMap<>();
    /** Guarded by this. */
    private int inFlight;
    /** Guarded by this: look-ups waiting for one in flight to end, at most {@link #maxQueued}. */
    private final ArrayDeque<Runnable> queued = new ArrayDeque<>();

    /**
     * @param config the engine's configuration: the bounds, and what a session without {@code ack} resumes from
     * @param parts what sessions work with, to rebuild one
     * @param sessions where an adopted session is registered, and how carriers are checked
     * @param store the session store installed now
     * @param events the adoption and session listeners
     * @param extensions the server's extensions: the {@code ack} one gives adopted sessions their state
     * @param statistics where adoptions are counted
     * @param subscribePath runs the subscribes that resume the subscriptions
     */
    SessionAdoptions(BayeuxServerConfig config, SessionParts parts, SessionRegistry sessions,
            Supplier<SessionStore> store, EngineEvents events, ExtensionChain extensions, EngineStatistics statistics,
            SubscribePath subscribePath) {
        this.parts = parts;
        this.sessions = sessions;
        this.store = store;
        this.events = events;
        this.extensions = extensions;
        this.statistics = statistics;
        this.subscribePath = subscribePath;
        this.maxInFlight = config.maxAdoptionsInFlight();
        this.maxQueued = config.maxAdoptionsQueued();
        this.delivery = config.failoverDelivery();
    }

    /**
     * @param clientId the {@code clientId} of a message that is not a handshake
     * @param carrier what it arrived on
     * @return true if it is worth a look-up: the store adopts, no live session of this node has the id, the id could
     *         be one of the engine's, and the message came from a remote client
     */
    boolean mayAdopt(String clientId, Carrier carrier) {
        return clientId != null && store.get().adopts() && !(carrier instanceof LocalSessionImpl.LocalCarrier)
                && isPlausibleId(clientId) && sessions.get(clientId) == null;
    }

    /**
     * While the store cannot prove this node still owns its sessions (its lease lapsed, and not every session was
     * checked since), nothing of a remote client is processed: a publish of a session another node adopted meanwhile
     * would reach its subscribers out of order, a reply would confirm state the new owner lacks. The client is told to
     * try again shortly; by then the balancer (whose readiness check fails meanwhile) or this node has moved on.
     *
     * @param message a message from a remote client
     * @param carrier what it arrived on
     * @return null if the message may be processed, else its refusal: {@code 503::node_not_serving}, advice to retry
     */
    ServerMessageImpl refuseWhileNotServing(ServerMessageImpl message, Carrier carrier) {
        SessionStore current = store.get();
        if (!current.adopts() || carrier instanceof LocalSessionImpl.LocalCarrier || current.serving()) {
            return null;
        }
        QUIET.warn("not-serving", "Refused a message: this node cannot prove it still owns its sessions (its lease "
                + "in the session store lapsed); clients are told to retry");
        ServerMessageImpl reply = Outcome.fail(Outcome.replyTo(message), 503, "", "node_not_serving");
        String channel = message.getChannel();
        if (Message.META_CONNECT.equals(channel) || Message.META_HANDSHAKE.equals(channel)) {
            Map<String, Object> advice = new HashMap<>(4);
            advice.put(Message.RECONNECT_FIELD, Message.RECONNECT_RETRY);
            advice.put(Message.INTERVAL_FIELD, NOT_SERVING_RETRY_MILLIS);
            reply.put(Message.ADVICE_FIELD, advice);
        }
        return reply;
    }

    private static boolean isPlausibleId(String id) {
        int length = id.length();
        if (length == 0 || length > MAX_ID_LENGTH) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            char c = id.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z')) {
                return false;
            }
        }
        return true;
    }

    /**
     * A connect that acknowledges a batch this node never issued proves that another node served the session since:
     * this copy is stale. It is dropped as {@link org.bayeux.api.server.ServerSession.State#MOVED}, and the message
     * then takes the adoption path like any unknown {@code clientId}.
     *
     * @param session the live session the message names
     * @param message the message, before the extensions run
     * @return true if the session was dropped
     */
    boolean droppedAsServedElsewhere(ServerSessionImpl session, ServerMessageImpl message) {
        if (!Message.META_CONNECT.equals(message.getChannel()) || !store.get().adopts()) {
            return false;
        }
        AcknowledgedBatch numbered = session.acknowledging();
        long acknowledged = clientAck(message);
        // lastBatch() is 0 for an ack state that does not number for the store (an older one): never take that as
        // proof.
        if (numbered == null || acknowledged < 0 || numbered.lastBatch() <= 0 || acknowledged <= numbered.lastBatch()) {
            return false;
        }
        LOG.debug("Session {} acknowledged batch {} above the last issued here, {}: served elsewhere",
                session.getId(), acknowledged, numbered.lastBatch());
        if (sessions.moved(session.getId())) {
            statistics.sessionMoved();
        }
        return true;
    }

    /**
     * Looks the session up and adopts it, once per {@code clientId} at a time.
     *
     * @param clientId the unknown {@code clientId} ({@link #mayAdopt} said yes)
     * @param message the message that named it: a connect's {@code ext.ack} says what its client has
     * @param carrier what it arrived on
     * @return completes when the caller should look the session up again (registered, or not)
     */
    CompletionStage<Void> adopt(String clientId, ServerMessageImpl message, Carrier carrier) {
        return adopt(clientId, message, carrier, true);
    }

    private CompletionStage<Void> adopt(String clientId, ServerMessageImpl message, Carrier carrier, boolean retry) {
        CompletableFuture<Result> flight = flights.get(clientId);
        if (flight == null) {
            CompletableFuture<Result> mine = new CompletableFuture<>();
            flight = flights.putIfAbsent(clientId, mine);
            if (flight == null) {
                flight = mine;
                admit(clientId, message, carrier, mine);
            }
        }
        return flight.thenCompose(result -> {
            // Another message's carrier could not act as the session (no cookie, a stolen clientId): that says
            // nothing of this one's, which gets a look-up of its own, once.
            if (retry && result.session() == null && result.refusedCarrier() != null
                    && result.refusedCarrier() != carrier && sessions.get(clientId) == null) {
                return adopt(clientId, message, carrier, false);
            }
            return CompletableFuture.completedFuture(null);
        });
    }

    private void admit(String clientId, ServerMessageImpl message, Carrier carrier, CompletableFuture<Result> flight) {
        boolean now;
        synchronized (this) {
            now = inFlight < maxInFlight;
            if (now) {
                inFlight++;
            } else if (queued.size() < maxQueued) {
                queued.add(() -> run(clientId, message, carrier, flight));
                return;
            }
        }
        if (now) {
            run(clientId, message, carrier, flight);
        } else {
            statistics.adoptionShed();
            QUIET.info("adoptions-shed", "Look-ups of unknown clientIds in flight ({}) and queued ({}) are full: "
                    + "answering 402 at once", maxInFlight, maxQueued);
            finish(clientId, flight, Result.NONE);
        }
    }

    /** Runs one look-up, holding one of the {@link #maxInFlight} places, which it hands on when done. */
    private void run(String clientId, ServerMessageImpl message, Carrier carrier, CompletableFuture<Result> flight) {
        statistics.adoptionLookup();
        CompletionStage<Result> result;
        try {
            result = lookUp(clientId, message, carrier);
        } catch (RuntimeException failure) {
            result = CompletableFuture.failedFuture(failure);
        }
        result.whenComplete((done, failure) -> {
            if (failure != null) {
                statistics.adoptionFailed();
                QUIET.warn("adoption-failed", "Failed to adopt a session from the store", failure);
            }
            next();
            finish(clientId, flight, failure != null || done == null ? Result.NONE : done);
        });
    }

    private void next() {
        Runnable waiting;
        synchronized (this) {
            waiting = queued.poll();
            if (waiting == null) {
                inFlight--;
            }
        }
        if (waiting != null) {
            // Keeps the place in flight that just ended. On the scheduler, not here: a store that answers at once
            // would otherwise run the whole queue down this thread's stack.
            try {
                parts.scheduler().execute(waiting);
            } catch (RejectedExecutionException stopped) {
                waiting.run();
            }
        }
    }

    private void finish(String clientId, CompletableFuture<Result> flight, Result result) {
        flights.remove(clientId, flight);
        flight.complete(result);
    }

    private CompletionStage<Result> lookUp(String clientId, ServerMessageImpl message, Carrier carrier) {
        SessionStore current = store.get();
        return current.findAsync(clientId).thenCompose(found -> {
            if (found == null) {
                statistics.adoptionRefused();
                return done(Result.NONE);
            }
            // The binding is checked before the store is asked to take the session over: a stolen clientId alone
            // must not move a session away from a node that serves it.
            if (!SessionRegistry.mayActAs(rebuild(found), carrier)) {
                sessions.foreignClientId();
                statistics.adoptionRefused();
                LOG.debug("Refused to adopt session {}: the carrier may not act as it", clientId);
                return done(new Result(null, carrier));
            }
            if (hasWildcard(found)) {
                // Known before the take-over: no position says where a wildcard subscription stands.
                statistics.adoptionRefused();
                LOG.debug("Refused to adopt session {}: it subscribes to a wildcard", clientId);
                return done(Result.NONE);
            }
            return current.adopt(clientId).thenCompose(adopted -> {
                if (adopted == null) {
                    statistics.adoptionRefused();
                    return done(Result.NONE);
                }
                return install(adopted, message);
            });
        });
    }

    /** @return a session of this node rebuilt from the stored state, not registered, serving nothing yet */
    private ServerSessionImpl rebuild(SessionState state) {
        ServerSessionImpl session = new ServerSessionImpl(parts, state.sessionId(), null);
        if (state.maxInterval() != null) {
            session.setMaxInterval(state.maxInterval());
        }
        session.settings().restoreBinding(state.browserDigest(), state.browserCookieShown(), state.pinned());
        PortableAttributes.restore(session, state.portableAttributes());
        session.generation(state.generation());
        return session;
    }

    private CompletionStage<Result> install(SessionState state, ServerMessageImpl message) {
        ServerSessionImpl session = rebuild(state);
        String id = session.getId();
        long clientAck = clientAck(message);
        if (clientAck < 0) {
            clientAck = Math.max(0, state.ackBatch());
        }
        String connectId = Message.META_CONNECT.equals(message.getChannel()) ? message.getId() : null;
        Map<String, ChannelPosition> resumeAt = resumePositions(state, clientAck, connectId);
        LOG.debug("Adopting on {}: client ack {}, stored ack {}, last batch {}, journal {}, resuming at {}",
                message.getChannel(), clientAck, state.ackBatch(), state.lastBatch(), state.journal().keySet(),
                resumeAt);
        if (resumeAt == null) {
            return refuse(session, "it cannot resume exactly (a wildcard, or no position for a channel)");
        }
        AcknowledgedBatch numbered = null;
        if (state.acknowledges()) {
            AdoptedAcknowledgements acknowledgements = acknowledgements();
            if (acknowledgements == null) {
                return refuse(session, "it uses the ack extension, which this node does not have");
            }
            numbered = acknowledgements.resumeOn(session);
        }
        if (!events.adopting(session, state.portableAttributes())) {
            return refuse(session, "an adoption listener refused it");
        }
        if (numbered != null) {
            long highestJournaled = state.journal().isEmpty() ? 0 : state.journal().lastKey();
            long lastBatch = Math.max(clientAck, Math.max(state.lastBatch(), highestJournaled));
            numbered.continueFrom(lastBatch, clientAck, resumeAt);
        } else {
            long highestJournaled = state.journal().isEmpty() ? 0 : state.journal().lastKey();
            session.continueReplies(Math.max(state.lastBatch(), highestJournaled), resumeAt);
        }
        List<CompletableFuture<Boolean>> resumed = new ArrayList<>();
        for (String name : state.subscriptions()) {
            ChannelId channel = ChannelId.of(name);
            ServerMessageImpl subscribe = new ServerMessageImpl();
            subscribe.setChannel(Message.META_SUBSCRIBE);
            subscribe.setClientId(id);
            subscribe.put(Message.SUBSCRIPTION_FIELD, name);
            boolean resumes = !channel.isService();
            if (resumes) {
                subscribe.getExt(true).put(RECOVERY_FIELD, new ResumeFrom(resumeAt.get(name)));
            }
            resumed.add(subscribePath.subscribe(session, subscribe).toCompletableFuture()
                    .thenApply(reply -> isResumed(reply, resumes)));
        }
        return CompletableFuture.allOf(resumed.toArray(CompletableFuture[]::new)).handle((ignored, failure) -> {
            boolean all = failure == null && resumed.stream().allMatch(CompletableFuture::join);
            if (!all) {
                if (failure != null) {
                    QUIET.warn("adoption-resume", "Failed to resume an adopted session's subscriptions", failure);
                }
                return refuseNow(session, "a subscription was refused, or not resumed exactly");
            }
            if (!sessions.addAdopted(session)) {
                // A session of that id came to live here meanwhile (another look-up's, despite the single flight).
                sessions.discardAdopted(session);
                return Result.NONE;
            }
            statistics.adopted();
            LOG.debug("Adopted session {} with {} subscriptions", id, resumed.size());
            events.sessionAdopted(session);
            return new Result(session, null);
        });
    }

    private static boolean hasWildcard(SessionState state) {
        for (String name : state.subscriptions()) {
            if (ChannelId.isValid(name) && ChannelId.of(name).isWildcard()) {
                return true;
            }
        }
        return false;
    }

    private static boolean isResumed(ServerMessageImpl reply, boolean resumes) {
        if (reply == null || !reply.isSuccessful()) {
            return false;
        }
        if (!resumes) {
            return true;
        }
        Map<String, Object> ext = reply.getExt();
        Object recovery = ext == null ? null : ext.get(RECOVERY_FIELD);
        return recovery instanceof Map<?, ?> answer && Boolean.TRUE.equals(answer.get("recovered"));
    }

    private AdoptedAcknowledgements acknowledgements() {
        for (ServerExtension extension : extensions.list()) {
            if (extension instanceof AdoptedAcknowledgements acknowledgements) {
                return acknowledgements;
            }
        }
        return null;
    }

    private CompletionStage<Result> refuse(ServerSessionImpl session, String why) {
        return done(refuseNow(session, why));
    }

    private Result refuseNow(ServerSessionImpl session, String why) {
        statistics.adoptionRefused();
        LOG.debug("Refused to adopt session {}: {}", session.getId(), why);
        sessions.discardAdopted(session);
        return Result.NONE;
    }

    /**
     * Where each subscription resumes: strictly after what its client is known to have. With {@code ack}, what it
     * acknowledged ({@code clientAck}): the stored positions if that is the stored acknowledged batch, else the
     * journal's entry for it; without, the journal's entry for the last batch written (at-most-once) or the one
     * before (at-least-once), else the stored positions. A channel without a position there resumes from where its
     * subscription took effect ({@link SessionState#subscribedAt()}).
     *
     * @return per plain channel, the position; null if a subscription cannot be resumed (a wildcard, a channel with
     *         no position at all, an acknowledged batch the journal does not hold)
     */
    Map<String, ChannelPosition> resumePositions(SessionState state, long clientAck) {
        return resumePositions(state, clientAck, null);
    }

    /**
     * @param state the stored session
     * @param clientAck the batch the client acknowledged
     * @param connectId the {@code id} of the connect that named the session, or null: the same as the newest journaled
     *        reply's means that reply never arrived (Faye sends a failed request again unchanged), so a session
     *        without {@code ack} resumes before it, exactly
     * @return per plain channel, the position; null if a subscription cannot be resumed
     */
    Map<String, ChannelPosition> resumePositions(SessionState state, long clientAck, String connectId) {
        NavigableMap<Long, Map<String, ChannelPosition>> journal = state.journal();
        Map<String, ChannelPosition> base;
        if (state.acknowledges()) {
            // The journal entry of the acknowledged batch is exact; the stored positions may lag the stored batch
            // (both are written lazily), so they serve only when the journal no longer holds it.
            base = journal.get(clientAck);
            if (base == null && clientAck <= 0) {
                // Nothing received yet: every channel resumes where it was subscribed.
                base = Map.of();
            } else if (base == null && clientAck == Math.max(0, state.ackBatch())) {
                base = state.positions();
            } else if (base == null) {
                return null;
            }
        } else {
            long last = state.lastBatch();
            boolean lastLost = connectId != null && connectId.equals(state.journalRequests().get(last));
            long at = delivery == FailoverDelivery.AT_MOST_ONCE && !lastLost ? last : last - 1;
            base = journal.get(at);
            if (base == null) {
                // Before the first batch, nothing was delivered: every channel resumes where it was subscribed.
                base = at <= 0 && last >= 1 ? Map.of() : state.positions();
            }
        }
        Map<String, ChannelPosition> subscribedAt = state.subscribedAt();
        Map<String, ChannelPosition> positions = new HashMap<>();
        for (String name : state.subscriptions()) {
            ChannelId channel = ChannelId.of(name);
            if (channel.isWildcard()) {
                return null;
            }
            if (channel.isService()) {
                continue;
            }
            ChannelPosition position = base.get(name);
            if (position == null) {
                position = subscribedAt.get(name);
            }
            if (position == null) {
                return null;
            }
            positions.put(name, position);
        }
        return positions;
    }

    /** @return the batch a connect's {@code ext.ack} acknowledges, or -1 if it carries none */
    static long clientAck(ServerMessageImpl message) {
        if (!Message.META_CONNECT.equals(message.getChannel())) {
            return -1;
        }
        Map<String, Object> ext = message.getExt();
        Object ack = ext == null ? null : ext.get("ack");
        return ack instanceof Number number ? Math.max(0, number.longValue()) : -1;
    }

    /** @return for a dump: counts only, never ids */
    String describe() {
        int running;
        int waiting;
        synchronized (this) {
            running = inFlight;
            waiting = queued.size();
        }
        return "looked up " + statistics.adoptionLookups() + ", adopted " + statistics.adoptions() + ", refused "
                + statistics.adoptionsRefused() + ", failed " + statistics.adoptionsFailed() + ", shed "
                + statistics.adoptionsShed() + ", in flight " + running + ", queued " + waiting + "; moved away "
                + statistics.sessionsMoved();
    }

    private static CompletionStage<Result> done(Result result) {
        return CompletableFuture.completedFuture(result);
    }
}
