package org.bayeux.server;

import java.util.AbstractList;
import java.util.function.Supplier;

import org.bayeux.server.config.BayeuxServerConfig;

/**
 * Applies the engine's input limits ({@link Limit}) and counts every refusal. Each check is cheap and comes before
 * the work it protects: a channel name is measured before anything parses it, and a batch is counted while it is
 * parsed.
 *
 * <p>Limits on what a session does (subscriptions, channel creations) apply to remote sessions only: local sessions
 * are the application's own code.</p>
 */
final class Limits {
    private final int maxChannelNameLength;
    private final int maxChannelSegments;
    private final int maxSubscriptionsPerSession;
    private final int maxChannels;
    private final int maxChannelCreationsPerSecond;
    private final int maxMessagesPerBatch;
    private final LimitCounters counters = new LimitCounters();

    Limits(BayeuxServerConfig config) {
        this.maxChannelNameLength = config.get(BayeuxServerConfig.MAX_CHANNEL_NAME_LENGTH);
        this.maxChannelSegments = config.get(BayeuxServerConfig.MAX_CHANNEL_SEGMENTS);
        this.maxSubscriptionsPerSession = config.get(BayeuxServerConfig.MAX_SUBSCRIPTIONS_PER_SESSION);
        this.maxChannels = config.get(BayeuxServerConfig.MAX_CHANNELS);
        this.maxChannelCreationsPerSecond = config.get(BayeuxServerConfig.MAX_CHANNEL_CREATIONS_PER_SECOND);
        this.maxMessagesPerBatch = config.get(BayeuxServerConfig.MAX_MESSAGES_PER_BATCH);
    }

    LimitCounters counters() {
        return counters;
    }

    /**
     * Measures a channel name from a client before anything else reads it: its length at once, then its slashes,
     * reading at most {@code maxChannelNameLength} characters.
     *
     * @param name a channel name, not null
     * @return the limit it breaks (counted), or null
     */
    Limit checkChannelName(String name) {
        if (name.length() > maxChannelNameLength) {
            return hit(Limit.CHANNEL_NAME_LENGTH);
        }
        int segments = 0;
        for (int i = 0; i < name.length(); i++) {
            if (name.charAt(i) == '/' && ++segments > maxChannelSegments) {
                return hit(Limit.CHANNEL_SEGMENTS);
            }
        }
        return null;
    }

    /**
     * @param session the subscribing session
     * @param requested how many channels one subscribe message names
     * @return the subscription limit (counted) if the message alone names more channels than a session may hold
     */
    Limit checkSubscriptionCount(ServerSessionImpl session, int requested) {
        return !session.isLocalSession() && requested > maxSubscriptionsPerSession
                ? hit(Limit.SUBSCRIPTIONS_PER_SESSION) : null;
    }

    /**
     * @param session a session about to subscribe to a channel it is not subscribed to
     * @return the subscription limit (counted) if the session holds as many subscriptions as allowed
     */
    Limit checkNewSubscription(ServerSessionImpl session) {
        return !session.isLocalSession() && session.subscribedChannels().size() >= maxSubscriptionsPerSession
                ? hit(Limit.SUBSCRIPTIONS_PER_SESSION) : null;
    }

    /**
     * Checks, and takes from the session's budget, one channel creation.
     *
     * @param session the session whose message would create a channel
     * @param channels the server's channels
     * @return the limit it breaks (counted), or null
     */
    Limit checkCreation(ServerSessionImpl session, ChannelRegistry channels) {
        if (session.isLocalSession()) {
            return null;
        }
        if (channels.size() >= maxChannels) {
            return hit(Limit.CHANNELS);
        }
        if (!session.settings().creationBudget().take(maxChannelCreationsPerSecond, System.nanoTime())) {
            return hit(Limit.CHANNEL_CREATION_RATE);
        }
        return null;
    }

    /** @return a message factory for one batch that stops the parse past {@code maxMessagesPerBatch} messages */
    BatchCounter newBatchCounter() {
        return new BatchCounter(maxMessagesPerBatch);
    }

    /**
     * @param counter the factory of a batch whose parse it stopped
     * @return the batch to hand to the engine instead: its first message alone, to be answered with the error
     */
    OversizedBatch refuse(BatchCounter counter) {
        hit(Limit.MESSAGES_PER_BATCH);
        return new OversizedBatch(counter.first);
    }

    private Limit hit(Limit limit) {
        counters.hit(limit);
        return limit;
    }

    /** Makes the messages of one batch, and stops the parse when there are too many. */
    static final class BatchCounter implements Supplier<ServerMessageImpl> {
        private final int max;
        private int count;
        private ServerMessageImpl first;

        private BatchCounter(int max) {
            this.max = max;
        }

        @Override
        public ServerMessageImpl get() {
            if (++count > max) {
                throw new BatchLimitExceeded();
            }
            ServerMessageImpl message = new ServerMessageImpl();
            if (first == null) {
                first = message;
            }
            return message;
        }
    }

    /** Stops a parse; thrown once per refused batch, so it carries no stack trace. */
    static final class BatchLimitExceeded extends RuntimeException {
        private static final long serialVersionUID = 1L;

        BatchLimitExceeded() {
            super("too many messages in one batch", null, false, false);
        }
    }

    /**
     * A batch refused for its size: none of its messages is processed, and its first message, complete when the
     * parse stopped, is answered with {@link Limit#MESSAGES_PER_BATCH} for the whole batch.
     */
    static final class OversizedBatch extends AbstractList<ServerMessageImpl> {
        private final ServerMessageImpl first;

        private OversizedBatch(ServerMessageImpl first) {
            this.first = first;
        }

        @Override
        public ServerMessageImpl get(int index) {
            if (index != 0) {
                throw new IndexOutOfBoundsException(index);
            }
            return first;
        }

        @Override
        public int size() {
            return 1;
        }
    }

    /**
     * A session's budget of channel creations: a token bucket that holds one second's worth and refills
     * continuously, so a burst of that size is allowed and a steady flood is not.
     */
    static final class CreationBudget {
        private double tokens = -1;
        private long lastNanos;

        synchronized boolean take(int perSecond, long nowNanos) {
            if (tokens < 0) {
                tokens = perSecond;
            } else {
                tokens = Math.min(perSecond, tokens + (nowNanos - lastNanos) * (perSecond / 1e9));
            }
            lastNanos = nowNanos;
            if (tokens >= 1) {
                tokens -= 1;
                return true;
            }
            return false;
        }
    }
}
