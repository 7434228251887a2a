package org.bayeux.server.cluster;

/**
 * Told when other nodes join and leave the cluster: each member {@link #joined} once and {@link #left} at most once,
 * after it joined, whatever the cluster reports twice.
 */
public interface ClusterListener {
    /** @param member a node that joined */
    default void joined(ClusterMember member) {
    }

    /** @param member a node that left: stopped, crashed or unreachable */
    default void left(ClusterMember member) {
    }
}
