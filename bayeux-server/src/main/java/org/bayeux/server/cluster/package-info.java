/**
 * The cluster SPI: how an engine joins other nodes.
 *
 * <p>A {@link org.bayeux.server.cluster.Cluster} (Oort's mesh, a Redis backplane) gets every message published on
 * this node through its one way out, {@link org.bayeux.server.cluster.Cluster#publish}, and hands messages from other
 * nodes to its one way in, {@link org.bayeux.server.cluster.ClusterNode#deliver}; it reports membership to the engine,
 * which tells {@link org.bayeux.server.cluster.ClusterListener}s once per member. Sessions' durable state goes through
 * a {@link org.bayeux.server.cluster.SessionStore}.</p>
 *
 * <p>{@link org.bayeux.server.cluster.Presence} is the one seam for "who is here": which sessions are subscribed to a
 * plain channel across the cluster, which users are tied to sessions, who joined and left. An application reads it
 * from {@link org.bayeux.server.BayeuxEngine#presence()} and never asks which cluster it runs on: a single node answers
 * from its own channels ({@link org.bayeux.server.cluster.SingleNodePresence}); a cluster answers across its nodes
 * ({@link org.bayeux.server.cluster.Cluster#presence()}: Oort replicates the nodes' lists over its mesh, the Redis
 * backplane keeps entries in Redis with expiry). {@link org.bayeux.server.cluster.UserTies} and
 * {@link org.bayeux.server.cluster.PresenceListeners} are what the implementations share: one node's ties of users to
 * sessions, and the listeners told of events.</p>
 */
package org.bayeux.server.cluster;
