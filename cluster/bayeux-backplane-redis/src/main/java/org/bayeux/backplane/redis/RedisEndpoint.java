package org.bayeux.backplane.redis;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslVerifyMode;
import org.bayeux.server.config.InvalidConfigurationException;

/**
 * Where the backplane's Redis is and how it proves who it is, resolved from its settings once, at start: the URI
 * parsed by Lettuce's own parser ({@link RedisURI#create}), the password of {@link RedisBackplaneConfig#PASSWORD_FILE}
 * and the user of {@link RedisBackplaneConfig#USERNAME} applied to every seed, and TLS for {@code rediss://} and
 * {@code rediss-cluster://}. Every text it makes for logs or errors has the password masked ({@link #mask}).
 *
 * <p>The URI forms: {@code redis://[USER:PASSWORD@]HOST:PORT[/DB]}, {@code rediss://…} (TLS), for a Redis
 * Cluster {@code redis-cluster://[USER:PASSWORD@]HOST:PORT,HOST:PORT,…} and {@code rediss-cluster://…} (TLS), and for
 * a master watched by Redis Sentinel {@code redis-sentinel://[USER:PASSWORD@]HOST:PORT,HOST:PORT,…/MASTER-NAME}: the
 * hosts are the sentinels, asked for the master's address at each (re)connect, so that a connection follows a
 * promotion; the credentials are the master's and its replicas' (the sentinels are asked without any). Sentinel over
 * TLS ({@code rediss-sentinel://}) is refused: not built (nor tested) yet. A
 * {@code /}, {@code @} or {@code %} in a password written in the URI must be percent-encoded ({@code %2F}); a password
 * in a file needs no encoding, and keeps it off command lines and out of configuration files.</p>
 */
final class RedisEndpoint {
    /** The scheme of a Redis Cluster URI. */
    static final String CLUSTER_SCHEME = "redis-cluster://";
    /** The scheme of a Redis Cluster URI over TLS. */
    static final String TLS_CLUSTER_SCHEME = "rediss-cluster://";
    /** The scheme of a URI naming the sentinels of a master: {@code redis-sentinel://HOST:PORT,…/MASTER-NAME}. */
    static final String SENTINEL_SCHEME = "redis-sentinel://";
    /** Refused: Sentinel over TLS. */
    static final String TLS_SENTINEL_SCHEME = "rediss-sentinel://";
    /** What a masked password shows. */
    static final String MASK = "***";

    private final List<RedisURI> seeds;
    private final boolean cluster;
    private final boolean tls;
    private final String description;
    private final File trustedCertificates;
    /** With {@link #SENTINEL_SCHEME}: the name of the master the sentinels watch; else null. */
    private final String sentinelMaster;

    private RedisEndpoint(List<RedisURI> seeds, boolean cluster, boolean tls, File trustedCertificates,
            String sentinelMaster) {
        this.seeds = List.copyOf(seeds);
        this.cluster = cluster;
        this.tls = tls;
        this.trustedCertificates = trustedCertificates;
        this.sentinelMaster = sentinelMaster;
        StringBuilder hosts = new StringBuilder(cluster ? "Redis Cluster " : sentinelMaster != null
                ? "Redis Sentinel " : "Redis ");
        List<RedisURI> listed = sentinelMaster != null ? seeds.get(0).getSentinels() : seeds;
        for (int i = 0; i < listed.size(); i++) {
            hosts.append(i == 0 ? "" : ",").append(listed.get(i).getHost()).append(':')
                    .append(listed.get(i).getPort());
        }
        if (sentinelMaster != null) {
            hosts.append(" master ").append(sentinelMaster);
        }
        this.description = hosts.append(tls ? " (TLS)" : "").toString();
    }

