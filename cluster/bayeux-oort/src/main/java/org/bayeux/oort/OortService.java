package org.bayeux.oort;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

import org.bayeux.server.BayeuxEngine;
import org.bayeux.server.cluster.ClusterListener;
import org.bayeux.server.cluster.ClusterMember;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A call forwarded to the node that owns it: run here if this node is the owner, sent to the owner if it is a joined
 * member, and failed at once if it is not. Every call has a timeout.
 *
 * <pre>{@code
 * OortService<Map<String, Object>, String> rooms = OortService.create(oort, "rooms", Duration.ofSeconds(5),
 *         (request, caller) -> CompletableFuture.completedFuture("joined " + request.get("room")));
 * rooms.call(ownerUrl, Map.of("room", "lobby")).whenComplete((answer, failure) -> ...);
 * }</pre>
 *
 * <p>Requests and answers travel as JSON (maps, lists, strings, numbers, booleans, nulls; a peer reads integers as
 * {@code Long}). The call's stage completes with the owner's answer, or exceptionally with an
 * {@link OortServiceException} whose {@link OortServiceException.Reason reason} says why: the owner is not joined
 * (at once), it left while the call waited (when it leaves), no answer within the timeout, the owner's handler
 * failed, the call could not be sent, or too many calls wait already. A call is sent once and never retried: when
 * it fails by timeout or departure, the owner may or may not have run it.</p>
 *
 * <p>Runs on {@code /service/oort/service/<name>}; every node that may own calls must create the service with the
 * same name. The handler runs on the thread that received the call and must not block: it returns a stage.</p>
 *
 * @param <Req> the request's type
 * @param <Resp> the answer's type
 */
