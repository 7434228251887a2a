package org.bayeux.backplane.redis;

import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;

import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The requests nodes send each other about sessions, on PUB/SUB channels {@code <keyPrefix>:ctl:<nodeId>}: a node
 * that wants to adopt a session whose owner lives asks it to let the session go ({@code release <digest> <asker>}),
 * and the owner, once it has written the session's final state and given up ownership, says so
 * ({@code released <digest>}). A lost message costs the asker a wait of at most a lease, never a wrong owner: the
 * adoption itself is a compare-and-set on the session's generation.
 */
final class OwnerControl implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(OwnerControl.class);
    private static final String RELEASE = "release";
    private static final String RELEASED = "released";

    private final String channelPrefix;
    private final String nodeId;
    private final BiConsumer<String, String> releaseAsked;
    /** Adoptions of this node waiting for an owner to let a session go, by the session's digest. */
    private final ConcurrentHashMap<String, CompletableFuture<Void>> waiting = new ConcurrentHashMap<>();
    private volatile StatefulRedisPubSubConnection<String, byte[]> pubSub;

    /**
     * @param keyPrefix the backplane's key prefix
     * @param nodeId this node's id
     * @param releaseAsked takes the digest of a session another node asks this one to let go, and that node's id
     */
    OwnerControl(String keyPrefix, String nodeId, BiConsumer<String, String> releaseAsked) {
        this.channelPrefix = keyPrefix + ":ctl:";
        this.nodeId = Objects.requireNonNull(nodeId, "nodeId");
        this.releaseAsked = releaseAsked;
    }

    /** @return whether this node listens to its channel */
    boolean open() {
        return pubSub != null;
    }

    /**
     * Subscribes to this node's channel, blocking up to the connect timeout.
     *
     * @param link where to connect
     */
    void open(RedisLink link) {
        StatefulRedisPubSubConnection<String, byte[]> connection = link.connectPubSub();
        connection.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, byte[] message) {
                received(new String(message, StandardCharsets.UTF_8));
            }
        });
        connection.sync().subscribe(channelPrefix + nodeId);
        pubSub = connection;
    }

    private void received(String text) {
        String[] words = text.split(" ");
        if (words.length == 3 && RELEASE.equals(words[0])) {
            releaseAsked.accept(words[1], words[2]);
        } else if (words.length == 2 && RELEASED.equals(words[0])) {
            CompletableFuture<Void> waiter = waiting.remove(words[1]);
            if (waiter != null) {
                waiter.complete(null);
            }
        } else {
            LOG.debug("Ignored a control message of {} characters", text.length());
        }
    }

    /**
     * Asks a session's owner to let it go.
     *
     * @param connection where to publish
     * @param owner the owner's node id
     * @param digest the session's digest
     * @return completes when the owner says it let the session go (never, if it does not: bound the wait)
     */
    CompletableFuture<Void> askRelease(RedisLink.Connection connection, String owner, String digest) {
        CompletableFuture<Void> released = waiting.computeIfAbsent(digest, d -> new CompletableFuture<>());
        released.whenComplete((done, failed) -> waiting.remove(digest, released));
        connection.async().publish(channelPrefix + owner, bytes(RELEASE + " " + digest + " " + nodeId));
        return released;
    }

    /**
     * Tells a node that asked that this one let a session go.
     *
     * @param connection where to publish
     * @param asker the node that asked
     * @param digest the session's digest
     */
    void tellReleased(RedisLink.Connection connection, String asker, String digest) {
        connection.async().publish(channelPrefix + asker, bytes(RELEASED + " " + digest));
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        StatefulRedisPubSubConnection<String, byte[]> connection = pubSub;
        pubSub = null;
        if (connection != null) {
            connection.closeAsync();
        }
        waiting.values().forEach(waiter -> waiter.complete(null));
    }
}
