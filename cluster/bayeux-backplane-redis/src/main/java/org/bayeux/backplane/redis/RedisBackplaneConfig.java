package org.bayeux.backplane.redis;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.bayeux.server.config.ConfigOption;
import org.bayeux.server.config.ConfigOptions;
import org.bayeux.server.config.InvalidConfigurationException;
import org.bayeux.server.config.TypedConfig;

/**
 * The Redis backplane's settings, in the engine's one shape of configuration: typed options, each validated as it is
 * set, and text settings ({@link #fromMap}) that fail with an {@link InvalidConfigurationException} naming the key and
 * the value.
 */
public final class RedisBackplaneConfig extends TypedConfig {
    /** Where Redis is. */
    public static final ConfigOption<String> URI = ConfigOption.text("redisUri", "redis://127.0.0.1:6379",
            RedisEndpoint::isValidUri,
            "redis://HOST:PORT, rediss://HOST:PORT (TLS), redis-cluster://HOST:PORT,HOST:PORT,..., "
                    + "rediss-cluster://HOST:PORT,HOST:PORT,... (TLS) or redis-sentinel://HOST:PORT,HOST:PORT,.../"
                    + "MASTER-NAME, each with an optional USER:PASSWORD@ before the hosts, as Lettuce parses them",
            "The Redis server the backplane stores and reads messages on, the seed nodes of a Redis Cluster "
                    + "(redis-cluster://HOST:PORT,HOST:PORT,...), or the sentinels of a master and its name "
                    + "(redis-sentinel://HOST:PORT,HOST:PORT,.../MASTER-NAME: every connection asks them where the "
                    + "master is, and follows a promotion; no TLS to sentinels); see docs/cluster.md. Errors and "
                    + "logs show it with "
                    + "the password masked; a password written here must have / @ % percent-encoded: prefer "
                    + "redisPasswordFile.");
    /** The ACL user the backplane authenticates as. */
    public static final ConfigOption<String> USERNAME = ConfigOption.text("redisUsername", "",
            name -> name.chars().noneMatch(c -> c <= ' ' || c == ':' || c == '@'),
            "empty, or a user name without spaces, : or @",
            "The Redis ACL user the backplane authenticates as (AUTH USER PASSWORD), with the password of "
                    + "redisPasswordFile; empty: the default user (AUTH PASSWORD), or the user the URI names.");
    /** The file holding the Redis password. */
    public static final ConfigOption<String> PASSWORD_FILE = ConfigOption.text("redisPasswordFile", "",
            file -> true, "empty, or a file only its owner may read",
            "A file holding the Redis password (one trailing line break ignored), read at start; refused if the "
                    + "group or others may read or write it. The password is never logged.");
    /** The certificates trusted for Redis over TLS. */
    public static final ConfigOption<String> TLS_CA_FILE = ConfigOption.text("redisTlsCaFile", "",
            file -> true, "empty, or a readable PEM file",
            "With rediss:// or rediss-cluster://: a PEM file of the certificates trusted to sign Redis's (a private "
                    + "CA, or a self-signed certificate); empty: the JVM's trust store.");
    /** How much of Redis's certificate is checked. */
    public static final ConfigOption<TlsVerify> TLS_VERIFY = ConfigOption.choice("redisTlsVerify", TlsVerify.class,
            TlsVerify.FULL,
            "With rediss:// or rediss-cluster://: FULL checks that Redis's certificate is trusted and names the host "
                    + "connected to; CA only that it is trusted (for cluster nodes announced by addresses their "
                    + "certificates do not name).");
    /** The key prefix, so that several applications can share one Redis. */
    public static final ConfigOption<String> KEY_PREFIX = ConfigOption.text("keyPrefix", "bayeux",
            prefix -> !prefix.isEmpty() && prefix.chars().noneMatch(c -> c == '{' || c == '}' || c <= ' '),
            "a non-empty word without braces or spaces",
            "The first part of every key the backplane writes (`<keyPrefix>:fanout:{<n>}`, see docs/cluster.md).");
    /** How many fan-out streams the channels are spread over. */
    public static final ConfigOption<Integer> SHARDS = ConfigOption.integer("shards", 16,
            n -> n >= 1 && n <= 1024, "an integer from 1 to 1024",
            "How many fan-out streams the channels are spread over (by a hash of the channel name); a node reads "
                    + "those its subscriptions need. Every node of a cluster must use the same number.");
    /** How long a fan-out stream may grow. */
    public static final ConfigOption<Integer> STREAM_MAX_LENGTH = ConfigOption.integer("streamMaxLength", 100_000,
            n -> n >= 100, "an integer of at least 100",
            "About how many messages each fan-out stream keeps (XADD MAXLEN ~): enough to cover the longest Redis "
                    + "disconnect a node must resume from at the highest publish rate.");
    /** How long one Redis operation may take. */
    public static final ConfigOption<Duration> OPERATION_TIMEOUT = ConfigOption.duration("operationTimeout",
            Duration.ofSeconds(2), d -> d.compareTo(Duration.ofMillis(10)) >= 0 && d.compareTo(Duration.ofMinutes(1)) <= 0,
            "a duration from 10ms to 1m",
            "How long a publish waits for Redis to store it before it fails; also the connect timeout.");
    /** How many messages one read takes. */
    public static final ConfigOption<Integer> READ_BATCH = ConfigOption.integer("readBatch", 256,
            n -> n >= 1 && n <= 10_000, "an integer from 1 to 10000",
            "The most messages one read (XREAD COUNT) takes from each fan-out stream.");
    /** How long one read waits for messages. */
    public static final ConfigOption<Duration> READ_BLOCK = ConfigOption.duration("readBlock", Duration.ofMillis(500),
            d -> d.compareTo(Duration.ofMillis(10)) >= 0 && d.compareTo(Duration.ofSeconds(10)) <= 0,
            "a duration from 10ms to 10s",
            "How long one read (XREAD BLOCK) waits when nothing is new; bounds how long stopping a node takes.");
    /** How many publishes may wait for Redis at once. */
    public static final ConfigOption<Integer> MAX_PENDING_PUBLISHES = ConfigOption.integer("maxPendingPublishes",
            10_000, n -> n >= 1, "an integer of at least 1",
            "The most publishes of this node waiting for Redis at once; beyond it a publish fails at once.");

