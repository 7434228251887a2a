package org.bayeux.server.cluster;

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

    /** @param session a session whose subscriptions or acknowledged batch changed */
    void changed(SessionState session);

    /**
     * @param sessionId a session's id
     * @return its state, or null if no node has a session of that id
     */
    SessionState find(String sessionId);

    /** @param sessionId a session that ended: disconnected, expired or removed */
    void removed(String sessionId);
}
