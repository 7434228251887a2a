package org.bayeux.backplane.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;

/**
 * The backplane's way to Redis, one Redis server ({@code redis://}) or a Redis Cluster ({@code redis-cluster://h:p,…}):
 * both give {@link Connection}s whose commands are Lettuce's {@link RedisClusterAsyncCommands}, the interface a plain
 * connection and a cluster connection share, so that the publish, recovery and presence code is one and the same for
 * both. On a cluster, Lettuce routes each command by the slot of its first key, follows {@code MOVED} and {@code ASK},
 * and refreshes its view of the slots when redirected, on reconnects and every {@link #PERIODIC_REFRESH}.
 */
final class RedisLink {
    /** The scheme of a Redis Cluster URI: {@code redis-cluster://host:port,host:port,…}. */
    static final String CLUSTER_SCHEME = "redis-cluster://";
    /** How often a cluster link re-reads the slot map even without a redirect. */
    static final Duration PERIODIC_REFRESH = Duration.ofSeconds(30);

    private final ClientResources resources;
    private final AbstractRedisClient client;
    private final String description;

    private RedisLink(ClientResources resources, AbstractRedisClient client, String description) {
        this.resources = resources;
        this.client = client;
        this.description = description;
    }

    /**
     * @param config the backplane's settings; its URI valid ({@link #isValidUri})
     * @param maxBackoff the longest wait between two reconnect attempts
     * @return a link, not connected yet
     */
    static RedisLink create(RedisBackplaneConfig config, Duration maxBackoff) {
        ClientResources resources = ClientResources.builder().ioThreadPoolSize(2).computationThreadPoolSize(2)
                .reconnectDelay(Delay.exponential(Duration.ofMillis(20), maxBackoff, 2, TimeUnit.MILLISECONDS))
                .build();
        SocketOptions socket = SocketOptions.builder().connectTimeout(config.operationTimeout()).build();
        if (isCluster(config.uri())) {
            List<RedisURI> seeds = clusterSeeds(config.uri());
            RedisClusterClient cluster = RedisClusterClient.create(resources, seeds);
            // Commands are accepted while a node connection is (re)connecting: the cluster connection opens its
            // connection to each master lazily, at the first command for one of its slots, and rejecting would fail
            // that command although the master is up. A publish still fails within the operation timeout, and is
            // cancelled then, so that it is not sent later (RedisBackplane.publish).
            cluster.setOptions(ClusterClientOptions.builder().autoReconnect(true)
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.ACCEPT_COMMANDS)
                    .requestQueueSize(requestQueueSize(config))
                    .socketOptions(socket)
                    // A failover moves slots: every redirect or reconnect triggers a refresh, and a periodic one
                    // catches a change no command has run into yet.
                    .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                            .enableAllAdaptiveRefreshTriggers()
                            .enablePeriodicRefresh(PERIODIC_REFRESH)
                            .build())
                    .build());
            StringBuilder hosts = new StringBuilder("Redis Cluster ");
            for (RedisURI seed : seeds) {
                hosts.append(hosts.length() > "Redis Cluster ".length() ? "," : "").append(seed.getHost()).append(':')
                        .append(seed.getPort());
            }
            return new RedisLink(resources, cluster, hosts.toString());
        }
        RedisURI uri = RedisURI.create(config.uri());
        RedisClient single = RedisClient.create(resources, uri);
        single.setOptions(ClientOptions.builder().autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .requestQueueSize(requestQueueSize(config))
                .socketOptions(socket)
                .build());
        return new RedisLink(resources, single, "Redis " + uri.getHost() + ":" + uri.getPort());
    }

    /**
     * @return the bound of Lettuce's queue of commands per connection: the publishes that may wait
     *         ({@link RedisBackplaneConfig#MAX_PENDING_PUBLISHES}) plus presence's budget ({@link Presence#budget}),
     *         so that presence commands never take a publish's place
     */
    static int requestQueueSize(RedisBackplaneConfig config) {
        return config.maxPendingPublishes() + Presence.budget(config.maxPendingPublishes());
    }

    /** @return whether the URI names a Redis Cluster */
    static boolean isCluster(String uri) {
        return uri.toLowerCase(Locale.ROOT).startsWith(CLUSTER_SCHEME);
    }

    /**
     * @param uri {@code redis://…}, {@code rediss://…} or {@code redis-cluster://host:port,host:port,…}
     * @return whether the backplane can use it
     */
    static boolean isValidUri(String uri) {
        String lower = uri.toLowerCase(Locale.ROOT);
        if (isCluster(lower)) {
            try {
                clusterSeeds(uri);
                return true;
            } catch (IllegalArgumentException bad) {
                return false;
            }
        }
        return (lower.startsWith("redis://") && lower.length() > "redis://".length())
                || (lower.startsWith("rediss://") && lower.length() > "rediss://".length());
    }

    /**
     * @param uri {@code redis-cluster://host:port,host:port,…}
     * @return the seed nodes, at least one
     * @throws IllegalArgumentException naming the first part that is not {@code host:port}
     */
    static List<RedisURI> clusterSeeds(String uri) {
        String list = uri.substring(CLUSTER_SCHEME.length());
        if (list.isEmpty()) {
            throw new IllegalArgumentException("no host:port after " + CLUSTER_SCHEME);
        }
        List<RedisURI> seeds = new ArrayList<>();
        for (String part : list.split(",", -1)) {
            int colon = part.lastIndexOf(':');
            if (colon <= 0 || colon == part.length() - 1 || part.contains("/") || part.contains("@")) {
                throw new IllegalArgumentException("'" + part + "' is not host:port");
            }
            int port;
            try {
                port = Integer.parseInt(part.substring(colon + 1));
            } catch (NumberFormatException notANumber) {
                throw new IllegalArgumentException("'" + part + "' is not host:port");
            }
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("'" + part + "': port out of 1..65535");
            }
            seeds.add(RedisURI.create(part.substring(0, colon), port));
        }
        return seeds;
    }

    /** @return whether this link is to a Redis Cluster */
    boolean cluster() {
        return client instanceof RedisClusterClient;
    }

    /** @return where it goes, without any password, for logs */
    String description() {
        return description;
    }

    /**
     * Connects, blocking up to the connect timeout.
     *
     * @return a new connection, reconnecting by itself
     */
    Connection connect() {
        if (client instanceof RedisClusterClient) {
            StatefulRedisClusterConnection<String, byte[]> connection =
                    ((RedisClusterClient) client).connect(RedisBackplane.codec());
            return new Connection(connection, connection.async(), connection.sync());
        }
        StatefulRedisConnection<String, byte[]> connection = ((RedisClient) client).connect(RedisBackplane.codec());
        return new Connection(connection, connection.async(), connection.sync());
    }

    /** Closes every connection of this link and its threads. */
    void shutdown() {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        resources.shutdown(0, 2, TimeUnit.SECONDS);
    }

    /** A connection to one Redis server or to a cluster, with the commands both have. */
    static final class Connection {
        private final io.lettuce.core.api.StatefulConnection<String, byte[]> stateful;
        private final RedisClusterAsyncCommands<String, byte[]> async;
        private final RedisClusterCommands<String, byte[]> sync;

        Connection(io.lettuce.core.api.StatefulConnection<String, byte[]> stateful,
                RedisClusterAsyncCommands<String, byte[]> async, RedisClusterCommands<String, byte[]> sync) {
            this.stateful = stateful;
            this.async = async;
            this.sync = sync;
        }

        RedisClusterAsyncCommands<String, byte[]> async() {
            return async;
        }

        RedisClusterCommands<String, byte[]> sync() {
            return sync;
        }

        boolean isOpen() {
            return stateful.isOpen();
        }

        void setTimeout(Duration timeout) {
            stateful.setTimeout(timeout);
        }

        void closeAsync() {
            stateful.closeAsync();
        }
    }
}