    /**
     * Resolves the settings, reading the password file now.
     *
     * @param config the backplane's settings
     * @return the endpoint
     * @throws InvalidConfigurationException naming the key and the value (the password masked) if the URI does not
     *         parse, the password file is unsafe or unreadable, or a setting contradicts the URI
     */
    static RedisEndpoint resolve(RedisBackplaneConfig config) {
        String text = config.uri();
        String problem = problem(text);
        if (problem != null) {
            throw invalidUri(text, problem);
        }
        boolean cluster = isCluster(text);
        if (cluster && config.minReplicas() > 0) {
            // WAIT counts the replicas of the server its connection is on: on a cluster it would have to go to each
            // slot's master, on that master's own connection. Not built: refused rather than not waiting.
            throw new InvalidConfigurationException(RedisBackplaneConfig.MIN_REPLICAS.key(),
                    Integer.toString(config.minReplicas()), "0 with a Redis Cluster (" + RedisBackplaneConfig.URI.key()
                            + "=" + mask(text) + "): waiting for replicas works on redis:// and redis-sentinel://");
        }
        boolean tls = isTls(text);
        String master = isSentinel(text) ? sentinelMaster(text) : null;
        List<RedisURI> parsed = cluster ? clusterSeeds(text) : master != null ? sentinels(text)
                : List.of(RedisURI.create(text));
        RedisCredentials inUri = parsed.get(0).getCredentialsProvider() == null ? null
                : parsed.get(0).getCredentialsProvider().resolveCredentials().block();
        String uriUser = inUri == null ? null : inUri.getUsername();
        char[] uriPassword = inUri == null || !inUri.hasPassword() ? null : inUri.getPassword();
        String username = config.username().isEmpty() ? uriUser : config.username();
        if (uriUser != null && !config.username().isEmpty() && !uriUser.equals(config.username())) {
            throw new InvalidConfigurationException(RedisBackplaneConfig.USERNAME.key(), config.username(),
                    "the user the URI names, or the URI without a user (" + RedisBackplaneConfig.URI.key() + "="
                            + mask(text) + ")");
        }
        char[] password = uriPassword;
        if (!config.passwordFile().isEmpty()) {
            if (uriPassword != null) {
                throw new InvalidConfigurationException(RedisBackplaneConfig.PASSWORD_FILE.key(),
                        config.passwordFile(), "unset while " + RedisBackplaneConfig.URI.key() + " holds a password ("
                                + mask(text) + "): give the password once, in the file");
            }
            password = SecretFile.read(RedisBackplaneConfig.PASSWORD_FILE.key(), config.passwordFile());
        }
        if (username != null && password == null) {
            throw new InvalidConfigurationException(RedisBackplaneConfig.USERNAME.key(), username,
                    "given with a password (" + RedisBackplaneConfig.PASSWORD_FILE.key() + ")");
        }
        File trusted = null;
        if (!config.tlsCaFile().isEmpty()) {
            if (!tls) {
                throw new InvalidConfigurationException(RedisBackplaneConfig.TLS_CA_FILE.key(), config.tlsCaFile(),
                        "unset unless the URI is rediss:// or rediss-cluster:// (" + mask(text) + ")");
            }
            trusted = new File(config.tlsCaFile());
            if (!trusted.isFile() || !trusted.canRead()) {
                throw new InvalidConfigurationException(RedisBackplaneConfig.TLS_CA_FILE.key(), config.tlsCaFile(),
                        "a readable PEM file of trusted certificates");
            }
        }
        SslVerifyMode verify = config.tlsVerify() == RedisBackplaneConfig.TlsVerify.CA ? SslVerifyMode.CA
                : SslVerifyMode.FULL;
        if (master != null) {
            RedisURI.Builder builder = RedisURI.builder().withSentinelMasterId(master);
            for (RedisURI sentinel : parsed) {
                builder.withSentinel(sentinel.getHost(), sentinel.getPort());
            }
            if (password != null) {
                if (username != null) {
                    builder.withAuthentication(username, password);
                } else {
                    builder.withPassword(password);
                }
            }
            return new RedisEndpoint(List.of(builder.build()), false, false, trusted, master);
        }
        List<RedisURI> seeds = new ArrayList<>(parsed.size());
        for (RedisURI seed : parsed) {
            RedisURI.Builder builder = RedisURI.builder().withHost(seed.getHost()).withPort(seed.getPort())
                    .withDatabase(seed.getDatabase()).withSsl(tls);
            if (tls) {
                builder.withVerifyPeer(verify);
            }
            if (password != null) {
                if (username != null) {
                    builder.withAuthentication(username, password);
                } else {
                    builder.withPassword(password);
                }
            }
            seeds.add(builder.build());
        }
        return new RedisEndpoint(seeds, cluster, tls, trusted, null);
    }

