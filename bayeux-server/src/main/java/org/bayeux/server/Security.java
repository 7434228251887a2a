package org.bayeux.server;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.bayeux.api.ChannelId;
import org.bayeux.api.server.Authorizer;
import org.bayeux.api.server.BayeuxServer;
import org.bayeux.api.server.Authorizer.Operation;
import org.bayeux.api.server.Authorizer.Result;
import org.bayeux.api.server.SecurityPolicy;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.server.internal.Callbacks;

/**
 * Asks the security policy, then the authorizers of a channel and of the wildcard channels that cover it. A
 * failing policy or authorizer is logged and counts as a refusal.
 */
final class Security {
    /** The default policy: allow what the protocol allows. */
    static final SecurityPolicy ALLOW_ALL = new SecurityPolicy() {
    };

    private final BayeuxServer server;
    private final ChannelRegistry channels;
    private volatile SecurityPolicy policy = ALLOW_ALL;

    /**
     * @param server the application's server, handed to the policy
     * @param channels where the authorizers of a channel and its wildcards are found
     */
    Security(BayeuxServer server, ChannelRegistry channels) {
        this.server = server;
        this.channels = channels;
    }

    SecurityPolicy policy() {
        return policy;
    }

    void setPolicy(SecurityPolicy policy) {
        this.policy = policy == null ? ALLOW_ALL : policy;
    }

    CompletionStage<Boolean> canHandshake(ServerSessionImpl session, ServerMessage message) {
        SecurityPolicy current = policy;
        return Callbacks.ask(current, promise -> current.canHandshake(server, session, message, promise), Boolean.FALSE);
    }

    /**
     * @return null if allowed, otherwise the reason (the channel name when the policy refused)
     */
    CompletionStage<String> canCreate(ServerSessionImpl session, ChannelId channel, ServerMessage message) {
        SecurityPolicy current = policy;
        return Callbacks.ask(current, promise -> current.canCreate(server, session, channel, message, promise), Boolean.FALSE)
                .thenCompose(allowed -> allowed
                        ? authorize(Operation.CREATE, channel, session, message)
                        : CompletableFuture.completedFuture(channel.name()));
    }

    /**
     * @return null if allowed, otherwise the reason
     */
    CompletionStage<String> canSubscribe(ServerSessionImpl session, ServerChannelImpl channel, ServerMessage message) {
        SecurityPolicy current = policy;
        return Callbacks.ask(current, promise -> current.canSubscribe(server, session, channel, message, promise), Boolean.FALSE)
                .thenCompose(allowed -> allowed
                        ? authorize(Operation.SUBSCRIBE, channel.getChannelId(), session, message)
                        : CompletableFuture.completedFuture(channel.getId()));
    }

    /**
     * @return null if allowed, otherwise the reason
     */
    CompletionStage<String> canPublish(ServerSessionImpl session, ServerChannelImpl channel, ServerMessage message) {
        SecurityPolicy current = policy;
        return Callbacks.ask(current, promise -> current.canPublish(server, session, channel, message, promise), Boolean.FALSE)
                .thenCompose(allowed -> allowed
                        ? authorize(Operation.PUBLISH, channel.getChannelId(), session, message)
                        : CompletableFuture.completedFuture(channel.getId()));
    }

    /**
     * Combines the authorizers of a channel and of the wildcards covering it: none at all allows; otherwise one
     * deny refuses, and at least one grant is needed.
     *
     * @return null if allowed, otherwise the reason
     */
    private CompletionStage<String> authorize(Operation operation, ChannelId channel, ServerSessionImpl session,
            ServerMessage message) {
        List<Authorizer> authorizers = new ArrayList<>();
        for (ServerChannelImpl covering : channels.covering(channel)) {
            authorizers.addAll(covering.authorizers());
        }
        if (authorizers.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        CompletionStage<Decision> decision = CompletableFuture.completedFuture(new Decision());
        for (Authorizer authorizer : authorizers) {
            decision = decision.thenCompose(sofar -> sofar.denial != null ? CompletableFuture.completedFuture(sofar)
                    : Callbacks.<Result>ask(authorizer,
                            promise -> authorizer.authorize(operation, channel, session, message, promise),
                            Result.deny("authorizer_failed")).thenApply(sofar::add));
        }
        return decision.thenApply(Decision::reason);
    }

    private static final class Decision {
        private boolean granted;
        private String denial;

        Decision add(Result result) {
            if (result.isDenied()) {
                denial = result.reason();
            } else if (result.isGranted()) {
                granted = true;
            }
            return this;
        }

        String reason() {
            if (denial != null) {
                return denial;
            }
            return granted ? null : "not_granted";
        }
    }
}
