package org.bayeux.api.server;

import java.util.Objects;

import org.bayeux.api.ChannelId;
import org.bayeux.api.Promise;

/**
 * Grants, denies or ignores an operation on a channel. Authorizers are added to a channel and also apply to every
 * channel its wildcard covers: an authorizer on {@code /chat/**} is asked about {@code /chat/room1}.
 *
 * <p>When a channel and its wildcard ancestors have no authorizer, the operation is allowed (subject to the
 * {@link SecurityPolicy}). Otherwise it is allowed only if at least one authorizer grants it and none denies it:
 * a single deny wins.</p>
 */
public interface Authorizer {
    /** The operations an authorizer decides on. */
    enum Operation {
        /** Creating a channel. */
        CREATE,
        /** Subscribing to a channel. */
        SUBSCRIBE,
        /** Publishing to a channel. */
        PUBLISH
    }

    /**
     * @param operation the operation
     * @param channel the channel operated on (for a subscription, possibly a wildcard)
     * @param session the session asking
     * @param message the request
     * @param promise completed with the decision
     */
    default void authorize(Operation operation, ChannelId channel, ServerSession session, ServerMessage message,
            Promise<Result> promise) {
        Promise.complete(promise, () -> authorize(operation, channel, session, message));
    }

    /**
     * @param operation the operation
     * @param channel the channel operated on (for a subscription, possibly a wildcard)
     * @param session the session asking
     * @param message the request
     * @return the decision
     */
    Result authorize(Operation operation, ChannelId channel, ServerSession session, ServerMessage message);

    /**
     * An authorizer's decision.
     */
    final class Result {
        private static final Result GRANTED = new Result(Kind.GRANT, null);
        private static final Result IGNORED = new Result(Kind.IGNORE, null);

        private enum Kind { GRANT, DENY, IGNORE }

        private final Kind kind;
        private final String reason;

        private Result(Kind kind, String reason) {
            this.kind = kind;
            this.reason = reason;
        }

        /** @return a decision that allows the operation, unless another authorizer denies it */
        public static Result grant() {
            return GRANTED;
        }

        /** @return a decision that leaves the operation to the other authorizers */
        public static Result ignore() {
            return IGNORED;
        }

        /**
         * @param reason a short token sent to the client in the error string, for example {@code not_a_member}
         * @return a decision that refuses the operation
         */
        public static Result deny(String reason) {
            return new Result(Kind.DENY, Objects.requireNonNullElse(reason, "denied_by_authorizer"));
        }

        /** @return true for {@link #grant()} */
        public boolean isGranted() {
            return kind == Kind.GRANT;
        }

        /** @return true for {@link #deny(String)} */
        public boolean isDenied() {
            return kind == Kind.DENY;
        }

        /** @return the reason of a deny, otherwise null */
        public String reason() {
            return reason;
        }

        @Override
        public String toString() {
            return kind == Kind.DENY ? "deny(" + reason + ")" : kind.name().toLowerCase(java.util.Locale.ROOT);
        }
    }
}
