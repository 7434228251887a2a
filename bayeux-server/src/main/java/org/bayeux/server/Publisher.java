package org.bayeux.server;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.bayeux.api.ChannelId;
import org.bayeux.api.Message;
import org.bayeux.api.server.ChannelMessageListener;
import org.bayeux.server.internal.Callbacks;

/**
 * The path of a published message once it is allowed: channel listeners (which may change or veto it), outgoing
 * server extensions, freeze, then fan-out to every subscriber of the channel and of its wildcard ancestors, each
 * session once.
 */
final class Publisher {
    private static final CompletionStage<Boolean> TRUE = CompletableFuture.completedFuture(Boolean.TRUE);
    private static final CompletionStage<Boolean> FALSE = CompletableFuture.completedFuture(Boolean.FALSE);

    private final ChannelRegistry channels;
    private final ExtensionChain extensions;
    private final ClusterSeam cluster;
    private final EngineStatistics statistics;

    /**
     * @param channels where the channel's wildcard ancestors are found
     * @param extensions the server extensions to run on the way out
     * @param cluster where a message leaves this node
     */
    Publisher(ChannelRegistry channels, ExtensionChain extensions, ClusterSeam cluster, EngineStatistics statistics) {
        this.statistics = statistics;
        this.channels = channels;
        this.extensions = extensions;
        this.cluster = cluster;
    }

    /**
     * @param sender the publishing session, or null
     * @param channel the channel, not a wildcard
     * @param message the message; becomes frozen and shared
     * @return true if the message was delivered to the subscribers (possibly none), false if it was dropped
     */
    CompletionStage<Boolean> publish(ServerSessionImpl sender, ServerChannelImpl channel, ServerMessageImpl message) {
        ChannelId id = channel.getChannelId();
        if (id.isWildcard() || id.isMeta()) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("Cannot publish to " + id));
        }
        if (!message.containsKey(Message.DATA_FIELD)) {
            message.setData(null);
        }
        List<ServerChannelImpl> matching = channels.matching(id);
        CompletionStage<Boolean> listened = CompletableFuture.completedFuture(Boolean.TRUE);
        for (ServerChannelImpl target : matching) {
            for (ChannelMessageListener listener : target.messageListeners()) {
                listened = listened.thenCompose(goOn -> goOn
                        ? Callbacks.<Boolean>ask(listener, promise -> listener.onMessage(sender, channel, message, promise),
                                Boolean.TRUE)
                        : CompletableFuture.completedFuture(Boolean.FALSE));
            }
        }
        return listened
                .thenCompose(goOn -> {
                    if (!goOn) {
                        return CompletableFuture.completedFuture(Boolean.FALSE);
                    }
                    // Listeners (services) see the request as sent. Subscribers must not: the clientId is a
                    // credential, and the id would complete another client's remote call.
                    message.remove(Message.CLIENT_ID_FIELD);
                    message.remove(Message.ID_FIELD);
                    return extensions.outgoing(sender, null, message);
                })
                .thenCompose(goOn -> {
                    if (!goOn) {
                        return FALSE;
                    }
                    if (channel.isLazy()) {
                        message.setLazy(true);
                    }
                    message.freeze();
                    if (!cluster.forwards(id)) {
                        fanOut(sender, channel, matching, message);
                        return TRUE;
                    }
                    if (cluster.deliversLocalPublishes()) {
                        fanOut(sender, channel, matching, message);
                    }
                    // The one way out of this node: after listeners, extensions and freeze.
                    return cluster.publish(id, message, sender == null ? null : sender.getId());
                });
    }

    /**
     * Delivers a message that came from the cluster to this node's subscribers: no listener or server extension runs
     * again (they ran where it was published), and it never goes back to the cluster.
     *
     * @param id the message's channel, not a wildcard, meta or service channel
     * @param message the message, frozen
     */
    void deliverFromCluster(ChannelId id, ServerMessageImpl message) {
        List<ServerChannelImpl> matching = channels.matching(id);
        statistics.published(fanOut(null, false, false, matching, message));
    }

    private void fanOut(ServerSessionImpl sender, ServerChannelImpl channel, List<ServerChannelImpl> matching,
            ServerMessageImpl message) {
        boolean toPublisher = sender != null && sender.isBroadcastToPublisher() && channel.isBroadcastToPublisher();
        // One update per publish, whatever the number of subscribers.
        statistics.published(fanOut(sender, channel.isService(), toPublisher, matching, message));
    }

    /** @return how many sessions the message was queued for */
    private static int fanOut(ServerSessionImpl sender, boolean service, boolean toPublisher,
            List<ServerChannelImpl> matching, ServerMessageImpl message) {
        int delivered = 0;
        ServerChannelImpl only = null;
        int withSubscribers = 0;
        int subscriberCount = 0;
        for (ServerChannelImpl target : matching) {
            int count = target.subscribers().size();
            if (count > 0) {
                only = target;
                withSubscribers++;
                subscriberCount += count;
            }
        }
        if (withSubscribers == 0) {
            return 0;
        }
        if (withSubscribers == 1) {
            // The common case (no wildcard subscriber): no set is needed to deliver each session once.
            for (ServerSessionImpl subscriber : only.subscribers()) {
                if (deliver(sender, subscriber, message, service, toPublisher)) {
                    delivered++;
                }
            }
            return delivered;
        }
        Set<ServerSessionImpl> reached = new HashSet<>(Math.max(16, subscriberCount * 4 / 3 + 1));
        for (ServerChannelImpl target : matching) {
            for (ServerSessionImpl subscriber : target.subscribers()) {
                if (reached.add(subscriber) && deliver(sender, subscriber, message, service, toPublisher)) {
                    delivered++;
                }
            }
        }
        return delivered;
    }

    private static boolean deliver(ServerSessionImpl sender, ServerSessionImpl subscriber, ServerMessageImpl message,
            boolean service, boolean toPublisher) {
        if (subscriber == sender && !toPublisher) {
            return false;
        }
        if (service && !subscriber.isLocalSession()) {
            return false;
        }
        subscriber.enqueue(sender, message);
        return true;
    }
}
