package org.bayeux.server.cluster;

/**
 * Someone joined or left, on some node of the cluster.
 *
 * <ul>
 *   <li>{@code channel} not null: a session subscribed to that plain channel ({@code joined}) or stopped being
 *       subscribed to it (an unsubscribe, the end of the session, or its node gone or no longer heard from).</li>
 *   <li>{@code channel} null: a user became present on a node (its first session there was tied to it,
 *       {@code joined}) or absent from it (its last session there untied or ended, or the node gone); the entry's
 *       session id is then null.</li>
 * </ul>
 *
 * @param channel the plain channel, or null for a user's presence on a node
 * @param entry who, and on which node
 * @param joined true for a join, false for a leave
 */
public record PresenceEvent(String channel, PresenceEntry entry, boolean joined) {
    /**
     * @param node a node id, usually {@link Presence#nodeId()}
     * @return true if the event happened on that node
     */
    public boolean on(String node) {
        return node != null && node.equals(entry.nodeId());
    }
}