    /**
     * @param text a value of {@link RedisBackplaneConfig#URI}
     * @return whether Lettuce's parser and the backplane's rules take it
     */
    static boolean isValidUri(String text) {
        return problem(text) == null;
    }

    /**
     * @param text a value of {@link RedisBackplaneConfig#URI}
     * @return what is wrong with it, without any part of its password, or null
     */
    static String problem(String text) {
        String lower = text.toLowerCase(Locale.ROOT);
        try {
            if (isCluster(lower)) {
                clusterSeeds(text);
                return null;
            }
            if (lower.startsWith(TLS_SENTINEL_SCHEME)) {
                return "Redis Sentinel over TLS (" + TLS_SENTINEL_SCHEME + ") is not supported: use "
                        + SENTINEL_SCHEME + " on a trusted network, or rediss:// to the master";
            }
            if (isSentinel(lower)) {
                sentinelMaster(text);
                sentinels(text);
                return null;
            }
            if (!lower.startsWith("redis://") && !lower.startsWith("rediss://")) {
                return "an unknown scheme";
            }
            RedisURI uri = RedisURI.create(text);
            return hostProblem(uri.getHost(), uri.getPort(), text.contains("["));
        } catch (RuntimeException unparsable) {
            // Lettuce's and java.net.URI's messages quote the text, password included: only the kind is said.
            return unparsable.getMessage() != null && unparsable.getMessage().startsWith("'")
                    ? unparsable.getMessage() : "not a URI Lettuce parses (" + unparsable.getClass().getSimpleName()
                    + "; a /, @ or % in a password must be percent-encoded, or the password given in "
                    + RedisBackplaneConfig.PASSWORD_FILE.key() + ")";
        }
    }

    private static String hostProblem(String host, int port, boolean bracketed) {
        if (host == null || host.isEmpty()) {
            return "no host";
        }
        if (host.contains(",")) {
            return "several hosts: a Redis Cluster is " + CLUSTER_SCHEME + "HOST:PORT,HOST:PORT,..., sentinels "
                    + SENTINEL_SCHEME + "HOST:PORT,HOST:PORT,.../MASTER-NAME";
        }
        if ((host.contains(":") && !bracketed) || host.contains("@") || host.contains("/") || host.contains("%")) {
            return "not HOST:PORT";
        }
        if (port < 1 || port > 65535) {
            return "a port out of 1..65535";
        }
        return null;
    }

    private static InvalidConfigurationException invalidUri(String text, String problem) {
        return new InvalidConfigurationException(RedisBackplaneConfig.URI.key(), mask(text),
                RedisBackplaneConfig.URI.ruleText() + "; here " + problem);
    }

    /** @return whether the URI names a Redis Cluster */
    static boolean isCluster(String uri) {
        String lower = uri.toLowerCase(Locale.ROOT);
        return lower.startsWith(CLUSTER_SCHEME) || lower.startsWith(TLS_CLUSTER_SCHEME);
    }

    /** @return whether the URI names the sentinels of a master */
    static boolean isSentinel(String uri) {
        return uri.toLowerCase(Locale.ROOT).startsWith(SENTINEL_SCHEME);
    }

    /**
     * @param uri {@code redis-sentinel://[USER:PASSWORD@]HOST:PORT,…/MASTER-NAME}
     * @return the master's name
     * @throws IllegalArgumentException if there is none, or it is not a plain word
     */
    static String sentinelMaster(String uri) {
        String rest = uri.substring(SENTINEL_SCHEME.length());
        int slash = rest.lastIndexOf('/');
        if (slash < rest.lastIndexOf('@')) {
            slash = -1;
        }
        String name = slash < 0 ? "" : rest.substring(slash + 1);
        if (name.isEmpty()) {
            throw new IllegalArgumentException("'" + rest.substring(rest.lastIndexOf('@') + 1)
                    + "': no /MASTER-NAME after the sentinels");
        }
        if (!name.chars().allMatch(c -> c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
                || c == '-' || c == '_' || c == '.')) {
            throw new IllegalArgumentException("'" + name + "' is not a master name (letters, digits, - _ .)");
        }
        return name;
    }

