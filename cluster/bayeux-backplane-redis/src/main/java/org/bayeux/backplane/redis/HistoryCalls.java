package org.bayeux.backplane.redis;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.bayeux.server.cluster.ClusterMessage;
import org.bayeux.server.cluster.ClusterUnavailableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's calls of {@link HistoryStore}'s two scripts: publishes, bounded in number
 * ({@link RedisBackplaneConfig#MAX_PENDING_PUBLISHES}) and in time ({@link RedisBackplaneConfig#OPERATION_TIMEOUT}),
 * and recoveries, bounded in time, in bytes, in pages and in number at once ({@link RecoveryPermits}); both fail with {@code 503::backplane_unavailable} when Redis cannot answer.
 */
final class HistoryCalls {
    private static final Logger LOG = LoggerFactory.getLogger(HistoryCalls.class);

    private final RedisBackplaneConfig config;
    private final StreamShards shards;
    private final HistoryRules history;
    /** The most entries one page of a recovery copies out of Redis. */
    static final int PAGE_ENTRIES = 64;
    /** About the most bytes one page of a recovery copies out of Redis (a page holds at least one entry). */
    static final int PAGE_BYTES = 256 * 1024;

    private final AtomicInteger pendingPublishes = new AtomicInteger();
    private final RecoveryPermits permits;
    private final AtomicLong pagesRead = new AtomicLong();
    private final AtomicLong bytesRead = new AtomicLong();
    /** With {@link RedisBackplaneConfig#MIN_REPLICAS}: the group commit of the publishes' {@code WAIT}; else null. */
    private final ReplicaAcknowledgement replicaAcknowledgement;

    HistoryCalls(RedisBackplaneConfig config, StreamShards shards) {
        this.replicaAcknowledgement = config.minReplicas() == 0 ? null
                : new ReplicaAcknowledgement(config.minReplicas(), config.operationTimeout().toMillis() / 2);
        this.config = config;
        this.shards = shards;
        this.history = config.sessionStore()
                ? new HistoryRules(HistoryRules.parse(config.historyRules()), config.historySize(), config.historyAge(),
                        config.failoverHistoryMaxLength(), config.failoverHistoryAge())
                : new HistoryRules(HistoryRules.parse(config.historyRules()), config.historySize(),
                        config.historyAge());
        this.permits = new RecoveryPermits(config.recoveryConcurrency());
    }

    /** @return which channels keep a history */
    HistoryRules rules() {
        return history;
    }

    /** @return the recovery pages read from Redis since start, for tests */
    long pagesRead() {
        return pagesRead.get();
    }

    /** @return the bytes of messages recoveries read from Redis since start, for tests */
    long bytesRead() {
        return bytesRead.get();
    }

    /** @return the group commit of the publishes' {@code WAIT}, or null without {@code minReplicas} */
    ReplicaAcknowledgement replicaAcknowledgement() {
        return replicaAcknowledgement;
    }

    /** @return the publishes waiting for Redis's answer now */
    int pendingPublishes() {
        return pendingPublishes.get();
    }

    /** @return the per-connection budget of recoveries, for tests */
    RecoveryPermits permits() {
        return permits;
    }

    /**
     * @param connection the publishing connection, or null while there is none
     * @param message the message to store
     * @return completes with true once Redis stored it (and, with {@link RedisBackplaneConfig#MIN_REPLICAS}, once
     *         that many replicas hold it); fails with a {@link ClusterUnavailableException} if Redis is away, too
     *         slow, fewer replicas hold it, or too many publishes already wait for it
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
            ReplicaAcknowledgement replicas = replicaAcknowledgement;
            // With minReplicas: acknowledged once the replicas hold it too, by a WAIT sent after the script's answer
            // on the same connection (shared by the publishes answered meanwhile). A publish stored but not
            // replicated in time fails: it may still be delivered (once), never acknowledged and lost.
            stored = (replicas == null ? append.copy() : append.thenCompose(id -> replicas.confirm(connection)))
                    .orTimeout(config.operationTimeout().toMillis(), TimeUnit.MILLISECONDS);
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
     * Stores the message by the {@link HistoryStore#PUBLISH publish script}: with history, its channel's next offset
     * and its history; its shard's fan-out stream; with an idempotency key, only if the key is not remembered yet,
     * and remembers it for {@link RedisBackplaneConfig#IDEMPOTENCY_WINDOW}. The key is its publisher's: another
     * session's same key is another key, so that nobody can make someone else's publish be taken for a retry and
     * dropped.
     */
    private CompletableFuture<?> append(RedisLink.Connection connection, ClusterMessage message) {
        String channel = message.channel();
        String idempotencyKey = idempotencyKeyOf(message);
        int shard = shards.shardOf(channel);
        String[] keys = idempotencyKey == null
                ? new String[] {shards.metaKeyOf(channel), shards.historyKeyOf(channel), shards.keyOf(channel),
                    shards.historyBytesKeyOf(shard), shards.historyExpiryKeyOf(shard)}
                : new String[] {shards.metaKeyOf(channel), shards.historyKeyOf(channel), shards.keyOf(channel),
                    shards.historyBytesKeyOf(shard), shards.historyExpiryKeyOf(shard),
                    shards.idempotencyKeyOf(channel, publisherDigest(message.publisher()), idempotencyKey)};
        HistoryRules.Rule rule = history.storedRuleFor(channel);
        return HistoryStore.publish(connection, keys, message.json(), ascii(config.streamMaxLength()),
                ascii(rule.size()), ascii(rule.age().toMillis()), ascii(config.historyMetaTtl().toMillis()),
                HistoryStore.ascii(HistoryStore.newEpoch()), ascii(config.idempotencyWindow().toMillis()),
                ascii(config.historyMaxBytes()), ascii(config.historyShardMaxBytes()));
    }

    /**
     * @param publisher the publishing session's id, or null for the server's own publishes
     * @return what scopes a publisher's idempotency keys: a digest of its session id (the id is a credential, not to
     *         be stored as is), so that another publisher's same key is another key
     */
    static String publisherDigest(String publisher) {
        if (publisher == null) {
            return "server";
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(publisher.getBytes(StandardCharsets.UTF_8));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(digest).substring(0, 22);
        } catch (NoSuchAlgorithmException impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    /**
     * Reads what a subscriber missed on a channel since its position, page by page by the
     * {@link HistoryStore#RECOVER recover script}, newest first, while this connection's budget of recoveries
     * ({@link RedisBackplaneConfig#RECOVERY_CONCURRENCY}) lets it; also tells a subscriber without a position the
     * channel's current one. Never copies more than {@code maxBytes} of messages out of Redis: the script stops before
     * an entry that would pass it.
     *
     * @param connection the publishing connection, or null while there is none
     * @param channel a plain channel with history
     * @param offset the last offset the subscriber has, or -1 for none
     * @param epoch the epoch of that offset, or "" for none
     * @param maxMessages the most messages this recovery may deliver
     * @param maxBytes the most bytes of messages this recovery may deliver
     * @return what Redis has; failed with a {@link ClusterUnavailableException} if Redis is away
     */
    CompletableFuture<HistoryStore.Recovered> recover(RedisLink.Connection connection, String channel, long offset,
            String epoch, int maxMessages, long maxBytes) {
        if (connection == null || !connection.isOpen()) {
            return CompletableFuture.failedFuture(unavailable("not connected to Redis", null));
        }
        HistoryRules.Rule rule = history.storedRuleFor(channel);
        String[] keys = {shards.metaKeyOf(channel), shards.historyKeyOf(channel)};
        return permits.run(() -> page(connection, keys, offset, epoch, maxMessages, maxBytes,
                rule.age().toMillis(), new Pages(), ""));
    }

    /** What the pages of one recovery gathered so far, newest first. */
    private static final class Pages {
        HistoryStore.Page first;
        long expected;
        long bytes;
        final List<byte[]> messages = new ArrayList<>();
        final List<Long> offsets = new ArrayList<>();
        final List<Long> times = new ArrayList<>();

        HistoryStore.Recovered notRecovered() {
            return HistoryStore.Recovered.position(first.epoch(), first.top(), false, first.readAt());
        }

        HistoryStore.Recovered recovered() {
            List<byte[]> ascendingMessages = new ArrayList<>(messages);
            List<Long> ascendingOffsets = new ArrayList<>(offsets);
            List<Long> ascendingTimes = new ArrayList<>(times);
            Collections.reverse(ascendingMessages);
            Collections.reverse(ascendingOffsets);
            Collections.reverse(ascendingTimes);
            return new HistoryStore.Recovered(first.epoch(), first.top(), true, ascendingMessages, ascendingOffsets,
                    ascendingTimes, first.readAt());
        }
    }

    private CompletableFuture<HistoryStore.Recovered> page(RedisLink.Connection connection, String[] keys,
            long offset, String epoch, int maxMessages, long maxBytes, long ageMillis, Pages pages, String before) {
        CompletableFuture<HistoryStore.Page> read;
        try {
            read = HistoryStore.recoverPage(connection, keys, ascii(offset), HistoryStore.ascii(epoch),
                    HistoryStore.ascii(before), ascii(Math.max(1, Math.min(PAGE_ENTRIES,
                            maxMessages - pages.messages.size()))),
                    ascii(PAGE_BYTES), ascii(ageMillis), ascii(maxBytes - pages.bytes), ascii(maxMessages))
                    .orTimeout(config.operationTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (RuntimeException rejected) {
            return CompletableFuture.failedFuture(rejected);
        }
        return read.thenCompose(page -> {
            pagesRead.incrementAndGet();
            bytesRead.addAndGet(page.bytes());
            if (pages.first == null) {
                pages.first = page;
                pages.expected = page.top();
                if (!page.epoch().isEmpty() && !Positions.isPlainEpoch(page.epoch())) {
                    // As the live path: an epoch we did not make (only Redis could hold it) positions nothing.
                    return CompletableFuture.completedFuture(pages.notRecovered());
                }
            } else if (!page.epoch().equals(pages.first.epoch())) {
                return CompletableFuture.completedFuture(pages.notRecovered());
            }
            if (page.status() == HistoryStore.Page.NOT_RECOVERABLE) {
                return CompletableFuture.completedFuture(pages.notRecovered());
            }
            for (int i = 0; i < page.offsets().size(); i++) {
                // Contiguous, newest first: a hole (a message too large to keep, a lost epoch) is not recovered.
                if (page.offsets().get(i) != pages.expected) {
                    return CompletableFuture.completedFuture(pages.notRecovered());
                }
                pages.expected--;
                pages.messages.add(page.messages().get(i));
                pages.offsets.add(page.offsets().get(i));
                pages.times.add(HistoryStore.timeOf(page.ids().get(i)));
                pages.bytes += page.messages().get(i).length;
            }
            if (page.status() == HistoryStore.Page.REACHED) {
                return CompletableFuture.completedFuture(pages.expected == offset ? pages.recovered()
                        : pages.notRecovered());
            }
            if (pages.messages.size() >= maxMessages || pages.bytes >= maxBytes || page.ids().isEmpty()) {
                return CompletableFuture.completedFuture(pages.notRecovered());
            }
            return page(connection, keys, offset, epoch, maxMessages, maxBytes, ageMillis, pages,
                    page.ids().get(page.ids().size() - 1));
        });
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
