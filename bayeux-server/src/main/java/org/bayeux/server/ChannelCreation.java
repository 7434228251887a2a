package org.bayeux.server;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.bayeux.api.ChannelId;

/**
 * Where a client's subscribe or publish creates a channel: the creation limits, then the security policy, then the
 * registry's atomic creation.
 */
final class ChannelCreation {
    private final ChannelRegistry channels;
    private final Limits limits;
    private final Security security;

    ChannelCreation(ChannelRegistry channels, Limits limits, Security security) {
        this.channels = channels;
        this.limits = limits;
        this.security = security;
    }

    /**
     * @param session the requesting session
     * @param id the channel
     * @param request the subscribe or publish
     * @param reply marked failed with the limit's error when a limit refuses the creation
     * @return the channel, created if absent and allowed; null if its creation was refused
     */
    CompletionStage<ServerChannelImpl> channelFor(ServerSessionImpl session, ChannelId id, ServerMessageImpl request,
            ServerMessageImpl reply) {
        ServerChannelImpl existing = channels.get(id.name());
        if (existing != null) {
            return CompletableFuture.completedFuture(existing);
        }
        Limit limit = limits.checkCreation(session, channels);
        if (limit != null) {
            Outcome.fail(reply, limit);
            return CompletableFuture.completedFuture(null);
        }
        return security.canCreate(session, id, request)
                .thenApply(denial -> denial == null ? channels.createIfAbsent(id) : null);
    }
}
