package org.bayeux.server.cluster;

import java.util.concurrent.CompletionStage;


/**
 * What joins an engine to other nodes: a WebSocket mesh (Oort) or a backplane (Redis). An engine has at most one,
 * {@link org.bayeux.server.BayeuxEngine#setCluster set} before it starts; without one, the engine is a single node
 * and none of this runs.
 *
 * <p>There is one way out and one way in. Every message published on this node, once security, channel listeners and
 * server extensions have allowed it and it is frozen, leaves through {@link #publish(ClusterMessage)} with its
 * encoded bytes. Every message from another node enters through {@link ClusterNode#deliver(byte[])}, reaches this
 * node's subscribers, and is never handed back to {@link #publish}: a message cannot loop, whatever the
 * cluster does.</p>
 */
public interface Cluster {
    /**
     * The engine started: the cluster may now connect to its peers and deliver.
     *
     * @param node the engine, as the cluster sees it
     */
    void start(ClusterNode node);

    /** The engine stops: the cluster leaves its peers and delivers nothing more. */
    void stop();

    /**
     * The engine began to drain ({@code BayeuxEngine#drain}): its clients are about to be handed off to other nodes,
     * and it stops once they are gone. Called once, before any client is told, on the draining thread; may wait a
     * bounded time. By default nothing happens. A mesh leaves its peers here, so that they see this node leave at
     * once, and so that their links into this node are not handed off like clients: that would make this node
     * declare the peers left while they are alive. Delivery to this node's clients through the cluster may end
     * here; what is queued for them is still flushed by the drain.
     */
    default void draining() {
    }

    /**
     * A message published on this node, allowed and frozen. Called once per message, on the publishing thread; must
     * not block.
     *
     * @param message the message and its bytes
     * @return completed with true when the cluster has taken the message (a backplane: stored), after which the
     *         publisher is told it succeeded; completed with false or exceptionally if the cluster could not take
     *         it, and the publisher is told it failed
     */
    CompletionStage<Boolean> publish(ClusterMessage message);

    /**
     * @return true if the engine delivers a message published here to this node's subscribers at once, beside
     *         {@link #publish} (a mesh); false if the cluster delivers it back through
     *         {@link ClusterNode#deliver(byte[])}, here as on every node, so that every node sees one order per
     *         channel (a backplane)
     */
    default boolean deliversLocalPublishes() {
        return true;
    }

    /**
     * Whether this node can take publishes through the cluster now, for a readiness check (a load balancer sends no
     * new clients to a node that answers false). Called from any thread, often; must be cheap and must not block.
     *
     * @return true by default (a mesh publishes locally whatever its peers do); a backplane answers false while it
     *         cannot store publishes (its store out of reach), when they fail with {@code 503::backplane_unavailable}
     */
    default boolean isAvailable() {
        return true;
    }

    /**
     * Who is here across the cluster, which {@link org.bayeux.server.BayeuxEngine#presence()} answers with.
     *
     * @return this cluster's presence, the same object at every call; null by default, when the cluster keeps none
     *         of its own and the engine answers with its single node's ({@link SingleNodePresence})
     */
    default Presence presence() {
        return null;
    }
}
