package org.bayeux.server;

import java.security.SecureRandom;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.api.server.ServerSession.State;

/**
 * The live sessions of a server by id, the ids themselves, and the sweep that removes expired sessions. It also
 * remembers, for a while, the sessions that their clients disconnected: see {@link #sentBeforeDisconnect}.
 */
final class SessionRegistry {
    private static final char[] ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz".toCharArray();
    /** 26 base-36 characters hold more than 134 random bits. */
    private static final int ID_LENGTH = 26;
    /** Bounds the memory of {@link #sentBeforeDisconnect}; past it, late connects get the unknown-session error. */
    static final int MAX_REMEMBERED_DISCONNECTS = 10_000;

    private final BayeuxServerImpl server;
    private final ConcurrentHashMap<String, ServerSessionImpl> sessions = new ConcurrentHashMap<>();
    private final SecureRandom random = new SecureRandom();
    /** Sessions lately ended by their client's /meta/disconnect, by session id. */
    private final ConcurrentHashMap<String, Disconnect> disconnects = new ConcurrentHashMap<>();

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
        // Remembered before the session ends, so that no connect can find it ended and not yet remembered.
        Disconnect disconnect = rememberDisconnect(session, message, endState);
        if (!session.end(endState, tellClient)) {
            if (disconnect != null) {
                disconnects.remove(session.getId(), disconnect);
            }
            return false;
        }
        sessions.remove(session.getId(), session);
        for (ServerChannelImpl channel : List.copyOf(session.subscriptions())) {
            channel.unsubscribe(session, null);
        }
        boolean expired = endState == State.EXPIRED;
        session.notifyRemoved(message, expired);
        server.notifySessionRemoved(session, message, expired);
        return true;
    }

    private Disconnect rememberDisconnect(ServerSessionImpl session, ServerMessage message, State endState) {
        long order = message == null ? -1 : sendingOrder(message.getId());
        if (order < 0 || endState != State.DISCONNECTED || disconnects.size() >= MAX_REMEMBERED_DISCONNECTS) {
            return null;
        }
        Disconnect disconnect = new Disconnect(order,
                System.nanoTime() + server.getConfig().maxInterval().toNanos());
        disconnects.put(session.getId(), disconnect);
        return disconnect;
    }

    /**
     * Whether a message of a session that is gone was sent before the client's own {@code /meta/disconnect} of it,
     * within maxInterval. A connect sent just before a disconnect may reach the server after it, on another
     * connection; answered with an error, it makes clients such as CometD's fail their pending disconnect. Clients
     * number their messages in sending order, in decimal (CometD) or base 36 (Faye), so a smaller id was sent
     * earlier; ids in any other form are never taken as sent before.
     *
     * @param clientId the session id of the message, or null
     * @param messageId the message's id, or null
     * @return true if the session was ended by its client's disconnect lately, and the message was sent before it
     */
    boolean sentBeforeDisconnect(String clientId, String messageId) {
        Disconnect disconnect = clientId == null ? null : disconnects.get(clientId);
        if (disconnect == null || disconnect.rememberedUntilNanos - System.nanoTime() <= 0) {
            return false;
        }
        long order = sendingOrder(messageId);
        return order >= 0 && order < disconnect.order;
    }

    /** @return the id read as a base-36 number, which orders decimal ids too; -1 if it is not one */
    private static long sendingOrder(String messageId) {
        if (messageId == null || messageId.isEmpty() || messageId.length() > 12 || messageId.charAt(0) == '0') {
            return -1;
        }
        for (int i = 0; i < messageId.length(); i++) {
            if (Character.digit(messageId.charAt(i), 36) < 0) {
                return -1;
            }
        }
        return Long.parseLong(messageId, 36);
    }

    void sweep() {
        long now = System.nanoTime();
        disconnects.values().removeIf(disconnect -> disconnect.rememberedUntilNanos - now <= 0);
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
        disconnects.clear();
    }

    /** A client's disconnect: its message id as a number, and until when it is remembered. */
    private record Disconnect(long order, long rememberedUntilNanos) {
    }
}
