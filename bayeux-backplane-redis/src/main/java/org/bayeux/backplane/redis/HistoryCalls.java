package org.bayeux.backplane.redis;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import org.bayeux.server.cluster.ClusterMessage;
import org.bayeux.server.cluster.ClusterUnavailableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's calls of {@link HistoryStore}'s two scripts: publishes, bounded in number
 * ({@link RedisBackplaneConfig#MAX_PENDING_PUBLISHES}) and in time ({@link RedisBackplaneConfig#OPERATION_TIMEOUT}),
 * and recoveries, bounded in time; both fail with {@code 503::backplane_unavailable} when Redis cannot answer.
 */
final class HistoryCalls {
    private static final Logger LOG = LoggerFactory.getLogger(HistoryCalls.class);

    private final RedisBackplaneConfig config;
    private final StreamShards shards;
    private final HistoryRules history;
    private final AtomicInteger pendingPublishes = new AtomicInteger();

    HistoryCalls(RedisBackplaneConfig config, StreamShards shards) {
        this.config = config;
        this.shards = shards;
        this.history = new HistoryRules(HistoryRules.parse(config.historyRules()), config.historySize(),
                config.historyAge());
    }

    /**
     * @param connection the publishing connection, or null while there is none
     * @param message the message to store
     * @return completes with true once Redis stored it; fails with a {@link ClusterUnavailableException} if Redis is
     *         away, too slow, or too many publishes already wait for it
     */
    CompletionStage<Boolean> publish(RedisLink.Connection connection, ClusterMessage message) {
        if (connection == null || !connection.isOpen()) {
            return CompletableFuture.failedFuture(unavailable("not connected to Redis", null));
        }
        if (pendingPublishes.incrementAndGet() > config.maxPendingPublishes()) {
            pendingPublishes.decrementAndGet();
            return CompletableFuture.failedFuture(unavailable(config.maxPendingPublishes()
                    + " publishes already wait for Redis", null));
        }
        CompletableFuture<?> append;
        CompletableFuture<?> stored;
        try {
            append = append(connection, message);
            stored = append.copy().orTimeout(config.operationTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (RuntimeException rejected) {
            append = null;
            stored = CompletableFuture.failedFuture(rejected);
        }
        CompletableFuture<?> command = append;
        return stored.handle((id, failure) -> {
            pendingPublishes.decrementAndGet();
            if (failure != null) {
                if (command != null) {
                    // A command still queued in Lettuce (written to a connection that died) would be sent again
                    // after the reconnect: cancelled, it is not, and a publish told it failed is not stored later.
                    command.cancel(false);
                }
                Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure;
                LOG.debug("Redis backplane could not store a publish to {}: {}", message.channel(), cause.toString());
                throw unavailable(cause instanceof TimeoutException
                        ? "Redis did not store the message within " + config.operationTimeout() : cause.toString(),
                        cause);
            }
            return Boolean.TRUE;
        });
    }

    /**
     * Stores the message by the {@link HistoryStore#PUBLISH publish script}: its channel's next offset, its history,
     * its shard's fan-out stream; with an idempotency key, only if the key is not remembered yet, and remembers it for
     * {@link RedisBackplaneConfig#IDEMPOTENCY_WINDOW}.
     */
    private CompletableFuture<?> append(RedisLink.Connection connection, ClusterMessage message) {
        String channel = message.channel();
        String idempotencyKey = idempotencyKeyOf(message);
        String[] keys = idempotencyKey == null
                ? new String[] {shards.metaKeyOf(channel), shards.historyKeyOf(channel), shards.keyOf(channel)}
                : new String[] {shards.metaKeyOf(channel), shards.historyKeyOf(channel), shards.keyOf(channel),
                    shards.idempotencyKeyOf(channel, idempotencyKey)};
        HistoryRules.Rule rule = history.ruleFor(channel);
        return HistoryStore.publish(connection, keys, message.json(), ascii(config.streamMaxLength()),
                ascii(rule.size()), ascii(rule.age().toMillis()), ascii(config.historyMetaTtl().toMillis()),
                HistoryStore.ascii(HistoryStore.newEpoch()), ascii(config.idempotencyWindow().toMillis()));
    }

    /**
     * Reads what a subscriber missed on a channel since its position, by the {@link HistoryStore#RECOVER recover
     * script}; also tells a subscriber without a position the channel's current one.
     *
     * @param connection the publishing connection, or null while there is none
     * @param channel a plain channel
     * @param offset the last offset the subscriber has, or -1 for none
     * @param epoch the epoch of that offset, or "" for none
     * @return what Redis has; failed with a {@link ClusterUnavailableException} if Redis is away
     */
    CompletableFuture<HistoryStore.Recovered> recover(RedisLink.Connection connection, String channel, long offset,
            String epoch) {
        if (connection == null || !connection.isOpen()) {
            return CompletableFuture.failedFuture(unavailable("not connected to Redis", null));
        }
        HistoryRules.Rule rule = history.ruleFor(channel);
        try {
            return HistoryStore.recover(connection, new String[] {shards.metaKeyOf(channel),
                shards.historyKeyOf(channel)}, ascii(offset), HistoryStore.ascii(epoch),
                    ascii(config.recoveryMaxMessages()), ascii(rule.age().toMillis()),
                    HistoryStore.ascii(HistoryStore.newEpoch()), ascii(config.historyMetaTtl().toMillis()))
                    .orTimeout(config.operationTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (RuntimeException rejected) {
            return CompletableFuture.failedFuture(rejected);
        }
    }

    /**
     * @return the publish's {@code ext.idempotencyKey}, or null if it has none or one that is not a string of 1 to
     *         {@value RedisBackplane#MAX_IDEMPOTENCY_KEY_LENGTH} characters (then ignored)
     */
    static String idempotencyKeyOf(ClusterMessage message) {
        Map<String, Object> ext = message.message().getExt();
        Object key = ext == null ? null : ext.get(RedisBackplane.IDEMPOTENCY_KEY_FIELD);
        if (key instanceof String && !((String) key).isEmpty()
                && ((String) key).length() <= RedisBackplane.MAX_IDEMPOTENCY_KEY_LENGTH) {
            return (String) key;
        }
        return null;
    }

    private static byte[] ascii(long number) {
        return Long.toString(number).getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * @return the failure of a publish Redis did not store: the publisher is answered
     *         {@code 503::backplane_unavailable}
     */
    private static ClusterUnavailableException unavailable(String why, Throwable cause) {
        return new ClusterUnavailableException(RedisBackplane.UNAVAILABLE, "Redis backplane unavailable: " + why, cause);
    }
}
