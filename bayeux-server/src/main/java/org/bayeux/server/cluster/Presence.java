package org.bayeux.server.cluster;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionStage;

import org.bayeux.api.server.ServerSession;

/**
 * Who is here: the sessions subscribed to each plain channel, the users tied to sessions, and who joins and leaves,
 * on this node alone or across the cluster, whichever the engine runs
 * ({@link org.bayeux.server.BayeuxEngine#presence()}).
 *
 * <pre>{@code
 * Presence presence = engine.presence();
 * presence.associate("alice", session);                 // at handshake, once the application knows the user
 * presence.members("/chat/room/lobby")                  // who is in the room, on every node
 *         .thenAccept(entries -> entries.forEach(entry -> use(entry.userId(), entry.nodeId())));
 * presence.addListener(event -> { if (event.joined()) greet(event.entry()); });
 * }</pre>
 *
 * <p>Channel presence is kept for every plain (not wildcard, not meta, not service) channel and every session of the
 * engine, the server's own local sessions included. A user is present while at least one session is tied to it; a
 * tie ends with {@link #disassociate} or with its session. Reads that a cluster answers from elsewhere (a backplane
 * asks its store) complete later, and fail while that store is out of reach; a node alone answers at once.</p>
 */
public interface Presence {
    /** Told of every join and leave, on every node. Must not block; one that throws is logged, and the others told. */
    @FunctionalInterface
    interface Listener {
        /** @param event who joined or left */
        void presence(PresenceEvent event);
    }

    /** @return this node's id in entries and events (a cluster's node may get a new one when it rejoins) */
    String nodeId();

    /**
     * @param channel a plain channel
     * @return the sessions subscribed to it now, on every node, each once
     */
    CompletionStage<List<PresenceEntry>> members(String channel);

    /** @return the users present now, on any node, each once, sorted */
    CompletionStage<Set<String>> userIds();

    /**
     * @param userId a user
     * @return whether it is tied to a session on some node now
     */
    CompletionStage<Boolean> isPresent(String userId);

    /**
     * Ties a user to a session of this node, until the session ends or {@link #disassociate} is called.
     *
     * @param userId the user, a non-empty string
     * @param session a session of this node
     * @return true if the tie is new
     * @throws IllegalArgumentException if the user id is empty, or longer than the implementation takes
     */
    boolean associate(String userId, ServerSession session);

    /**
     * @param userId a user
     * @param session a session it was tied to
     * @return true if they were tied
     */
    boolean disassociate(String userId, ServerSession session);

    /** @param listener told of joins and leaves from now on */
    void addListener(Listener listener);

    /** @param listener a listener added before */
    void removeListener(Listener listener);
}