    /** How long a publish's idempotency key is remembered. */
    public static final ConfigOption<Duration> IDEMPOTENCY_WINDOW = ConfigOption.duration("idempotencyWindow",
            Duration.ofMinutes(5), d -> d.compareTo(Duration.ofSeconds(1)) >= 0 && d.compareTo(Duration.ofDays(1)) <= 0,
            "a duration from 1s to 1d",
            "How long Redis remembers a publish's idempotency key (ext.idempotencyKey): a retry with the same key "
                    + "on the same channel within it is acknowledged and not stored again.");

    /** How many messages a channel's history keeps, unless a rule says otherwise. */
    public static final ConfigOption<Integer> HISTORY_SIZE = ConfigOption.integer("historySize", 1000,
            n -> n >= 0 && n <= HistoryRules.MAX_SIZE, "an integer from 0 to 1000000",
            "How many messages a channel's history keeps, for the historyRules rules that name no size.");
    /** How long a channel's history keeps a message, unless a rule says otherwise. */
    public static final ConfigOption<Duration> HISTORY_AGE = ConfigOption.duration("historyAge",
            Duration.ofMinutes(10), d -> d.compareTo(HistoryRules.MIN_AGE) >= 0
                    && d.compareTo(HistoryRules.MAX_AGE) <= 0, "a duration from 1s to 30d",
            "How long a channel's history keeps a message (trimmed at each publish, and a recovery ignores older "
                    + "ones), for the historyRules rules that name no age.");
    /** Per channel pattern: history size and age. */
    public static final ConfigOption<String> HISTORY_RULES = ConfigOption.text("historyRules", "",
            text -> text.isBlank() || HistoryRules.isValid(text),
            "rules <pattern> or <pattern>=<size>/<age> separated by commas, such as /chat/**=1000/10m,/news/*",
            "The channels that keep a history (and so positions and recovery): the first rule that matches a channel "
                    + "applies (a size of 0 turns history off for it); a channel no rule matches keeps none. A rule "
                    + "without =<size>/<age> takes historySize and historyAge. Empty (the default): no history.");
    /** How long a channel's epoch and offset outlive its last publish. */
    public static final ConfigOption<Duration> HISTORY_META_TTL = ConfigOption.duration("historyMetaTtl",
            Duration.ofDays(7), d -> d.compareTo(Duration.ofMinutes(1)) >= 0 && d.compareTo(Duration.ofDays(365)) <= 0,
            "a duration from 1m to 365d",
            "How long Redis keeps a channel's epoch and last offset after its last publish; when they "
                    + "expire the channel starts a new epoch, and clients holding an older position get "
                    + "recovered: false. Keep it longer than historyAge and than clients stay away.");
    /** The most bytes of messages one channel's history keeps. */
    public static final ConfigOption<Integer> HISTORY_MAX_BYTES = ConfigOption.integer("historyMaxBytes",
            8 * 1024 * 1024, n -> n >= 1024 && n <= 1 << 30, "an integer from 1024 to 1073741824",
            "The most bytes of messages (JSON) one channel's history keeps; the oldest go first. A message larger "
                    + "than this is published but not kept (a recovery across it answers recovered: false).");
    /** The most bytes of messages the histories of one shard keep together. */
    public static final ConfigOption<Integer> HISTORY_SHARD_MAX_BYTES = ConfigOption.integer("historyShardMaxBytes",
            256 * 1024 * 1024, n -> n >= 1024, "an integer from 1024 to 2147483647",
            "The most bytes of messages the histories of all the channels of one shard keep together (the Redis "
                    + "memory history may take is about shards × this); past it, the histories of the shard's "
                    + "channels that would expire first are dropped whole.");
    /** How far back a session may read history, by default. */
    public static final ConfigOption<Duration> HISTORY_LOOK_BACK = ConfigOption.duration("historyLookBack",
            Duration.ZERO, d -> !d.isNegative() && d.compareTo(HistoryRules.MAX_AGE) <= 0, "a duration from 0s to 30d",
            "When the application gives no HistoryAuthorizer: how long before its first recovering subscription to "
                    + "a channel a session may read that channel's history. 0s: only what was published since (gaps "
                    + "of a live session); a client that re-handshakes after an outage recovers only with a look-back "
                    + "about as long as the outage.");
    /** The most recoveries reading Redis at once, per node. */
    public static final ConfigOption<Integer> RECOVERY_CONCURRENCY = ConfigOption.integer("recoveryConcurrency", 8,
            n -> n >= 1 && n <= 1024, "an integer from 1 to 1024",
            "The most recoveries of this node reading history from Redis at once (on its one connection); the "
                    + "others wait their turn, so that recoveries cannot crowd out publishes and stream reads.");
    /** How many recoveries a session may start per second, after its burst. */
    public static final ConfigOption<Integer> RECOVERY_RATE = ConfigOption.integer("recoveryRate", 10,
            n -> n >= 1 && n <= 10_000, "an integer from 1 to 10000",
            "How many history reads a session may start per second once its recoveryBurst is spent; a subscribe "
                    + "past it is answered recovered: false without reading.");
    /** How many recoveries a session may start at once. */
    public static final ConfigOption<Integer> RECOVERY_BURST = ConfigOption.integer("recoveryBurst", 100,
            n -> n >= 1 && n <= 100_000, "an integer from 1 to 100000",
            "How many history reads a session may start in a burst (a client resubscribing to all its channels "
                    + "after a re-handshake); refilled at recoveryRate. A session runs one read at a time.");
    /** The most messages one recovery sends. */
    public static final ConfigOption<Integer> RECOVERY_MAX_MESSAGES = ConfigOption.integer("recoveryMaxMessages",
            1000, n -> n >= 1 && n <= 100_000, "an integer from 1 to 100000",
            "The most messages a subscribe recovers; a client that missed more is told recovered: false. A "
                    + "recovery is also bounded in bytes by the session's maxQueueBytes.");
    /** The most live messages held back per subscription while its history is read. */
    public static final ConfigOption<Integer> RECOVERY_BUFFER = ConfigOption.integer("recoveryBuffer", 10_000,
            n -> n >= 1 && n <= 1_000_000, "an integer from 1 to 1000000",
            "The most live messages held back for one recovering subscription while its history is read; past "
                    + "it the recovery gives up (recovered: false) and the held messages are delivered.");

