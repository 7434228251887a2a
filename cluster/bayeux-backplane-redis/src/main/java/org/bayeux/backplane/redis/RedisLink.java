package org.bayeux.backplane.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The backplane's way to Redis, one Redis server ({@code redis://}) or a Redis Cluster ({@code redis-cluster://h:p,…}),
 * with the credentials and TLS of its {@link RedisEndpoint}:
 * both give {@link Connection}s whose commands are Lettuce's {@link RedisClusterAsyncCommands}, the interface a plain
 * connection and a cluster connection share, so that the publish, recovery and presence code is one and the same for
 * both. On a cluster, Lettuce routes each command by the slot of its first key, follows {@code MOVED} and {@code ASK},
 * and refreshes its view of the slots when redirected, on reconnects and every {@link #PERIODIC_REFRESH}.
 */
final class RedisLink {
    /** The scheme of a Redis Cluster URI: {@code redis-cluster://host:port,host:port,…}. */
    static final String CLUSTER_SCHEME = RedisEndpoint.CLUSTER_SCHEME;
    /** How often a cluster link re-reads the slot map even without a redirect. */
    static final Duration PERIODIC_REFRESH = Duration.ofSeconds(30);

    private static final Logger LOG = LoggerFactory.getLogger(RedisLink.class);

    private final ClientResources resources;
    private final AbstractRedisClient client;
    private final String description;
    /** Connection attempts refused for their credentials since the last that succeeded. */
    private final AtomicLong refusals = new AtomicLong();

    /** Keys are text, values bytes: the backplane's entries are the messages' encoded JSON, never decoded here. */
    static final RedisCodec<String, byte[]> CODEC = RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE);

    /** The longest wait between two reconnect attempts, of Lettuce's and of the stream readers'. */
    static final Duration MAX_BACKOFF = Duration.ofSeconds(2);

    private RedisLink(ClientResources resources, AbstractRedisClient client, String description) {
        this.resources = resources;
        this.client = client;
        this.description = description;
    }

    /**
     * @param config the backplane's settings; its URI valid ({@link RedisEndpoint#isValidUri})
     * @param maxBackoff the longest wait between two reconnect attempts
     * @return a link, not connected yet
     * @throws org.bayeux.server.config.InvalidConfigurationException if the settings do not resolve
     *         ({@link RedisEndpoint#resolve}: the password file is unsafe or unreadable, say)
     */
    static RedisLink create(RedisBackplaneConfig config, Duration maxBackoff) {
        RedisEndpoint endpoint = RedisEndpoint.resolve(config);
        ClientResources resources = ClientResources.builder().ioThreadPoolSize(2).computationThreadPoolSize(2)
                .reconnectDelay(Delay.exponential(Duration.ofMillis(20), maxBackoff, 2, TimeUnit.MILLISECONDS))
                .build();
        SocketOptions socket = SocketOptions.builder().connectTimeout(config.operationTimeout()).build();
        SslOptions ssl = sslOptions(endpoint);
        if (endpoint.cluster()) {
            RedisClusterClient cluster = RedisClusterClient.create(resources, endpoint.seeds());
            // Commands are accepted while a node connection is (re)connecting: the cluster connection opens its
            // connection to each master lazily, at the first command for one of its slots, and rejecting would fail
            // that command although the master is up. A publish still fails within the operation timeout, and is
            // cancelled then, so that it is not sent later (RedisBackplane.publish).
            ClusterClientOptions.Builder options = ClusterClientOptions.builder().autoReconnect(true)
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.ACCEPT_COMMANDS)
                    .requestQueueSize(requestQueueSize(config))
                    .socketOptions(socket)
                    // A failover moves slots: every redirect or reconnect triggers a refresh, and a periodic one
                    // catches a change no command has run into yet.
                    .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                            .enableAllAdaptiveRefreshTriggers()
                            .enablePeriodicRefresh(PERIODIC_REFRESH)
                            .build());
            if (ssl != null) {
                options.sslOptions(ssl);
            }
            cluster.setOptions(options.build());
            return new RedisLink(resources, cluster, endpoint.description());
        }
        RedisClient single = RedisClient.create(resources, endpoint.seeds().get(0));
        ClientOptions.Builder options = ClientOptions.builder().autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .requestQueueSize(requestQueueSize(config))
                .socketOptions(socket);
        if (ssl != null) {
            options.sslOptions(ssl);
        }
        single.setOptions(options.build());
        return new RedisLink(resources, single, endpoint.description());
    }

    /** @return the TLS settings when the endpoint trusts its own certificates, else null (the JVM's trust store) */
    private static SslOptions sslOptions(RedisEndpoint endpoint) {
        if (!endpoint.tls() || endpoint.trustedCertificates() == null) {
            return null;
        }
        return SslOptions.builder().jdkSslProvider().trustManager(endpoint.trustedCertificates()).build();
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
        return RedisEndpoint.isCluster(uri);
    }

    /**
     * @param uri {@code redis-cluster://host:port,host:port,…}
     * @return the seed nodes, at least one
     * @throws IllegalArgumentException naming the first part that is not {@code host:port}
     */
    static List<RedisURI> clusterSeeds(String uri) {
        return RedisEndpoint.clusterSeeds(uri);
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
        try {
            Connection connected;
            if (client instanceof RedisClusterClient) {
                StatefulRedisClusterConnection<String, byte[]> connection =
                        ((RedisClusterClient) client).connect(CODEC);
                connected = new Connection(connection, connection.async(), connection.sync());
            } else {
                StatefulRedisConnection<String, byte[]> connection =
                        ((RedisClient) client).connect(CODEC);
                connected = new Connection(connection, connection.async(), connection.sync());
            }
            refusals.set(0);
            return connected;
        } catch (RuntimeException failed) {
            String refusal = credentialsRefusal(failed);
            if (refusal != null) {
                // Retrying will not help until an operator acts: said at ERROR, once per run of refusals, as the
                // connection is retried with backoff by every reader, the publisher and the session store.
                if (refusals.getAndIncrement() == 0) {
                    LOG.error("{} refused the backplane's credentials ({}): check redisUsername and "
                            + "redisPasswordFile (or the URI's USER:PASSWORD@) against Redis's requirepass or ACL "
                            + "user; retrying", description, refusal);
                }
                throw new CredentialsRefusedException(description + " refused the backplane's credentials: "
                        + refusal, failed);
            }
            throw failed;
        }
    }

    /**
     * Connects a PUB/SUB connection (on a Redis Cluster, messages published on any node reach it), blocking up to
     * the connect timeout. It resubscribes by itself after a reconnect.
     *
     * @return a new PUB/SUB connection
     */
    io.lettuce.core.pubsub.StatefulRedisPubSubConnection<String, byte[]> connectPubSub() {
        if (client instanceof RedisClusterClient cluster) {
            return cluster.connectPubSub(CODEC);
        }
        return ((RedisClient) client).connectPubSub(CODEC);
    }

    /**
     * @param failure why a connection failed
     * @return Redis's answer if it refused the credentials ({@code WRONGPASS}, {@code NOAUTH}, {@code NOPERM}), the
     *         first words only, else null
     */
    static String credentialsRefusal(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            String message = cause.getMessage();
            if (message != null) {
                for (String code : new String[] {"WRONGPASS", "NOAUTH", "NOPERM"}) {
                    int at = message.indexOf(code);
                    if (at >= 0) {
                        String answer = message.substring(at);
                        return answer.length() > 120 ? answer.substring(0, 120) : answer;
                    }
                }
            }
            if (cause.getCause() == cause) {
                break;
            }
        }
        return null;
    }

    /** Redis answered the backplane's {@code AUTH} (or {@code HELLO}) with a refusal. */
    static final class CredentialsRefusedException extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        CredentialsRefusedException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * Closes every connection of this link and its threads, waiting at most {@link #SHUTDOWN_WAIT}: Lettuce's own
     * shutdown waits for every connection to close, which a cluster connection still reconnecting to a node that died
     * may never do, and a stopping node must not hang on it.
     */
    void shutdown() {
        try {
            client.shutdownAsync(0, 2, TimeUnit.SECONDS).get(SHUTDOWN_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException notClosed) {
            LOG.warn("Redis connections to {} did not close within {} s; "
                    + "going on", description(), SHUTDOWN_WAIT.toSeconds());
        }
        resources.shutdown(0, 2, TimeUnit.SECONDS);
    }

    /** The longest a link's shutdown waits for its connections to close. */
    static final Duration SHUTDOWN_WAIT = Duration.ofSeconds(10);

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
