package org.bayeux.server.cluster;

import org.bayeux.api.server.BayeuxServer;

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

    /** @param member a node that joined; told to {@link ClusterListener}s once per member */
    void joined(ClusterMember member);

    /** @param member a node that left; told to {@link ClusterListener}s once, if it had joined */
    void left(ClusterMember member);

    /** @return where sessions' durable state is kept */
    SessionStore sessionStore();
}
