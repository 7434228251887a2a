/**
 * A Redis backplane for the engine's cluster SPI: {@link org.bayeux.backplane.redis.RedisBackplane} stores every
 * publish of every node in a Redis stream and delivers from the streams on every node, the publisher's included, so
 * that every node sees one order per channel and a publish is acknowledged only once Redis stored it; it keeps each
 * channel's history with epochs and offsets, recovers what a resubscribing client missed, and tracks presence.
 *
 * <p>Failover ({@code docs/cluster.md}, "Failover"): {@link org.bayeux.backplane.redis.RedisSessionStore} keeps each
 * session in a hash ({@code SessionHash}) whose every write is a script fenced on owner and generation
 * ({@code SessionScripts}), holds the node's lease ({@code NodeLease}), asks a live owner to let a session go over
 * PUB/SUB ({@code OwnerControl}); {@code RecoveryExtension} resumes an adopted session's channels from the failover
 * history. Redis's own failover: Sentinel URIs ({@code RedisEndpoint}), publishes acknowledged after {@code WAIT}
 * ({@code ReplicaAcknowledgement}), and a new epoch for a channel whose offsets a promotion reused
 * ({@code Promotions}).</p>
 */
package org.bayeux.backplane.redis;