    /** How long a session's presence lasts without a refresh. */
    public static final ConfigOption<Duration> PRESENCE_TTL = ConfigOption.duration("presenceTtl",
            Duration.ofSeconds(30), d -> d.compareTo(Duration.ofSeconds(1)) >= 0 && d.compareTo(Duration.ofHours(1)) <= 0,
            "a duration from 1s to 1h",
            "How long a subscription's presence entry lasts in Redis unless its node refreshes it (every third of "
                    + "it): a node that dies has its sessions leave within about this long.");

    /** How long a shard stream nobody here needs any more is still read. */
    public static final ConfigOption<Duration> SHARD_READ_GRACE = ConfigOption.duration("shardReadGrace",
            Duration.ofSeconds(10), d -> !d.isNegative() && d.compareTo(Duration.ofMinutes(10)) <= 0,
            "a duration from 0s to 10m",
            "How long a node goes on reading a fan-out stream after its last subscription needing it ended, so that "
                    + "a client that unsubscribes and subscribes again does not make it stop and start reading.");

    /** Whether sessions' durable state is written to Redis. */
    public static final ConfigOption<Boolean> SESSION_STORE = ConfigOption.bool("sessionStore", false,
            "Whether the backplane writes its sessions' subscriptions, positions and acknowledged batch to Redis "
                    + "(RedisSessionStore, one hash per session, see docs/cluster.md), where another node can read "
                    + "them; off by default (nothing continues a session on another node yet).");
    /** With the session store: how many messages every plain channel's history keeps at least, for failover. */
    public static final ConfigOption<Integer> FAILOVER_HISTORY_MAX_LENGTH = ConfigOption.integer(
            "failoverHistoryMaxLength", 1000, n -> n >= 1 && n <= HistoryRules.MAX_SIZE, "an integer from 1 to 1000000",
            "With sessionStore: how many messages every plain broadcast channel's history keeps at least, even one "
                    + "no historyRules rule names (or one a rule gives size 0), so that a session another node "
                    + "adopts resumes what it missed (clients' own recoveries stay limited to the channels "
                    + "historyRules names). A gap longer than this makes the adopted session re-handshake (402).");
    /** With the session store: how long every plain channel's history keeps a message at least, for failover. */
    public static final ConfigOption<Duration> FAILOVER_HISTORY_AGE = ConfigOption.duration("failoverHistoryAge",
            Duration.ofSeconds(60), d -> d.compareTo(HistoryRules.MIN_AGE) >= 0
                    && d.compareTo(HistoryRules.MAX_AGE) <= 0, "a duration from 1s to 30d",
            "With sessionStore: how long every plain broadcast channel's history keeps a message at least (see "
                    + "failoverHistoryMaxLength); keep it longer than a node's failure takes to detect plus the "
                    + "clients' reconnection.");
    /** The key of the digest that stands for a session's id in Redis. */
    public static final ConfigOption<String> SESSION_KEY_FILE = ConfigOption.text("sessionKeyFile", "",
            file -> true, "empty, or a file only its owner may read, of at least 32 bytes",
            "With sessionStore: a file holding the key (the same on every node) of the HMAC-SHA256 that stands for "
                    + "a session's id in its Redis key, so that Redis holds no clientId and one cannot be tested "
                    + "against it; empty: a plain SHA-256 of the id (no clientId in Redis either, but whoever knows "
                    + "one can find its hash).");
    /** How long changes of sessions' state are gathered before they are written. */
    public static final ConfigOption<Duration> SESSION_WRITE_DELAY = ConfigOption.duration("sessionWriteDelay",
            Duration.ofMillis(200), d -> d.compareTo(Duration.ofMillis(10)) >= 0
                    && d.compareTo(Duration.ofSeconds(10)) <= 0, "a duration from 10ms to 10s",
            "With sessionStore: how often the changed sessions' state is written to Redis (at most one write per "
                    + "session per period, whatever the number of messages); what Redis may lag behind by.");
    /** How often live sessions' keys have their expiry renewed. */
    public static final ConfigOption<Duration> SESSION_REFRESH = ConfigOption.duration("sessionRefresh",
            Duration.ofSeconds(5), d -> d.compareTo(Duration.ofSeconds(1)) >= 0
                    && d.compareTo(Duration.ofMinutes(10)) <= 0, "a duration from 1s to 10m",
            "With sessionStore: how often a node renews the expiry of its live sessions' keys; a key expires "
                    + "maxInterval + 2 × sessionRefresh after its last write or renewal, so between maxInterval + "
                    + "sessionRefresh and maxInterval + 2 × sessionRefresh after its node died.");

