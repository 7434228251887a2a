package org.bayeux.server.cluster;

/**
 * Another node of the cluster, as one start of its process: a node that restarts at the same URL is a new member.
 *
 * @param id the node's id for this incarnation, unique in the cluster
 * @param url where the node can be reached, or null if the cluster does not dial nodes (a backplane)
 */
public record ClusterMember(String id, String url) {
}
