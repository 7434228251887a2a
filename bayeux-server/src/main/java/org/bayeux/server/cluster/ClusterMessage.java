package org.bayeux.server.cluster;

import org.bayeux.api.server.ServerMessage;

/**
 * A message published on this node, on its way to the other nodes.
 *
 * @param channel the channel it was published to, never a wildcard or meta channel
 * @param message the message, frozen, without the publisher's {@code clientId} or {@code id}
 * @param json the message as a UTF-8 JSON object, encoded once and shared: never to be changed
 */
public record ClusterMessage(String channel, ServerMessage message, byte[] json) {
}
