package org.bayeux.server.cluster;

import org.bayeux.api.server.ServerMessage;

/**
 * A message published on this node, on its way to the other nodes.
 *
 * @param channel the channel it was published to, never a wildcard or meta channel
 * @param message the message, frozen, without the publisher's {@code clientId} or {@code id}
 * @param json the message as a UTF-8 JSON object, encoded once and shared: never to be changed
 * @param publisher the id of the session that published it, or null for a publish of the server's own (no session);
 *        a credential: never to be logged or stored as is, and never sent to subscribers. A cluster scopes what is
 *        per publisher by it (the Redis backplane's idempotency keys)
 */
public record ClusterMessage(String channel, ServerMessage message, byte[] json, String publisher) {
    /**
     * A message without a publishing session.
     *
     * @param channel the channel
     * @param message the message
     * @param json its JSON
     */
    public ClusterMessage(String channel, ServerMessage message, byte[] json) {
        this(channel, message, json, null);
    }

    @Override
    public String toString() {
        // The publisher's id is a credential: left out.
        return "ClusterMessage[channel=" + channel + ", " + json.length + " bytes]";
    }
}
