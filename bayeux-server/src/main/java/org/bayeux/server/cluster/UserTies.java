package org.bayeux.server.cluster;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiConsumer;

import org.bayeux.api.server.ServerSession;
import org.bayeux.api.server.SessionRemovedListener;

/**
 * One node's ties of users to its sessions, for a {@link Presence} implementation: each user's sessions here, and the
 * listener that unties a session when it ends. Guarded by the lock its owner gives, so that the owner can tell other
 * nodes of a user's first or last session in the same critical section as the change.
 */
public final class UserTies {
    private final Object lock;
    private final BiConsumer<String, ServerSession> ended;
    /** Each user's sessions here, and the listener that unties each one when it ends. Guarded by {@link #lock}. */
    private final Map<String, Map<ServerSession, SessionRemovedListener>> users = new LinkedHashMap<>();
    /** Each tied session's users, in the order tied, by session id. Guarded by {@link #lock}. */
    private final Map<String, List<String>> bySession = new HashMap<>();

    /**
     * @param lock what guards the ties; the callbacks of {@link #tie} and {@link #untie} run holding it
     * @param ended called (outside the lock) when a tied session ends: the owner's {@code disassociate}
     */
    public UserTies(Object lock, BiConsumer<String, ServerSession> ended) {
        this.lock = Objects.requireNonNull(lock, "lock");
        this.ended = Objects.requireNonNull(ended, "ended");
    }

    /**
     * Ties a user to a session; if the session has ended meanwhile, unties it again through the owner.
     *
     * @param userId the user
     * @param session a session of this node
     * @param firstHere run under the lock if this is the user's first session here
     * @return true if the tie is new
     */
    public boolean tie(String userId, ServerSession session, Runnable firstHere) {
        Objects.requireNonNull(session, "session");
        SessionRemovedListener onEnded = (removed, message, expired) -> ended.accept(userId, removed);
        synchronized (lock) {
            Map<ServerSession, SessionRemovedListener> sessions = users.computeIfAbsent(userId,
                    u -> new LinkedHashMap<>());
            if (sessions.containsKey(session)) {
                return false;
            }
            sessions.put(session, onEnded);
            bySession.computeIfAbsent(session.getId(), id -> new ArrayList<>(1)).add(userId);
            if (sessions.size() == 1) {
                firstHere.run();
            }
        }
        session.addRemovedListener(onEnded);
        if (session.getState() != null && session.getState().isEnded()) {
            // The session ended before its listener was added: it would never be told.
            ended.accept(userId, session);
        }
        return true;
    }

    /**
     * @param userId a user
     * @param session a session it was tied to
     * @param lastHere run under the lock if this was the user's last session here
     * @return true if they were tied
     */
    public boolean untie(String userId, ServerSession session, Runnable lastHere) {
        SessionRemovedListener onEnded;
        synchronized (lock) {
            Map<ServerSession, SessionRemovedListener> sessions = users.get(userId);
            onEnded = sessions == null ? null : sessions.remove(session);
            if (onEnded == null) {
                return false;
            }
            List<String> tied = bySession.get(session.getId());
            if (tied != null && tied.remove(userId) && tied.isEmpty()) {
                bySession.remove(session.getId());
            }
            if (sessions.isEmpty()) {
                users.remove(userId);
                lastHere.run();
            }
        }
        session.removeRemovedListener(onEnded);
        return true;
    }

    /** @return the users with a session here, sorted */
    public Set<String> userIds() {
        synchronized (lock) {
            return new TreeSet<>(users.keySet());
        }
    }

    /**
     * @param userId a user
     * @return true if it has a session here
     */
    public boolean contains(String userId) {
        synchronized (lock) {
            return users.containsKey(userId);
        }
    }

    /**
     * @param userId a user
     * @return its sessions here, in the order they were tied
     */
    public List<ServerSession> sessionsOf(String userId) {
        synchronized (lock) {
            Map<ServerSession, SessionRemovedListener> sessions = users.get(userId);
            return sessions == null ? List.of() : List.copyOf(sessions.keySet());
        }
    }

    /**
     * @param sessionId a session's id
     * @return the first user still tied to it, or null
     */
    public String userOf(String sessionId) {
        synchronized (lock) {
            List<String> tied = bySession.get(sessionId);
            return tied == null ? null : tied.get(0);
        }
    }
}
