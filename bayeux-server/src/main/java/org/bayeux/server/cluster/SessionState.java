package org.bayeux.server.cluster;

import java.time.Duration;
import java.util.Map;
import java.util.Set;

/**
 * What of a session must survive its node for its client to carry on elsewhere with the same {@code clientId}.
 */
public interface SessionState {
    /** @return the session's id, its {@code clientId} */
    String sessionId();

    /** @return the channels (and wildcards) it subscribes to, now */
    Set<String> subscriptions();

    /** @return how many messages the session has handed to its carriers since it was created */
    long deliveryPosition();

    /** @return the last batch number the client acknowledged under the {@code ack} extension, or -1 */
    long ackBatch();

    /**
     * Per plain channel the session subscribes to (not wildcards), the position of the last message of that channel
     * the client is known to have: with the {@code ack} extension, the last one of the batches it acknowledged;
     * without it, the last one handed to the session's carrier (written to its connection, not necessarily
     * received). Only messages that carry a position ({@link ChannelPosition#of}) count; a channel with none yet is
     * absent.
     *
     * @return the positions by channel, unchangeable; empty by default
     */
    default Map<String, ChannelPosition> positions() {
        return Map.of();
    }

    /**
     * @return how long the session lives without a connect from its client ({@code maxInterval}), which bounds how
     *         long its state is worth keeping after its node is gone; null if unknown
     */
    default Duration maxInterval() {
        return null;
    }
    /**
     * @return the fencing token this node holds for the session: 0 for a session no store fences (the in-memory
     *         store), else the generation the store gave at creation (1) or at the last adoption (one more each time)
     */
    default long generation() {
        return 0;
    }

    /**
     * @return the lower-case hex SHA-256 of the browser cookie the session is bound to, or null if it is bound to
     *         none; never the cookie itself, so that a store's reader cannot present it
     */
    default String browserDigest() {
        return null;
    }

    /** @return whether the client has sent its browser cookie back (from then on a carrier without it is refused) */
    default boolean browserCookieShown() {
        return false;
    }

    /**
     * Per plain channel subscribed to, the position the channel had when the subscription took effect on the node
     * that holds it: where a session that has received nothing of the channel yet resumes.
     *
     * @return the positions by channel, unchangeable; empty by default
     */
    default Map<String, ChannelPosition> subscribedAt() {
        return Map.of();
    }

    /**
     * @return whether the application pinned the session to its handshake's carrier
     *         ({@code ClientBindings.pinToHandshakeCarrier}): an adopting node then applies the pin's rule (over HTTP
     *         the handshake's cookie, strictly; a socket never, as its handshake's socket is gone)
     */
    default boolean pinned() {
        return false;
    }

    /** @return whether the session negotiated the {@code ack} extension */
    default boolean acknowledges() {
        return false;
    }

    /** @return the number of the newest delivery batch the session was sent (with {@code ack}: its batch number) */
    default long lastBatch() {
        return 0;
    }

    /**
     * The journal of an {@linkplain #acknowledges() acknowledging} session: for each batch sent and not yet known to
     * be acknowledged, the positions (all channels, cumulative) its client has once it received that batch. Written
     * before each batch leaves; what an adopting node resumes from, given the batch the client says it received.
     *
     * @return by batch number, unchangeable; empty by default
     */
    default java.util.NavigableMap<Long, Map<String, ChannelPosition>> journal() {
        return java.util.Collections.emptyNavigableMap();
    }

    /**
     * @return by journaled batch, the {@code id} of the {@code /meta/connect} it answered, where the store kept one
     *         (see {@link SessionStore#journal(SessionState, long, Map, String)}); empty by default
     */
    default Map<Long, String> journalRequests() {
        return Map.of();
    }

    /**
     * @return the session's attributes the application marked portable ({@code BayeuxServer#addPortableAttribute}),
     *         as strings, unchangeable; restored on the node that adopts it
     */
    default Map<String, String> portableAttributes() {
        return Map.of();
    }

    /** @return the node that last owned the session, or null if unknown */
    default String owner() {
        return null;
    }
}