    /**
     * @param uri {@code redis-sentinel://[USER:PASSWORD@]HOST:PORT,…/MASTER-NAME}
     * @return the sentinels, at least one (with the URI's credentials, which {@link #resolve} applies to the master)
     * @throws IllegalArgumentException naming the first part that is not {@code host:port} (never the password)
     */
    static List<RedisURI> sentinels(String uri) {
        String rest = uri.substring(SENTINEL_SCHEME.length());
        int slash = rest.lastIndexOf('/');
        return hostList(slash < 0 || slash < rest.lastIndexOf('@') ? rest : rest.substring(0, slash), false);
    }

    /** @return whether the URI asks for TLS */
    static boolean isTls(String uri) {
        String lower = uri.toLowerCase(Locale.ROOT);
        return lower.startsWith("rediss://") || lower.startsWith(TLS_CLUSTER_SCHEME);
    }

    /**
     * @param uri {@code redis-cluster://[USER:PASSWORD@]host:port,host:port,…} or {@code rediss-cluster://…}
     * @return the seed nodes, at least one, each with the URI's credentials and TLS (Lettuce parses the user
     *         information)
     * @throws IllegalArgumentException naming the first part that is not {@code host:port} (never the password)
     */
    static List<RedisURI> clusterSeeds(String uri) {
        boolean tls = uri.toLowerCase(Locale.ROOT).startsWith(TLS_CLUSTER_SCHEME);
        return hostList(uri.substring(tls ? TLS_CLUSTER_SCHEME.length() : CLUSTER_SCHEME.length()), tls);
    }

    /**
     * @param rest {@code [USER:PASSWORD@]host:port,host:port,…}
     * @param tls whether the hosts are reached over TLS
     * @return one URI per host, with the user information
     */
    private static List<RedisURI> hostList(String rest, boolean tls) {
        int at = rest.lastIndexOf('@');
        String userInfo = at < 0 ? null : rest.substring(0, at);
        String list = rest.substring(at + 1);
        if (list.isEmpty()) {
            throw new IllegalArgumentException("'' is not host:port: no host:port after the scheme");
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
            // Lettuce's own parser reads the user information (percent-decoding it) and the host.
            RedisURI seed = RedisURI.create((tls ? "rediss://" : "redis://")
                    + (userInfo == null ? "" : userInfo + "@") + part);
            if (seed.getPort() != port || hostProblem(seed.getHost(), seed.getPort(), part.contains("[")) != null) {
                throw new IllegalArgumentException("'" + part + "' is not host:port");
            }
            seeds.add(seed);
        }
        return seeds;
    }

    /**
     * @param uri any text given as {@link RedisBackplaneConfig#URI}, parsable or not
     * @return the text with the password of its user information replaced by {@value #MASK} (the user kept)
     */
    static String mask(String uri) {
        int scheme = uri.indexOf("://");
        int at = uri.lastIndexOf('@');
        if (scheme < 0 || at < scheme) {
            return uri;
        }
        String userInfo = uri.substring(scheme + 3, at);
        int colon = userInfo.indexOf(':');
        String user = colon <= 0 ? "" : userInfo.substring(0, colon) + ":";
        return uri.substring(0, scheme + 3) + user + MASK + uri.substring(at);
    }

    /** @return the seeds, credentials and TLS applied: one for a single server */
    List<RedisURI> seeds() {
        return seeds;
    }

    /** @return the master's name with {@code redis-sentinel://}, else null */
    String sentinelMaster() {
        return sentinelMaster;
    }

    /** @return whether this is a Redis Cluster */
    boolean cluster() {
        return cluster;
    }

    /** @return whether the connections use TLS */
    boolean tls() {
        return tls;
    }

    /** @return the PEM file of certificates trusted instead of the JVM's, or null */
    File trustedCertificates() {
        return trustedCertificates;
    }

    /** @return where it goes, hosts and ports only, for logs */
    String description() {
        return description;
    }
}
