package org.bayeux.server;

import java.security.SecureRandom;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.api.server.ServerSession.State;

/**
 * The live sessions of a server by id, the ids themselves, and the sweep that removes expired sessions.
 */
final class SessionRegistry {
    private static final char[] ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz".toCharArray();
    /** 26 base-36 characters hold more than 134 random bits. */
    private static final int ID_LENGTH = 26;

    private final BayeuxServerImpl server;
    private final ConcurrentHashMap<String, ServerSessionImpl> sessions = new ConcurrentHashMap<>();
    private final SecureRandom random = new SecureRandom();

    SessionRegistry(BayeuxServerImpl server) {
        this.server = server;
    }

    /**
     * @param hint a word for local sessions' ids, or null
     * @return a new random alphanumeric id, never used before
     */
    String newId(String hint) {
        char[] id = new char[ID_LENGTH];
        byte[] bytes = new byte[ID_LENGTH];
        random.nextBytes(bytes);
        for (int i = 0; i < ID_LENGTH; i++) {
            id[i] = ALPHABET[(bytes[i] & 0xFF) % ALPHABET.length];
        }
        String random = new String(id);
        if (hint != null && !hint.isEmpty()) {
            String clean = hint.replaceAll("[^A-Za-z0-9]", "");
            return clean.isEmpty() ? random : clean + random;
        }
        return random;
    }

    void add(ServerSessionImpl session) {
        sessions.put(session.getId(), session);
        server.sessionStore().created(session);
    }

    ServerSessionImpl get(String id) {
        return id == null ? null : sessions.get(id);
    }

    Collection<ServerSession> all() {
        return List.copyOf(sessions.values());
    }

    int size() {
        return sessions.size();
    }

    /**
     * Ends and removes a session: unsubscribes it everywhere and tells the listeners. Safe to call twice.
     *
     * @param session the session
     * @param message the disconnect request, or null
     * @param endState DISCONNECTED or EXPIRED
     * @param tellClient whether the client should receive a {@code /meta/disconnect}
     * @return true if this call ended the session
     */
    boolean remove(ServerSessionImpl session, ServerMessage message, State endState, boolean tellClient) {
        if (!session.end(endState, tellClient)) {
            return false;
        }
        sessions.remove(session.getId(), session);
        for (ServerChannelImpl channel : List.copyOf(session.subscribedChannels())) {
            channel.unsubscribe(session, null);
        }
        server.sessionStore().removed(session.getId());
        boolean expired = endState == State.EXPIRED;
        session.notifyRemoved(message, expired);
        server.notifySessionRemoved(session, message, expired);
        return true;
    }

    void sweep() {
        long now = System.nanoTime();
        for (ServerSessionImpl session : sessions.values()) {
            if (session.isExpired(now)) {
                server.logger().debug("Session {} expired", session.getId());
                remove(session, null, State.EXPIRED, false);
            }
        }
    }

    void removeAll() {
        for (ServerSessionImpl session : sessions.values()) {
            remove(session, null, State.DISCONNECTED, false);
        }
    }
}
