package org.bayeux.server;

import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.bayeux.server.cluster.ChannelPosition;

/**
 * What a remote session keeps when its engine's store {@linkplain org.bayeux.server.cluster.SessionStore#adopts()
 * adopts} sessions, so that another node can carry it on: the numbering of its connect replies that carried messages
 * (for a session without the {@code ack} extension, which numbers its own), the order in which its journaled replies
 * leave, and whether the draining engine hands it over. Made only with such a store, so that a session of the
 * in-memory store costs nothing more than a null field. Guarded by the session's lock, but {@link #lastReply()}.
 */
final class SessionFailover {
    private static final CompletableFuture<Void> NOTHING_PENDING = CompletableFuture.completedFuture(null);

    /** Where the session is in its hand-over to another node, when the engine drains. */
    enum Handover {
        /** Not handed over: the session serves its client. */
        NONE,
        /** The store is releasing it: nothing is delivered, connects wait for the release. */
        RELEASING,
        /** Released: the next connect is told to come back at once (elsewhere), and the session leaves this node. */
        RELEASED
    }

    /** The number of the newest connect reply that carried messages, without the {@code ack} extension. */
    private volatile long lastReply;
    /** Completes once the newest journaled reply left (or was withheld): the next one leaves after it. */
    private CompletableFuture<Void> lastLeft = NOTHING_PENDING;
    /** Written under the session's lock; read without it when the session ends. */
    volatile Handover handover = Handover.NONE;

    long lastReply() {
        return lastReply;
    }

    /**
     * Continues an adopted session's numbering: the next reply is {@code lastReply + 1}, so that its journal entries
     * never collide with those its former node wrote.
     *
     * @param lastReply the newest reply number the former node journaled
     */
    void continueFrom(long lastReply) {
        this.lastReply = Math.max(this.lastReply, lastReply);
    }

    /** @return the number of a new connect reply that carries messages */
    long nextReply() {
        return ++lastReply;
    }

    /**
     * Takes the next place in the order replies leave in: called under the session's lock, in the same hold that
     * took the reply's messages, so that replies leave in the order their messages were taken.
     *
     * @param batch the reply's number
     * @param positions per channel, the positions the client has once it received the reply
     * @param requestId the {@code id} of the connect the reply answers, or null
     * @return the entry to journal before the reply leaves
     */
    JournalEntry entry(long batch, Map<String, ChannelPosition> positions, String requestId) {
        CompletableFuture<Void> left = new CompletableFuture<>();
        JournalEntry entry = new JournalEntry(batch, positions, requestId, lastLeft, left);
        lastLeft = left;
        return entry;
    }

    /**
     * A reply that waits for no journal entry but must not overtake those that do (a hand-over's answer).
     *
     * @return the stage the reply waits for, and the future it completes once it left
     */
    JournalEntry placeOnly() {
        return entry(-1, Map.of(), null);
    }

    /**
     * One connect reply's journal entry, and its place in the order replies leave in.
     *
     * @param batch the reply's number (the {@code ack} batch, or the reply counter), -1 for a place only
     * @param positions per channel, the positions once the client received the reply, unchangeable
     * @param requestId the {@code id} of the connect the reply answers, or null
     * @param previousLeft completes once the reply before this one left
     * @param left completed once this reply left or was withheld
     */
    record JournalEntry(long batch, Map<String, ChannelPosition> positions, String requestId,
            CompletableFuture<Void> previousLeft, CompletableFuture<Void> left) {
    }
}