public class OortService<Req, Resp> {
    private static final Logger LOG = LoggerFactory.getLogger(OortService.class);
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]+");
    /** The most calls of one service waiting for answers. */
    private static final int MAX_PENDING = 10_000;

    /**
     * Runs a call on the owner.
     *
     * @param <Req> the request's type
     * @param <Resp> the answer's type
     */
    @FunctionalInterface
    public interface Handler<Req, Resp> {
        /**
         * @param request the request, as decoded JSON when it came from another node
         * @param caller the node that called ({@link PeerMessaging#self()} when called here)
         * @return the answer, JSON-serialisable; completed exceptionally if the call failed
         */
        CompletionStage<Resp> handle(Req request, ClusterMember caller);
    }

    private record Pending(CompletableFuture<Object> result, String ownerId, ScheduledFuture<?> timer) {
    }

    private final BayeuxEngine engine;
    private final PeerMessaging messaging;
    private final String name;
    private final String service;
    private final Duration timeout;
    private final Handler<Req, Resp> handler;
    private final AtomicLong ids = new AtomicLong();
    private final Map<Long, Pending> pending = new ConcurrentHashMap<>();
    private final AtomicBoolean stopped = new AtomicBoolean();
    private final ClusterListener membershipListener = new ClusterListener() {
        @Override
        public void left(ClusterMember member) {
            ownerLeft(member);
        }
    };

    /**
     * @param oort the node
     * @param name the service's name, the same on every node: letters, digits, '-', '_' or '.'
     * @param timeout how long a call waits for the owner's answer
     * @param handler runs the calls this node owns
     */
    protected OortService(Oort oort, String name, Duration timeout, Handler<Req, Resp> handler) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("Not an Oort service name: '" + name
                    + "' (letters, digits, '-', '_' or '.')");
        }
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("The timeout of Oort service '" + name + "' must be positive: "
                    + timeout);
        }
        this.engine = oort.engine();
        this.messaging = oort.messaging();
        this.name = name;
        this.service = "service/" + name;
        this.timeout = timeout;
        this.handler = Objects.requireNonNull(handler, "handler");
        messaging.register(service, this::received);
        messaging.addMembershipListener(membershipListener);
    }

    /**
     * @param oort the node
     * @param name the service's name, the same on every node: letters, digits, '-', '_' or '.'
     * @param timeout how long a call waits for the owner's answer
     * @param handler runs the calls this node owns
     * @param <Req> the request's type
     * @param <Resp> the answer's type
     * @return the service, registered on the node
     */
    public static <Req, Resp> OortService<Req, Resp> create(Oort oort, String name, Duration timeout,
            Handler<Req, Resp> handler) {
        return new OortService<>(oort, name, timeout, handler);
    }

    /**
     * Stops this service on this node: its service is unregistered (its channel's listener removed from the engine,
     * and peers' calls and answers for it dropped from now on), it hears no more leaves, and every call waiting for
     * an answer fails with {@link OortServiceException.Reason#NOT_SENT}. A call made afterwards fails at once the
     * same way. A second call does nothing.
     */
    public void stop() {
        if (!stopped.compareAndSet(false, true)) {
            return;
        }
        messaging.unregister(service);
        messaging.removeMembershipListener(membershipListener);
        for (Long id : List.copyOf(pending.keySet())) {
            fail(id, OortServiceException.Reason.NOT_SENT, "Oort service '" + name + "' stopped on this node");
        }
    }

    private CompletionStage<Resp> stoppedCall() {
        return CompletableFuture.failedFuture(new OortServiceException(OortServiceException.Reason.NOT_SENT,
                "Oort service '" + name + "' stopped on this node", null));
    }

    /** @return whether {@link #stop()} was called */
    public boolean isStopped() {
        return stopped.get();
    }

    /** @return the service's name */
    public String name() {
        return name;
    }

    /** @return how long a call waits for the owner's answer */
    public Duration timeout() {
        return timeout;
    }

    /** @return how many calls of this node wait for an answer now */
    public int pendingCalls() {
        return pending.size();
    }

    /**
     * Calls the owner at a URL: this node if it is this node's URL, else the member joined at that URL.
     *
     * @param ownerUrl the owner's URL
     * @param request the request, JSON-serialisable
     * @return the answer; failed at once with {@link OortServiceException.Reason#NOT_JOINED} if no member is joined
     *         at that URL
     */
    public CompletionStage<Resp> call(String ownerUrl, Req request) {
        Objects.requireNonNull(ownerUrl, "ownerUrl");
        if (stopped.get()) {
            return stoppedCall();
        }
        if (ownerUrl.equals(messaging.self().url())) {
            return callHere(request);
        }
        ClusterMember owner = messaging.memberAt(ownerUrl);
        if (owner == null) {
            return CompletableFuture.failedFuture(new OortServiceException(OortServiceException.Reason.NOT_JOINED,
                    "Oort service '" + name + "': no node is joined at " + ownerUrl, null));
        }
        return call(owner, request);
    }

    /**
     * Calls a member, or this node if it is {@link PeerMessaging#self()}.
     *
     * @param owner the owner
     * @param request the request, JSON-serialisable
     * @return the answer; failed at once with {@link OortServiceException.Reason#NOT_JOINED} if the member is not
     *         joined now
     */
    @SuppressWarnings("unchecked")
    public CompletionStage<Resp> call(ClusterMember owner, Req request) {
        if (stopped.get()) {
            return stoppedCall();
        }
        if (owner.id().equals(messaging.self().id())) {
            return callHere(request);
        }
        if (messaging.member(owner.id()) == null) {
            return CompletableFuture.failedFuture(new OortServiceException(OortServiceException.Reason.NOT_JOINED,
                    "Oort service '" + name + "': node " + owner.id() + " at " + owner.url() + " is not joined", null));
        }
        if (pending.size() >= MAX_PENDING) {
            return CompletableFuture.failedFuture(new OortServiceException(OortServiceException.Reason.OVERLOADED,
                    "Oort service '" + name + "': " + MAX_PENDING + " calls wait for answers already", null));
        }
        long id = ids.incrementAndGet();
        CompletableFuture<Object> result = new CompletableFuture<>();
        // Pending before the timer exists, so that a timer that fires at once finds the call.
        pending.put(id, new Pending(result, owner.id(), null));
        ScheduledFuture<?> timer = engine.schedule(() -> fail(id, OortServiceException.Reason.TIMEOUT,
                "Oort service '" + name + "': node " + owner.id() + " did not answer within " + timeout.toMillis()
                        + " ms"), timeout);
        if (timer != null && pending.computeIfPresent(id, (key, call) -> new Pending(call.result(), call.ownerId(),
                timer)) == null) {
            timer.cancel(false);
        }
        Map<String, Object> message = new HashMap<>();
        message.put("type", "call");
        message.put("id", id);
        message.put("request", request);
        try {
            if (!messaging.send(owner, service, message)) {
                fail(id, OortServiceException.Reason.NOT_SENT, "Oort service '" + name + "': node " + owner.id()
                        + " is not joined any more, or its link holds too much");
            }
        } catch (RuntimeException e) {
            Pending call = pending.remove(id);
            if (call != null) {
                cancel(call);
                result.completeExceptionally(new OortServiceException(OortServiceException.Reason.NOT_SENT,
                        "Oort service '" + name + "': the call could not be sent: " + e.getMessage(), e));
            }
        }
        if (messaging.member(owner.id()) == null) {
            // It left between the check and the send, and its departure may have gone by before the call was pending.
            fail(id, OortServiceException.Reason.LEFT, "Oort service '" + name + "': node " + owner.id() + " left");
        }
        return (CompletionStage<Resp>) (CompletionStage<?>) result;
    }

    private CompletionStage<Resp> callHere(Req request) {
        CompletableFuture<Resp> result = new CompletableFuture<>();
        run(request, messaging.self()).whenComplete((answer, failure) -> {
            if (failure != null) {
                result.completeExceptionally(failed(failure));
            } else {
                result.complete(answer);
            }
        });
        return result.orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .exceptionallyCompose(failure -> CompletableFuture.failedFuture(
                        unwrap(failure) instanceof TimeoutException
                                ? new OortServiceException(OortServiceException.Reason.TIMEOUT, "Oort service '" + name
                                        + "': no answer here within " + timeout.toMillis() + " ms", null)
                                : failure));
    }

    private static Throwable unwrap(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }

    private OortServiceException failed(Throwable failure) {
        Throwable cause = unwrap(failure);
        return cause instanceof OortServiceException service ? service
                : new OortServiceException(OortServiceException.Reason.FAILED, "Oort service '" + name
                        + "' failed: " + describe(cause), cause);
    }

    /** Runs the handler, isolated: an exception it throws becomes a failed stage. */
    private CompletionStage<Resp> run(Req request, ClusterMember caller) {
        try {
            CompletionStage<Resp> stage = handler.handle(request, caller);
            return stage != null ? stage : CompletableFuture.failedFuture(
                    new IllegalStateException("the handler returned no stage"));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @SuppressWarnings("unchecked")
    private void received(ClusterMember from, Map<String, Object> data) {
        if (stopped.get()) {
            // A message that was on its way when the service was unregistered.
            return;
        }
        Object type = data.get("type");
        if (!(data.get("id") instanceof Number number)) {
            return;
        }
        long id = number.longValue();
        if ("call".equals(type)) {
            run((Req) data.get("request"), from).whenComplete((answer, failure) -> answer(from, id, answer, failure));
        } else if ("result".equals(type)) {
            Pending call = pending.get(id);
            if (call == null || !call.ownerId().equals(from.id()) || !pending.remove(id, call)) {
                // Too late (timed out, or its owner left) or not from the node called: dropped.
                return;
            }
            cancel(call);
            if (Boolean.TRUE.equals(data.get("ok"))) {
                call.result().complete(data.get("value"));
            } else {
                call.result().completeExceptionally(new OortServiceException(OortServiceException.Reason.FAILED,
                        "Oort service '" + name + "' failed on node " + from.id() + ": " + data.get("error"), null));
            }
        }
    }

    private void answer(ClusterMember caller, long id, Object answer, Throwable failure) {
        Map<String, Object> message = new HashMap<>();
        message.put("type", "result");
        message.put("id", id);
        if (failure == null) {
            message.put("ok", true);
            message.put("value", answer);
        } else {
            message.put("ok", false);
            message.put("error", describe(unwrap(failure)));
        }
        try {
            if (!messaging.send(caller, service, message)) {
                LOG.debug("Oort service {}: the answer to node {} could not be sent", name, caller.id());
            }
        } catch (RuntimeException e) {
            // Too large, or not JSON: the caller is told why rather than left to time out.
            LOG.warn("Oort service {}: the answer to node {} could not be sent: {}", name, caller.id(), e.getMessage());
            if (failure == null) {
                answer(caller, id, null, e);
            }
        }
    }

    private static String describe(Throwable failure) {
        String message = failure.getMessage();
        return failure.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }

    private void fail(long id, OortServiceException.Reason reason, String why) {
        Pending call = pending.remove(id);
        if (call != null) {
            cancel(call);
            call.result().completeExceptionally(new OortServiceException(reason, why, null));
        }
    }

    private void ownerLeft(ClusterMember member) {
        for (Map.Entry<Long, Pending> entry : List.copyOf(pending.entrySet())) {
            if (entry.getValue().ownerId().equals(member.id())) {
                fail(entry.getKey(), OortServiceException.Reason.LEFT, "Oort service '" + name + "': node "
                        + member.id() + " at " + member.url() + " left before it answered");
            }
        }
    }

    private static void cancel(Pending call) {
        if (call.timer() != null) {
            call.timer().cancel(false);
        }
    }
}
