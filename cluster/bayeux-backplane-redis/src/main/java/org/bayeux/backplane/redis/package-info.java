/**
 * A Redis backplane for the engine's cluster SPI: {@link org.bayeux.backplane.redis.RedisBackplane} stores every
 * publish of every node in a Redis stream and delivers from the streams on every node, the publisher's included, so
 * that every node sees one order per channel and a publish is acknowledged only once Redis stored it; it keeps each
 * channel's history with epochs and offsets, recovers what a resubscribing client missed, and tracks presence.
 */
package org.bayeux.backplane.redis;
