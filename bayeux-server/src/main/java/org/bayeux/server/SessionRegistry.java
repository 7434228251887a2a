package org.bayeux.server;

import java.security.SecureRandom;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.api.server.ServerSession.State;
import org.bayeux.server.cluster.SessionStore;
import org.bayeux.server.transport.Carrier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The live sessions of a server by id, the ids themselves, and the sweep that removes expired sessions.
 */
final class SessionRegistry {
    private static final Logger LOG = LoggerFactory.getLogger(SessionRegistry.class);
    private static final char[] ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz".toCharArray();
    /** 26 base-36 characters hold more than 134 random bits. */
    private static final int ID_LENGTH = 26;

    private final EngineEvents events;
    private final Supplier<SessionStore> store;
    private final LongAdder foreignClientIds = new LongAdder();
    private final ConcurrentHashMap<String, ServerSessionImpl> sessions = new ConcurrentHashMap<>();
    private final SecureRandom random = new SecureRandom();

    /**
     * @param events told of sessions removed
     * @param store where sessions' durable state goes, the one installed now
     */
    SessionRegistry(EngineEvents events, Supplier<SessionStore> store) {
        this.events = events;
        this.store = store;
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
        SessionStore current = store.get();
        if (current.adopts()) {
            // The generation a fencing store gives every session it creates.
            session.generation(1);
        }
        sessions.put(session.getId(), session);
        current.created(session);
    }

    /**
     * Registers a session this node adopted from the store: it is not created, the store has it already.
     *
     * @param session the rebuilt session
     * @return false if a live session of that id is here already (it is kept, the adopted one is not)
     */
    boolean addAdopted(ServerSessionImpl session) {
        return sessions.putIfAbsent(session.getId(), session) == null;
    }

    ServerSessionImpl get(String id) {
        return id == null ? null : sessions.get(id);
    }

    /**
     * Finds the session a message names, if the carrier it arrived on may act as that session: a local session only
     * through its own in-process carrier, a remote one never through it, and only through a carrier that
     * {@link Carrier#mayCarry(ServerSession) may carry} it; a session pinned to its handshake's carrier only through
     * that one. Anything else is as unknown as a made-up id.
     *
     * @param clientId the message's {@code clientId}, may be null
     * @param carrier what the message arrived on
     * @return the session, or null
     */
    ServerSessionImpl sessionFor(String clientId, Carrier carrier) {
        ServerSessionImpl session = get(clientId);
        if (session == null) {
            return null;
        }
        if (!mayActAs(session, carrier)) {
            foreignClientIds.increment();
            LOG.debug("Refused a message naming session {} on a carrier it does not belong to: {}", clientId, carrier);
            return null;
        }
        return session;
    }

    /**
     * The rule of {@link #sessionFor}, for a session that may not be registered yet (one about to be adopted).
     *
     * @param session a session
     * @param carrier what a message naming it arrived on
     * @return true if the carrier may act as the session
     */
    static boolean mayActAs(ServerSessionImpl session, Carrier carrier) {
        boolean inProcess = carrier instanceof LocalSessionImpl.LocalCarrier;
        Carrier pinned = session.settings().pinnedCarrier();
        if (session.isLocalSession() != inProcess || pinned != null && pinned != carrier
                || !(inProcess || carrier.mayCarry(session))) {
            return false;
        }
        return true;
    }

    /** Counts a message that named a session from a carrier that may not act as it (found here or in the store). */
    void foreignClientId() {
        foreignClientIds.increment();
    }

    /** @return how many messages named a live session from a carrier that may not act as it */
    long foreignClientIdCount() {
        return foreignClientIds.sum();
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
     * @param endState DISCONNECTED, EXPIRED, or MOVED: another node owns the session now, so the store, which is
     *        that node's too, is not told to remove it
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
        if (endState != State.MOVED && !session.isHandedOver()) {
            // A session that moved, or that the draining engine handed over, lives on in the store for its next node.
            store.get().removed(session.getId());
        }
        boolean expired = endState == State.EXPIRED;
        session.notifyRemoved(message, expired);
        events.sessionRemoved(session, message, expired);
        return true;
    }

    /**
     * Ends this node's copy of a session another node owns now: no {@code /meta/disconnect}, no store removal; the
     * removal listeners are told (not expired), and the session's state ({@link State#MOVED}) says why.
     *
     * @param id the session's id
     * @return true if a session of this node was dropped
     */
    boolean moved(String id) {
        ServerSessionImpl session = get(id);
        if (session == null || session.isLocalSession()) {
            return false;
        }
        LOG.debug("Session {} moved to another node", id);
        return remove(session, null, State.MOVED, false);
    }

    /**
     * Undoes an adoption that failed before its session served anything: ends it (MOVED, so that nothing tells the
     * store) and unsubscribes it; nobody was told it existed, so nobody is told it ended.
     *
     * @param session the adopted session
     */
    void discardAdopted(ServerSessionImpl session) {
        if (!session.end(State.MOVED, false)) {
            return;
        }
        sessions.remove(session.getId(), session);
        for (ServerChannelImpl channel : List.copyOf(session.subscribedChannels())) {
            channel.unsubscribe(session, null);
        }
    }

    void sweep() {
        long now = System.nanoTime();
        for (ServerSessionImpl session : sessions.values()) {
            if (session.isExpired(now)) {
                LOG.debug("Session {} expired", session.getId());
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
