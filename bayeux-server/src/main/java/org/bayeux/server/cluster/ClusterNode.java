package org.bayeux.server.cluster;

import org.bayeux.api.server.BayeuxServer;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;

/**
 * The engine as a {@link Cluster} sees it: where messages from other nodes enter, where membership is reported, and
 * the application's server for the cluster's own services.
 */
public interface ClusterNode {
    /** @return the application's server on this node, for a cluster's own sessions and services */
    BayeuxServer server();

    /**
     * The one way in: delivers a message from another node (or, when the cluster does not
     * {@link Cluster#deliversLocalPublishes deliver local publishes}, from this one through the cluster) to this
     * node's subscribers of its channel and of the wildcards that match it. Channel listeners and server extensions
     * already ran on the node it was published on and do not run again; each receiving session's own extensions do.
     * The message is never handed back to {@link Cluster#publish}.
     *
     * @param json the message, a UTF-8 JSON object with at least a {@code channel}
     * @throws IllegalArgumentException if the bytes are not a message on a channel one can publish to
     */
    void deliver(byte[] json);

    /**
     * Parses a message as {@link #deliver} would, without delivering it: for a cluster that hands the same stored
     * message to many sessions one by one (a recovery after an outage), so that it is parsed and encoded once
     * however many sessions receive it.
     *
     * @param json the message, a UTF-8 JSON object with at least a {@code channel}
     * @return the message, frozen: it can be queued for any number of sessions with {@link #deliverTo}
     * @throws IllegalArgumentException if the bytes are not a message on a channel one can publish to
     */
    ServerMessage parse(byte[] json);

    /**
     * Delivers a message from {@link #parse} as {@link #deliver(byte[])} delivers bytes: for a cluster that must look
     * at a message (its channel, say) before it lets it in, without parsing it twice.
     *
     * @param message a message from {@link #parse}
     * @throws IllegalArgumentException if the message did not come from this node's {@link #parse}
     */
    void deliverParsed(ServerMessage message);

    /**
     * Queues a message from the cluster for one session, as {@link #deliver} does for each subscriber: the session's
     * own extensions and listeners run, channel listeners and server extensions do not (they ran where the message
     * was published). Whether the session subscribes to the message's channel is the caller's business.
     *
     * @param session a session of this node's server
     * @param message a message from {@link #parse}
     * @return true if the message was queued, false if the session ended or one of its extensions dropped it
     * @throws IllegalArgumentException if the session or the message did not come from this node
     */
    boolean deliverTo(ServerSession session, ServerMessage message);

    /** @param member a node that joined; told to {@link ClusterListener}s once per member */
    void joined(ClusterMember member);

    /** @param member a node that left; told to {@link ClusterListener}s once, if it had joined */
    void left(ClusterMember member);

    /** @return where sessions' durable state is kept */
    SessionStore sessionStore();
}
