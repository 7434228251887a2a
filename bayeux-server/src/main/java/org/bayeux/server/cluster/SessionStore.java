package org.bayeux.server.cluster;

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
}