    /** How long a node's liveness lease in Redis lasts unless renewed. */
    public static final ConfigOption<Duration> NODE_LEASE = ConfigOption.duration("nodeLease",
            Duration.ofSeconds(3), d -> d.compareTo(Duration.ofSeconds(1)) >= 0
                    && d.compareTo(Duration.ofMinutes(1)) <= 0, "a duration from 1s to 1m",
            "With sessionStore: how long the node's liveness key (<keyPrefix>:node:{<nodeId>}) lives unless "
                    + "renewed (every third of it). Another node adopts a session at once when its owner's lease "
                    + "is gone, and waits at most this long for a live owner to let it go; a node that could not "
                    + "renew its lease for two thirds of it stops serving its sessions until it checked them again.");
    /** How long a dead node's session stays adoptable beyond its maxInterval. */
    public static final ConfigOption<Duration> RECONNECT_WINDOW = ConfigOption.duration("reconnectWindow",
            Duration.ofSeconds(30), d -> !d.isNegative() && d.compareTo(Duration.ofMinutes(10)) <= 0,
            "a duration from 0s to 10m",
            "With sessionStore: how long a session's key outlives its node at least, so that its client can "
                    + "reach another node and be adopted (balancer detection plus a few client back-offs): a key "
                    + "expires max(maxInterval, reconnectWindow) + 2 × sessionRefresh after its last write or "
                    + "renewal. History must cover the messages of this window.");
    /** How many replicas must hold a publish before it is acknowledged. */
    public static final ConfigOption<Integer> MIN_REPLICAS = ConfigOption.integer("minReplicas", 0,
            n -> n >= 0 && n <= 16, "an integer from 0 to 16",
            "How many Redis replicas must hold a publish before it is acknowledged (WAIT after the publishes "
                    + "pipelined together, one WAIT for them all; fewer within half the operationTimeout: the "
                    + "publish fails with 503::backplane_unavailable), and hold the messages a node read before it "
                    + "delivers them, so that a promoted replica never gives a delivered message's offset to another. "
                    + "0: no wait (a failover may lose acknowledged publishes). redis:// or redis-sentinel:// only. "
                    + "With sessionStore, the sessions' written-through state and journal entries wait likewise.");

