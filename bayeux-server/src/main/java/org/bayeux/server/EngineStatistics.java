package org.bayeux.server;

import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

import org.bayeux.api.Message;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.server.internal.Callbacks;
import org.bayeux.server.transport.OutgoingMessages;

/**
 * The engine's running totals for monitoring: messages and bytes in and out, handshakes, errors by Bayeux error, and
 * a sampled delivery latency. Read with {@link BayeuxEngine#statistics()}; a metrics library reads these totals when
 * it is scraped, so the engine itself depends on none.
 *
 * <p>Cheap by design: the totals are {@link LongAdder}s, updated once per batch received and once per batch handed to
 * a carrier (never once per subscriber of a publish: a fan-out adds its recipients in one update). Gauges (sessions,
 * channels, queue depths) are not kept here: they are read from the engine's state when asked.</p>
 */
public final class EngineStatistics {
    /** One carrier batch in this many has its delivery latency measured, when a recorder is set. */
    public static final int LATENCY_SAMPLE_ONE_IN = 16;
    /**
     * The most keys added as errors come, beyond the engine's and the registered ones (a known token under an
     * unusual code, {@code CODE::other}); later ones count under {@link #OTHER_ERROR}.
     */
    static final int MAX_ERROR_KEYS = 64;
    /** The key of errors without a three-digit code, and of those beyond {@link #MAX_ERROR_KEYS} added keys. */
    public static final String OTHER_ERROR = "other";

    private final LongAdder batchesIn = new LongAdder();
    private final LongAdder messagesIn = new LongAdder();
    private final LongAdder bytesIn = new LongAdder();
    private final LongAdder batchesOut = new LongAdder();
    private final LongAdder messagesOut = new LongAdder();
    private final LongAdder bytesOut = new LongAdder();
    private final LongAdder handshakesAccepted = new LongAdder();
    private final LongAdder handshakesRefused = new LongAdder();
    private final LongAdder publishes = new LongAdder();
    private final LongAdder deliveries = new LongAdder();
    private final LongAdder storeWriteFailures = new LongAdder();
    private final LongAdder journalFailures = new LongAdder();
    private final LongAdder adoptionLookups = new LongAdder();
    private final LongAdder adoptions = new LongAdder();
    private final LongAdder adoptionsRefused = new LongAdder();
    private final LongAdder adoptionsFailed = new LongAdder();
    private final LongAdder adoptionsShed = new LongAdder();
    private final LongAdder sessionsMoved = new LongAdder();
    private final ConcurrentHashMap<String, LongAdder> errors = new ConcurrentHashMap<>();
    /** The reason tokens counted under their own key: the engine's, and those registered. */
    private final Set<String> knownTokens = ConcurrentHashMap.newKeySet();
    private final AtomicInteger addedErrorKeys = new AtomicInteger();
    private volatile LongConsumer latencyRecorder;
    private volatile Consumer<String> newErrorListener;

    EngineStatistics() {
        for (String error : KnownErrors.ENGINE) {
            errors.put(error, new LongAdder());
            knownTokens.add(error.substring(error.lastIndexOf(':') + 1));
        }
    }

    /** @return how many batches (HTTP bodies, WebSocket messages) the transports handed to the engine */
    public long batchesIn() {
        return batchesIn.sum();
    }

    /** @return how many messages arrived from remote clients */
    public long messagesIn() {
        return messagesIn.sum();
    }

    /**
     * @return the bytes of the batches parsed: UTF-8 bytes for byte input, characters for text input (WebSocket text
     *         frames), which are the same for ASCII JSON
     */
    public long bytesIn() {
        return bytesIn.sum();
    }

    /** @return how many batches the engine handed to carriers (HTTP responses, WebSocket frames, local sessions) */
    public long batchesOut() {
        return batchesOut.sum();
    }

    /** @return how many messages (replies and deliveries) the engine handed to carriers to write */
    public long messagesOut() {
        return messagesOut.sum();
    }

    /** @return the JSON bytes of the messages handed to carriers, as one array per batch */
    public long bytesOut() {
        return bytesOut.sum();
    }

    /** @return how many handshakes were answered successfully */
    public long handshakesAccepted() {
        return handshakesAccepted.sum();
    }

    /** @return how many handshakes were refused, by the engine or by a transport's limits */
    public long handshakesRefused() {
        return handshakesRefused.sum();
    }

    /**
     * @return how many published messages were fanned out to this node's subscribers: those published here (unless
     *         a cluster delivers them back) and those from other nodes
     */
    public long publishes() {
        return publishes.sum();
    }

