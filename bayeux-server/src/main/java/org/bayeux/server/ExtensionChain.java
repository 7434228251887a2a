package org.bayeux.server;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.bayeux.api.server.ServerExtension;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.SessionExtension;
import org.bayeux.server.internal.CallbackList;
import org.bayeux.server.internal.Callbacks;

/**
 * Runs extensions in their documented order: incoming, server-wide then the session's; outgoing, server-wide then
 * the receiving session's. A failing extension is logged and taken as not having acted.
 */
final class ExtensionChain {
    private final CallbackList<ServerExtension> extensions = new CallbackList<>();

    void add(ServerExtension extension) {
        extensions.add(extension);
    }

    void remove(ServerExtension extension) {
        extensions.remove(extension);
    }

    List<ServerExtension> list() {
        return extensions.snapshot();
    }

    /**
     * @param session the sending session, or null (handshake, unknown client)
     * @param message the incoming message
     * @return false if an extension dropped it
     */
    CompletionStage<Boolean> incoming(ServerSessionImpl session, ServerMessageImpl message) {
        CompletionStage<Boolean> serverWide = Callbacks.allAgree(extensions.list(),
                (extension, promise) -> extension.incoming(session, message, promise));
        if (session == null || session.callbacks().extensions().isEmpty()) {
            return serverWide;
        }
        return serverWide.thenCompose(keep -> keep
                ? Callbacks.<SessionExtension>allAgree(session.callbacks().extensions(),
                        (extension, promise) -> extension.incoming(session, message, promise))
                : CompletableFuture.completedFuture(false));
    }

    /**
     * Runs the server-wide outgoing extensions on a message about to be delivered or broadcast.
     *
     * @param sender the session it is from, or null
     * @param receiver the receiving session, or null for a broadcast
     * @param message the message, not yet frozen
     * @return false if an extension dropped it
     */
    CompletionStage<Boolean> outgoing(ServerSessionImpl sender, ServerSessionImpl receiver, ServerMessageImpl message) {
        if (extensions.isEmpty()) {
            return CompletableFuture.completedFuture(true);
        }
        return Callbacks.allAgree(extensions.list(),
                (extension, promise) -> extension.outgoing(sender, receiver, message, promise));
    }

    /**
     * Runs the outgoing extensions, server-wide then the session's, on a reply to the session.
     *
     * @param receiver the session replied to, or null for a failed handshake or an unknown client
     * @param reply the reply, not yet frozen
     * @return false if an extension dropped it
     */
    CompletionStage<Boolean> reply(ServerSessionImpl receiver, ServerMessageImpl reply) {
        CompletionStage<Boolean> serverWide = outgoing(receiver, receiver, reply);
        if (receiver == null || receiver.callbacks().extensions().isEmpty()) {
            return serverWide;
        }
        return serverWide.thenApply(keep -> keep && sessionReply(receiver, reply));
    }

    private static boolean sessionReply(ServerSessionImpl receiver, ServerMessageImpl reply) {
        for (SessionExtension extension : receiver.callbacks().extensions()) {
            if (reply.isMeta()) {
                if (!Callbacks.test(extension, () -> extension.sendMeta(receiver, reply), true)) {
                    return false;
                }
                continue;
            }
            ServerMessage[] result = {reply};
            Callbacks.run(extension, () -> result[0] = extension.send(receiver, reply));
            if (result[0] == null) {
                return false;
            }
            if (result[0] != reply) {
                reply.clear();
                reply.putAll(result[0]);
            }
        }
        return true;
    }
}
