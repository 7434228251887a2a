package org.bayeux.api.server;

import java.util.Objects;

import org.bayeux.api.ChannelId;

/**
 * Decides whether a session may read a channel's history, and how far back, when it subscribes with a request to
 * recover what it missed ({@code ext.recovery}, see {@code docs/protocol.md}). Asked on the server that keeps history
 * (the Redis backplane, which takes one in its constructor), after the subscription itself was allowed by the
 * {@link SecurityPolicy} and the channel's {@link Authorizer}s: being allowed to subscribe means receiving what is
 * published from now on, not what was published before.
 *
 * <p>Only channels whose history is turned on (the backplane's {@code historyRules}) ask. The answer applies to that
 * one recovery; the point it counts back from is the session's first recovering subscription to the channel (see
 * {@link HistoryAccess}). A session given {@link HistoryAccess#none()} still learns the channel's position, and its
 * recoveries answer {@code recovered: false}.</p>
 *
 * <p>Called on the thread handling the subscribe: it must not block (look up what it needs at handshake, for example
 * in the session's attributes).</p>
 */
@FunctionalInterface
public interface HistoryAuthorizer {
    /**
     * @param session the subscribing session
     * @param channel the channel, plain (never a wildcard)
     * @param subscribe the subscribe request
     * @return how far back it may read; never null
     */
    HistoryAccess authorize(ServerSession session, ChannelId channel, ServerMessage subscribe);

    /**
     * @param access the reach every session gets
     * @return an authorizer giving every session the same reach
     */
    static HistoryAuthorizer always(HistoryAccess access) {
        Objects.requireNonNull(access, "access");
        return (session, channel, subscribe) -> access;
    }
}
