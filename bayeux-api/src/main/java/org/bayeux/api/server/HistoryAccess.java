package org.bayeux.api.server;

import java.time.Duration;
import java.util.Objects;

/**
 * How far back a session may read a channel's history when it recovers missed messages: the answer of a
 * {@link HistoryAuthorizer}. The reach is counted from the session's own first subscription to the channel that asked
 * for recovery (its first subscribe carrying {@code ext.recovery}), in the history store's clock: a session never
 * reads what was published earlier than that, minus the look-back, unless it is given {@link #all()}.
 *
 * <p>Why from the first subscription: a session that could read any history it may subscribe to would read messages
 * published before it existed (a newcomer to a room reading what was said before it joined). What a legitimate client
 * needs after losing its session (a re-handshake after a network cut) is what was published while it was away: a
 * look-back about as long as the longest outage it should recover from.</p>
 */
public final class HistoryAccess {
    private static final HistoryAccess NONE = new HistoryAccess(null, false);
    private static final HistoryAccess SINCE_SUBSCRIBED = new HistoryAccess(Duration.ZERO, false);
    private static final HistoryAccess ALL = new HistoryAccess(null, true);

    /** Null for none and all. */
    private final Duration lookBack;
    private final boolean unbounded;

    private HistoryAccess(Duration lookBack, boolean unbounded) {
        this.lookBack = lookBack;
        this.unbounded = unbounded;
    }

    /** @return no history: the session learns the channel's position, and every recovery it asks is refused */
    public static HistoryAccess none() {
        return NONE;
    }

    /**
     * @return only what was published since the session's first recovering subscription to the channel (gaps of a
     *         live session are recovered; a new session recovers nothing older than itself)
     */
    public static HistoryAccess sinceSubscribed() {
        return SINCE_SUBSCRIBED;
    }

    /**
     * @param lookBack how long before its first recovering subscription to the channel the session may read; zero is
     *        {@link #sinceSubscribed()}
     * @return that reach
     * @throws IllegalArgumentException if the look-back is negative
     */
    public static HistoryAccess lookBack(Duration lookBack) {
        Objects.requireNonNull(lookBack, "lookBack");
        if (lookBack.isNegative()) {
            throw new IllegalArgumentException("negative look-back: " + lookBack);
        }
        return lookBack.isZero() ? SINCE_SUBSCRIBED : new HistoryAccess(lookBack, false);
    }

    /** @return all the history the channel keeps, whenever it was published */
    public static HistoryAccess all() {
        return ALL;
    }

    /** @return false for {@link #none()} */
    public boolean isAllowed() {
        return unbounded || lookBack != null;
    }

    /** @return true for {@link #all()} */
    public boolean isUnbounded() {
        return unbounded;
    }

    /**
     * @return how long before the session's first recovering subscription it may read: zero for
     *         {@link #sinceSubscribed()}; null for {@link #none()} and {@link #all()}
     */
    public Duration lookBack() {
        return lookBack;
    }

    @Override
    public String toString() {
        if (unbounded) {
            return "all";
        }
        return lookBack == null ? "none" : lookBack.isZero() ? "sinceSubscribed" : "lookBack(" + lookBack + ")";
    }
}
