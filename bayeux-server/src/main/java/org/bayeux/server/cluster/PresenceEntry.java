package org.bayeux.server.cluster;

/**
 * One session somewhere in the cluster, as presence sees it.
 *
 * @param sessionId the session's id (its {@code clientId}), meaningful only on its node; null in a user's event
 *        ({@link PresenceEvent#channel()} null), which is about a user on a node rather than one session
 * @param userId the user the session is tied to ({@link Presence#associate}), or null if it is tied to none (a
 *        session tied to several users names the first one still tied)
 * @param nodeId the node the session is on ({@link Presence#nodeId()} for this one)
 */
public record PresenceEntry(String sessionId, String userId, String nodeId) {
}