    /** Every option, in documentation order. */
    public static final List<ConfigOption<?>> OPTIONS = List.of(URI, USERNAME, PASSWORD_FILE, TLS_CA_FILE,
            TLS_VERIFY, KEY_PREFIX, SHARDS, STREAM_MAX_LENGTH,
            OPERATION_TIMEOUT, READ_BATCH, READ_BLOCK, MAX_PENDING_PUBLISHES, MIN_REPLICAS, IDEMPOTENCY_WINDOW,
            HISTORY_SIZE,
            HISTORY_AGE, HISTORY_RULES, HISTORY_META_TTL, HISTORY_MAX_BYTES, HISTORY_SHARD_MAX_BYTES, HISTORY_LOOK_BACK,
            RECOVERY_MAX_MESSAGES, RECOVERY_BUFFER, RECOVERY_CONCURRENCY, RECOVERY_RATE, RECOVERY_BURST, PRESENCE_TTL,
            SHARD_READ_GRACE, SESSION_STORE, SESSION_KEY_FILE, SESSION_WRITE_DELAY, SESSION_REFRESH, NODE_LEASE,
            RECONNECT_WINDOW, FAILOVER_HISTORY_MAX_LENGTH, FAILOVER_HISTORY_AGE);

    private RedisBackplaneConfig(Map<ConfigOption<?>, Object> values) {
        super(OPTIONS, values);
    }

    /** @return a configuration with every default */
    public static RedisBackplaneConfig defaults() {
        return builder().build();
    }

