package org.bayeux.server.cluster;

import java.util.Objects;
import java.util.function.Function;

/**
 * The store a single node uses: the live sessions are the state. It keeps nothing of its own, so it costs no memory
 * per session and nothing on any path; {@link #find} looks the session up on this node.
 */
public final class InMemorySessionStore implements SessionStore {
    private final Function<String, ? extends SessionState> liveSessions;

    /**
     * @param liveSessions finds a live session of this node by id, or null
     */
    public InMemorySessionStore(Function<String, ? extends SessionState> liveSessions) {
        this.liveSessions = Objects.requireNonNull(liveSessions, "liveSessions");
    }

    @Override
    public void created(SessionState session) {
    }

    @Override
    public void changed(SessionState session) {
    }

    @Override
    public SessionState find(String sessionId) {
        return sessionId == null ? null : liveSessions.apply(sessionId);
    }

    @Override
    public void removed(String sessionId) {
    }
}