    /** @return how many times a published message was queued for a subscriber on this node */
    public long deliveries() {
        return deliveries.sum();
    }

    /**
     * @return how many unknown {@code clientId}s this node looked up in a session store that adopts (one store read
     *         each; concurrent messages naming the same one share a look-up)
     */
    public long adoptionLookups() {
        return adoptionLookups.sum();
    }

    /** @return how many sessions this node adopted from other nodes */
    public long adoptions() {
        return adoptions.sum();
    }

    /**
     * @return how many look-ups did not end in an adoption although the store answered: no such session (a made-up or
     *         ended {@code clientId}), one its owner keeps, one the carrier may not act as (its cookie), or one
     *         refused by an adoption listener or an authorizer or that cannot be resumed exactly (its client is
     *         answered {@code 402} and handshakes again)
     */
    public long adoptionsRefused() {
        return adoptionsRefused.sum();
    }

    /** @return how many look-ups or adoptions failed: the store could not be read or written, or an error */
    public long adoptionsFailed() {
        return adoptionsFailed.sum();
    }

    /** @return how many unknown {@code clientId}s were answered {@code 402} at once: look-ups in flight and queued full */
    public long adoptionsShed() {
        return adoptionsShed.sum();
    }

    /** @return how many of this node's sessions were dropped because another node owns them now */
    public long sessionsMoved() {
        return sessionsMoved.sum();
    }

    void adoptionLookup() {
        adoptionLookups.increment();
    }

    void adopted() {
        adoptions.increment();
    }

    void adoptionRefused() {
        adoptionsRefused.increment();
    }

    void adoptionFailed() {
        adoptionsFailed.increment();
    }

    void adoptionShed() {
        adoptionsShed.increment();
    }

    void sessionMoved() {
        sessionsMoved.increment();
    }

    /**
     * @return the unsuccessful replies by error, keyed by code and reason token ({@code 405::channel_invalid} for
     *         {@code 405:/a b:channel_invalid}; the arguments, which may hold what a client sent, are never kept):
     *         every error the engine answers and every registered one from the start, at 0; a token neither knows
     *         counted under {@code CODE::other}; an error without a three-digit code, or beyond
     *         {@value #MAX_ERROR_KEYS} keys added as errors came, under {@link #OTHER_ERROR}
     */
    public Map<String, Long> errors() {
        Map<String, Long> snapshot = new TreeMap<>();
        errors.forEach((error, count) -> snapshot.put(error, count.sum()));
        return Collections.unmodifiableMap(snapshot);
    }

    /**
     * @param error an error string, as {@link #errors()} lists it
     * @return how many replies carried it
     */
    public long errors(String error) {
        LongAdder count = errors.get(error);
        return count == null ? 0 : count.sum();
    }

    /**
     * Sets where sampled delivery latencies go: for one batch handed to a carrier in {@value #LATENCY_SAMPLE_ONE_IN},
     * the time from the moment its oldest published message was frozen (ready to be queued) to the moment the batch
     * was handed to the carrier to write, in nanoseconds. Called on the delivering thread: it must be quick and must
     * not block; it is isolated (a failure is logged, delivery goes on).
     *
     * @param recorder the recorder, or null for none
     */
    public void setDeliveryLatencyRecorder(LongConsumer recorder) {
        this.latencyRecorder = recorder;
    }

    /**
     * @return the delivery latency recorder set, or null: a second reader (the standalone server's admin page) chains
     *         itself after the metrics' one with {@link LongConsumer#andThen}
     */
    public LongConsumer getDeliveryLatencyRecorder() {
        return latencyRecorder;
    }

    /**
     * Registers an application's error, so that it is counted under its own key ({@code CODE::TOKEN}) from now on,
     * at 0 until it happens, rather than under {@code CODE::other}. For errors an application's policy, authorizer or
     * extension answers; call it from code, never with anything a client sent.
     *
     * @param code the three-digit code, 100 to 599
     * @param token the reason token, a lower-case word with underscores ({@code quota_exceeded}), at most 64
     *        characters
     * @throws IllegalArgumentException if either is not so
     */
    public void registerError(int code, String token) {
        if (code < 100 || code > 599 || token == null || !KnownErrors.TOKEN.matcher(token).matches()) {
            throw new IllegalArgumentException("an error is a code from 100 to 599 and a lower-case word with "
                    + "underscores: " + code + "::" + token);
        }
        knownTokens.add(token);
        String key = KnownErrors.key(code, token);
        if (errors.putIfAbsent(key, new LongAdder()) == null) {
            announce(key);
        }
    }