    /** @return a builder starting from the defaults */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * @param settings key to value; keys not in {@link #OPTIONS} are refused
     * @return the configuration
     * @throws InvalidConfigurationException for an unknown key or a bad value, naming both
     */
    public static RedisBackplaneConfig fromMap(Map<String, String> settings) {
        String uri = settings.get(URI.key());
        if (uri != null) {
            checkUri(uri.trim());
        }
        return new RedisBackplaneConfig(ConfigOptions.parse(OPTIONS, settings));
    }

    /**
     * Checks a URI before the generic rule would, so that its error shows the value with the password masked.
     *
     * @throws InvalidConfigurationException naming the key, the masked value and what is wrong
     */
    private static void checkUri(String uri) {
        String problem = RedisEndpoint.problem(uri);
        if (problem != null) {
            throw new InvalidConfigurationException(URI.key(), RedisEndpoint.mask(uri),
                    URI.ruleText() + "; here " + problem);
        }
    }

    /**
     * @param uri any text given as {@link #URI}, valid or not
     * @return it with the password of its user information masked, for errors and logs
     */
    public static String maskedUri(String uri) {
        return RedisEndpoint.mask(uri);
    }

    /**
     * Reads the password file (and, with {@link #SESSION_STORE}, the session key file) and checks the credentials and
     * TLS settings against the URI, as a backplane does when it is made: for a start that fails at once, before
     * anything else is started.
     *
     * @throws InvalidConfigurationException naming the key and the value if a secret file is unsafe, unreadable or
     *         too short, or a setting contradicts the URI
     */
    public void checkCredentials() {
        RedisEndpoint.resolve(this);
        if (sessionStore()) {
            SessionDigest.from(this);
        }
    }

    /** @return the settings, the URI's password masked */
    @Override
    public String toString() {
        String text = super.toString();
        String uri = uri();
        String masked = RedisEndpoint.mask(uri);
        return masked.equals(uri) ? text : text.replace(uri, masked);
    }

    /** How much of Redis's TLS certificate is checked. */
    public enum TlsVerify {
        /** Trusted, and naming the host connected to. */
        FULL,
        /** Trusted only. */
        CA
    }

    /** @return the table of {@link #OPTIONS} for {@code docs/cluster.md} */
    public static String markdownTable() {
        return ConfigOptions.markdownTable(OPTIONS);
    }

    /** @return {@link #URI} */
    public String uri() {
        return get(URI);
    }

    /** @return {@link #USERNAME} */
    public String username() {
        return get(USERNAME);
    }

    /** @return {@link #PASSWORD_FILE} */
    public String passwordFile() {
        return get(PASSWORD_FILE);
    }

    /** @return {@link #TLS_CA_FILE} */
    public String tlsCaFile() {
        return get(TLS_CA_FILE);
    }

    /** @return {@link #TLS_VERIFY} */
    public TlsVerify tlsVerify() {
        return get(TLS_VERIFY);
    }

    /** @return {@link #KEY_PREFIX} */
    public String keyPrefix() {
        return get(KEY_PREFIX);
    }

    /** @return {@link #SHARDS} */
    public int shards() {
        return get(SHARDS);
    }

    /** @return {@link #STREAM_MAX_LENGTH} */
    public int streamMaxLength() {
        return get(STREAM_MAX_LENGTH);
    }

    /** @return {@link #OPERATION_TIMEOUT} */
    public Duration operationTimeout() {
        return get(OPERATION_TIMEOUT);
    }

    /** @return {@link #READ_BATCH} */
    public int readBatch() {
        return get(READ_BATCH);
    }

    /** @return {@link #READ_BLOCK} */
    public Duration readBlock() {
        return get(READ_BLOCK);
    }

    /** @return {@link #MAX_PENDING_PUBLISHES} */
    public int maxPendingPublishes() {
        return get(MAX_PENDING_PUBLISHES);
    }

    /** @return {@link #MIN_REPLICAS} */
    public int minReplicas() {
        return get(MIN_REPLICAS);
    }

    /** @return {@link #IDEMPOTENCY_WINDOW} */
    public Duration idempotencyWindow() {
        return get(IDEMPOTENCY_WINDOW);
    }

    /** @return {@link #HISTORY_SIZE} */
    public int historySize() {
        return get(HISTORY_SIZE);
    }

    /** @return {@link #HISTORY_AGE} */
    public Duration historyAge() {
        return get(HISTORY_AGE);
    }

    /** @return {@link #HISTORY_RULES} */
    public String historyRules() {
        return get(HISTORY_RULES);
    }

    /** @return {@link #HISTORY_META_TTL} */
    public Duration historyMetaTtl() {
        return get(HISTORY_META_TTL);
    }

    /** @return {@link #HISTORY_MAX_BYTES} */
    public int historyMaxBytes() {
        return get(HISTORY_MAX_BYTES);
    }

    /** @return {@link #HISTORY_SHARD_MAX_BYTES} */
    public int historyShardMaxBytes() {
        return get(HISTORY_SHARD_MAX_BYTES);
    }

    /** @return {@link #HISTORY_LOOK_BACK} */
    public Duration historyLookBack() {
        return get(HISTORY_LOOK_BACK);
    }

    /** @return {@link #RECOVERY_CONCURRENCY} */
    public int recoveryConcurrency() {
        return get(RECOVERY_CONCURRENCY);
    }

    /** @return {@link #RECOVERY_RATE} */
    public int recoveryRate() {
        return get(RECOVERY_RATE);
    }

    /** @return {@link #RECOVERY_BURST} */
    public int recoveryBurst() {
        return get(RECOVERY_BURST);
    }

    /** @return {@link #RECOVERY_MAX_MESSAGES} */
    public int recoveryMaxMessages() {
        return get(RECOVERY_MAX_MESSAGES);
    }

    /** @return {@link #RECOVERY_BUFFER} */
    public int recoveryBuffer() {
        return get(RECOVERY_BUFFER);
    }

    /** @return {@link #SHARD_READ_GRACE} */
    public Duration shardReadGrace() {
        return get(SHARD_READ_GRACE);
    }

    /** @return {@link #PRESENCE_TTL} */
    public Duration presenceTtl() {
        return get(PRESENCE_TTL);
    }

    /** @return {@link #FAILOVER_HISTORY_MAX_LENGTH} */
    public int failoverHistoryMaxLength() {
        return get(FAILOVER_HISTORY_MAX_LENGTH);
    }

    /** @return {@link #FAILOVER_HISTORY_AGE} */
    public Duration failoverHistoryAge() {
        return get(FAILOVER_HISTORY_AGE);
    }

    /** @return {@link #SESSION_STORE} */
    public boolean sessionStore() {
        return get(SESSION_STORE);
    }

    /** @return {@link #SESSION_KEY_FILE} */
    public String sessionKeyFile() {
        return get(SESSION_KEY_FILE);
    }

    /** @return {@link #SESSION_WRITE_DELAY} */
    public Duration sessionWriteDelay() {
        return get(SESSION_WRITE_DELAY);
    }

    /** @return {@link #SESSION_REFRESH} */
    public Duration sessionRefresh() {
        return get(SESSION_REFRESH);
    }

    /** @return {@link #NODE_LEASE} */
    public Duration nodeLease() {
        return get(NODE_LEASE);
    }

    /** @return {@link #RECONNECT_WINDOW} */
    public Duration reconnectWindow() {
        return get(RECONNECT_WINDOW);
    }

    /** Collects values over the defaults, each validated as it is set. */
    public static final class Builder extends TypedConfig.Builder<Builder> {
        private Builder() {
            super(OPTIONS);
        }

        /**
         * @param uri {@link #URI}
         * @return this builder
         */
        public Builder uri(String uri) {
            checkUri(uri);
            return set(URI, uri);
        }

        /**
         * @param username {@link #USERNAME}, empty for the default user
         * @param passwordFile {@link #PASSWORD_FILE}, empty for none
         * @return this builder
         */
        public Builder credentials(String username, String passwordFile) {
            return set(USERNAME, username).set(PASSWORD_FILE, passwordFile);
        }

        /**
         * @param caFile {@link #TLS_CA_FILE}, empty for the JVM's trust store
         * @param verify {@link #TLS_VERIFY}
         * @return this builder
         */
        public Builder tls(String caFile, TlsVerify verify) {
            return set(TLS_CA_FILE, caFile).set(TLS_VERIFY, verify);
        }

        /**
         * @param maxLength {@link #STREAM_MAX_LENGTH}
         * @return this builder
         */
        public Builder streamMaxLength(int maxLength) {
            return set(STREAM_MAX_LENGTH, maxLength);
        }

        /**
         * @param timeout {@link #OPERATION_TIMEOUT}
         * @return this builder
         */
        public Builder operationTimeout(Duration timeout) {
            return set(OPERATION_TIMEOUT, timeout);
        }

        /**
         * @param replicas {@link #MIN_REPLICAS}
         * @return this builder
         */
        public Builder minReplicas(int replicas) {
            return set(MIN_REPLICAS, replicas);
        }

        /**
         * @param window {@link #IDEMPOTENCY_WINDOW}
         * @return this builder
         */
        public Builder idempotencyWindow(Duration window) {
            return set(IDEMPOTENCY_WINDOW, window);
        }

        /**
         * @param size {@link #HISTORY_SIZE}
         * @param age {@link #HISTORY_AGE}
         * @return this builder
         */
        public Builder history(int size, Duration age) {
            return set(HISTORY_SIZE, size).set(HISTORY_AGE, age);
        }

        /**
         * @param rules {@link #HISTORY_RULES}
         * @return this builder
         */
        public Builder historyRules(String rules) {
            return set(HISTORY_RULES, rules);
        }

        /**
         * @param channelMaxBytes {@link #HISTORY_MAX_BYTES}
         * @param shardMaxBytes {@link #HISTORY_SHARD_MAX_BYTES}
         * @return this builder
         */
        public Builder historyMaxBytes(int channelMaxBytes, int shardMaxBytes) {
            return set(HISTORY_MAX_BYTES, channelMaxBytes).set(HISTORY_SHARD_MAX_BYTES, shardMaxBytes);
        }

        /**
         * @param lookBack {@link #HISTORY_LOOK_BACK}
         * @return this builder
         */
        public Builder historyLookBack(Duration lookBack) {
            return set(HISTORY_LOOK_BACK, lookBack);
        }

        /**
         * @param concurrency {@link #RECOVERY_CONCURRENCY}
         * @param rate {@link #RECOVERY_RATE}
         * @param burst {@link #RECOVERY_BURST}
         * @return this builder
         */
        public Builder recoveryLimits(int concurrency, int rate, int burst) {
            return set(RECOVERY_CONCURRENCY, concurrency).set(RECOVERY_RATE, rate).set(RECOVERY_BURST, burst);
        }

        /**
         * @param max {@link #RECOVERY_MAX_MESSAGES}
         * @return this builder
         */
        public Builder recoveryMaxMessages(int max) {
            return set(RECOVERY_MAX_MESSAGES, max);
        }

        /**
         * @param ttl {@link #PRESENCE_TTL}
         * @return this builder
         */
        public Builder presenceTtl(Duration ttl) {
            return set(PRESENCE_TTL, ttl);
        }

        /**
         * @param grace {@link #SHARD_READ_GRACE}
         * @return this builder
         */
        public Builder shardReadGrace(Duration grace) {
            return set(SHARD_READ_GRACE, grace);
        }

        /**
         * @param on {@link #SESSION_STORE}
         * @param writeDelay {@link #SESSION_WRITE_DELAY}
         * @param refresh {@link #SESSION_REFRESH}
         * @return this builder
         */
        public Builder sessionStore(boolean on, Duration writeDelay, Duration refresh) {
            return set(SESSION_STORE, on).set(SESSION_WRITE_DELAY, writeDelay).set(SESSION_REFRESH, refresh);
        }

        /**
         * @param maxLength {@link #FAILOVER_HISTORY_MAX_LENGTH}
         * @param age {@link #FAILOVER_HISTORY_AGE}
         * @return this builder
         */
        public Builder failoverHistory(int maxLength, Duration age) {
            return set(FAILOVER_HISTORY_MAX_LENGTH, maxLength).set(FAILOVER_HISTORY_AGE, age);
        }

        /**
         * @param keyFile {@link #SESSION_KEY_FILE}, empty for a plain SHA-256
         * @return this builder
         */
        public Builder sessionKeyFile(String keyFile) {
            return set(SESSION_KEY_FILE, keyFile);
        }

        /**
         * @param lease {@link #NODE_LEASE}
         * @return this builder
         */
        public Builder nodeLease(Duration lease) {
            return set(NODE_LEASE, lease);
        }

        /**
         * @param window {@link #RECONNECT_WINDOW}
         * @return this builder
         */
        public Builder reconnectWindow(Duration window) {
            return set(RECONNECT_WINDOW, window);
        }

        /** @return the configuration */
        public RedisBackplaneConfig build() {
            return new RedisBackplaneConfig(values());
        }
    }
}
