package org.bayeux.server.cluster;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Where sessions' durable state is created, found and removed. The engine keeps every live session's state in its
 * own objects and tells the store what changed; a store that lives outside the JVM writes it where another node can
 * {@link #find} it. The {@link InMemorySessionStore in-memory store}, the default, keeps nothing of its own.
 *
 * <p>Called on the engine's threads, possibly under a session's lock: implementations must not block; a remote store
 * writes asynchronously.</p>
 */
public interface SessionStore {
    /** @param session a session just created by a successful handshake */
    void created(SessionState session);

    /**
     * Told when a session's subscriptions changed, and when its {@link SessionState#positions() positions} or
     * {@link SessionState#ackBatch() acknowledged batch} moved: for the latter at most once per batch of messages
     * handed to a carrier (never once per message), under the session's lock. A remote store coalesces: it notes
     * the session and writes its state later, at most so often.
     *
     * @param session a session whose durable state changed; read it when writing, not now
     */
    void changed(SessionState session);

    /**
     * @param sessionId a session's id
     * @return its state, or null if no node has a session of that id; a remote store may block to read it (see
     *         {@link #findAsync}), so never call this on an engine thread
     */
    SessionState find(String sessionId);

    /**
     * @param sessionId a session's id
     * @return a stage completed with its state, or with null if no node has a session of that id; by default
     *         {@link #find} run now
     */
    default CompletionStage<SessionState> findAsync(String sessionId) {
        return CompletableFuture.completedFuture(find(sessionId));
    }

    /** @param sessionId a session that ended: disconnected, expired or removed */
    void removed(String sessionId);
    // ---- failover: a session that outlives its node (docs/cluster.md, "Failover") ----------------------------

    /**
     * @return true if this store keeps sessions where another node can {@link #adopt} them: the engine then looks
     *         up every unknown {@code clientId} here before answering {@code 402}, writes through
     *         ({@link #writeNow}) before handshake and subscription replies, and journals delivery batches
     *         ({@link #journal}) before they leave. False by default (the in-memory store).
     */
    default boolean adopts() {
        return false;
    }

    /**
     * Tells the store who to tell when one of this node's sessions turns out to be owned elsewhere: a write the
     * store made for it was refused because another node adopted it (fenced). The engine then drops its copy
     * silently (no {@code /meta/disconnect}, no {@link #removed}). Called once, before the engine starts.
     *
     * @param moved takes the id of a session that moved
     */
    default void onMoved(java.util.function.Consumer<String> moved) {
    }

    /**
     * Writes the session's state now, because its client is about to rely on it (a handshake's or a subscription's
     * reply waits for it). By default {@link #changed} and done.
     *
     * @param session a session of this node
     * @return completes when the state is durable; fails if it could not be written (the reply still leaves; the
     *         session is written again later)
     */
    default CompletionStage<Void> writeNow(SessionState session) {
        changed(session);
        return CompletableFuture.completedFuture(null);
    }

    /**
     * Writes one journal entry before a delivery batch leaves: once the client has batch {@code batch} it has, per
     * channel, {@code positions}. Entries at or below the session's acknowledged batch may be dropped.
     *
     * @param session a session of this node, {@linkplain SessionState#acknowledges() acknowledging}
     * @param batch the batch's number
     * @param positions per channel, the positions after the batch (cumulative), unchangeable
     * @return completes when the entry is durable (or failed: the batch still leaves)
     */
    default CompletionStage<Void> journal(SessionState session, long batch, Map<String, ChannelPosition> positions) {
        return CompletableFuture.completedFuture(null);
    }

    /**
     * {@link #journal(SessionState, long, Map)}, with the {@code id} of the {@code /meta/connect} the batch answers:
     * a client that sends that connect again (Faye resends a failed request unchanged) proves the batch never reached
     * it, so the node that adopts the session resumes before it. By default the id is not kept.
     *
     * @param session a session of this node
     * @param batch the batch's number
     * @param positions per channel, the positions after the batch (cumulative), unchangeable
     * @param requestId the connect's {@code id}, or null
     * @return completes when the entry is durable (or failed: the batch still leaves)
     */
    default CompletionStage<Void> journal(SessionState session, long batch, Map<String, ChannelPosition> positions,
            String requestId) {
        return journal(session, batch, positions);
    }

    /**
     * Takes over a session another node owned: reads it, and if its owner is gone (or lets it go when asked),
     * makes this node its owner with the next {@linkplain SessionState#generation() generation}, atomically.
     *
     * @param sessionId the unknown {@code clientId} a message named
     * @return completes with the session's state, now owned by this node, or with null if there is no such session
     *         or it cannot be taken (its owner lives and keeps it); fails if the store cannot be read
     */
    default CompletionStage<SessionState> adopt(String sessionId) {
        return CompletableFuture.completedFuture(null);
    }

    /**
     * Hands a session over when its node drains: writes its final state and gives up ownership, so that the next
     * node its client reaches adopts it at once. The engine does not call {@link #removed} for it afterwards.
     *
     * @param session a session of this node
     * @return completes when written and released (or failed: the session then expires as a dead node's would)
     */
    default CompletionStage<Void> release(SessionState session) {
        return CompletableFuture.completedFuture(null);
    }

    /**
     * Whether this node may serve its sessions now: a store that fences (one that {@link #adopts}) says false while
     * it cannot prove its node's ownership is current (its liveness lease could not be renewed in time); the engine
     * then holds its sessions' requests and delivers nothing until it says true again, by which time every session
     * that moved meanwhile has been reported through {@link #onMoved}. True by default.
     *
     * @return whether the sessions of this node may be served now
     */
    default boolean serving() {
        return true;
    }
}