    /**
     * Sets who is told of each error key the first time it is counted or registered (at most
     * {@value #MAX_ERROR_KEYS} + 1 calls, and one per {@link #registerError}), so that a metrics library can register
     * a counter for it; the keys before are in {@link #errors()}, the engine's among them. Called on the thread that
     * counted it: quick, never blocking; isolated.
     *
     * @param listener the listener, or null for none
     */
    public void setNewErrorListener(Consumer<String> listener) {
        this.newErrorListener = listener;
    }

    /**
     * @return how many times a session store failed to write a session before its handshake's or subscription's
     *         reply (the reply left anyway; the store writes the session again later)
     */
    public long storeWriteFailures() {
        return storeWriteFailures.sum();
    }

    /**
     * @return how many times a session store failed to journal a delivery batch before its connect reply (the reply
     *         left anyway: a failover may then deliver that batch's messages again), fencing refusals not counted
     */
    public long journalFailures() {
        return journalFailures.sum();
    }

    void storeWriteFailed() {
        storeWriteFailures.increment();
    }

    void journalFailed() {
        journalFailures.increment();
    }

    void parsed(int bytes) {
        bytesIn.add(bytes);
    }

    void received(int messages) {
        batchesIn.increment();
        messagesIn.add(messages);
    }

    void published(int recipients) {
        publishes.increment();
        if (recipients > 0) {
            deliveries.add(recipients);
        }
    }

    void handshakeRefused(String error) {
        handshakesRefused.increment();
        error(error);
    }

    /** Counts a batch handed to a carrier: one pass over its messages, for bytes, replies and errors. */
    void sending(OutgoingMessages out) {
        int size = out.size();
        long bytes = size + 1; // the brackets and the commas of the array
        long oldestFrozen = Long.MAX_VALUE;
        LongConsumer recorder = latencyRecorder;
        boolean sample = recorder != null && ThreadLocalRandom.current().nextInt(LATENCY_SAMPLE_ONE_IN) == 0;
        for (int i = 0; i < size; i++) {
            bytes += out.jsonLength(i);
            ServerMessage message = out.get(i);
            if (message.isReply()) {
                countReply(message);
            } else if (sample && message instanceof ServerMessageImpl impl) {
                oldestFrozen = Math.min(oldestFrozen, impl.frozenAtNanos());
            }
        }
        batchesOut.increment();
        messagesOut.add(size);
        bytesOut.add(bytes);
        if (sample && oldestFrozen != Long.MAX_VALUE && oldestFrozen != 0) {
            long latency = Math.max(0, System.nanoTime() - oldestFrozen);
            Callbacks.run(recorder, () -> recorder.accept(latency));
        }
    }

    private void countReply(ServerMessage reply) {
        boolean successful = reply.isSuccessful();
        if (Message.META_HANDSHAKE.equals(reply.getChannel())) {
            (successful ? handshakesAccepted : handshakesRefused).increment();
        }
        if (!successful) {
            Object error = reply.get(Message.ERROR_FIELD);
            error(error == null ? OTHER_ERROR : error.toString());
        }
    }

    private void error(String error) {
        String key = KnownErrors.keyOf(error, knownTokens::contains);
        LongAdder count = errors.get(key);
        if (count == null) {
            // Bounded: only codes and known tokens make keys, but an application may answer any code.
            if (addedErrorKeys.incrementAndGet() > MAX_ERROR_KEYS) {
                addedErrorKeys.decrementAndGet();
                key = OTHER_ERROR;
            }
            LongAdder created = new LongAdder();
            count = errors.putIfAbsent(key, created);
            if (count == null) {
                count = created;
                announce(key);
            } else if (!key.equals(OTHER_ERROR)) {
                addedErrorKeys.decrementAndGet(); // another thread added it first
            }
        }
        count.increment();
    }

    private void announce(String key) {
        Consumer<String> listener = newErrorListener;
        if (listener != null) {
            Callbacks.run(listener, () -> listener.accept(key));
        }
    }

    @Override
    public String toString() {
        return "EngineStatistics{in=" + messagesIn() + ", out=" + messagesOut() + ", handshakes=" + handshakesAccepted()
                + "/" + handshakesRefused() + ", adoptions=" + adoptions() + "/" + adoptionLookups()
                + ", errors=" + errors() + "}";
    }
}
