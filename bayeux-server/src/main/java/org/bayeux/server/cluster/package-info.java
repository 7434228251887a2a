/**
 * The cluster SPI: how an engine joins other nodes.
 *
 * <p>A {@link org.bayeux.server.cluster.Cluster} (Oort's mesh, a Redis backplane) gets every message published on
 * this node through its one way out, {@link org.bayeux.server.cluster.Cluster#publish}, and hands messages from other
 * nodes to its one way in, {@link org.bayeux.server.cluster.ClusterNode#deliver}; it reports membership to the engine,
 * which tells {@link org.bayeux.server.cluster.ClusterListener}s once per member. Sessions' durable state goes through
 * a {@link org.bayeux.server.cluster.SessionStore}.</p>
 */
package org.bayeux.server.cluster;
