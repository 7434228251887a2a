package org.bayeux.backplane.redis;

/**
 * A session joined or left a channel, on some node of the cluster.
 *
 * @param channel the plain channel subscribed to
 * @param sessionId the session's id (its {@code clientId}), only meaningful on its node
 * @param nodeId the {@link RedisBackplane#nodeId() node} the session is on
 * @param joined true for a join, false for a leave (an unsubscribe, the session's end, or its node's entries
 *        expiring because the node stopped refreshing them)
 */
public record PresenceEvent(String channel, String sessionId, String nodeId, boolean joined) {
}
