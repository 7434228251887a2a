package org.bayeux.testsupport;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * A TCP load balancer for failover tests, in front of server nodes on 127.0.0.1, that behaves as a production one
 * configured for failover (HAProxy's {@code on-marked-down shutdown-sessions}):
 * <ul>
 * <li>Front ports on 127.0.0.1. {@link Routing#STICKY}: front {@code i} sends every connection to its primary node
 * {@code i % nodes} while that node is healthy, else to the next healthy node (in index order), and back to the
 * primary once it is healthy again (stickiness by front port). {@link Routing#ROUND_ROBIN}: every new connection, on
 * any front, goes to the next healthy node.</li>
 * <li>A health check: {@code GET /health/ready} on each node every {@code healthPeriod} (default 250 ms), each
 * bounded by {@code healthTimeout}; a node fails after {@code failAfter} failed checks in a row and is healthy again
 * after one passed check.</li>
 * <li>When a node fails: the fronts routed to it are routed to a healthy node, and every open connection to it is
 * cut with a reset ({@code SO_LINGER 0}), so its clients learn at once and come back through the balancer.</li>
 * <li>{@link #blackhole(int)}: the node's connections stay open but silent in both directions, bytes dropped, and
 * the node's own end of a connection is not passed on: a machine that vanished, whose kernel closes nothing. The
 * health check still asks the node itself, so the test decides when the node fails (by killing it).</li>
 * </ul>
 * Counters tell what it did. Every thread it starts (an acceptor per front, a health checker per node, two relay
 * threads per connection, connections bounded by {@code maxConnections}) is a daemon and is stopped by
 * {@link #close()}.
 */
public final class FailoverBalancer implements AutoCloseable {
    /** How fronts pick a node for a new connection. */
    public enum Routing {
        /** Each front to its primary node while healthy, else the next healthy one. */
        STICKY,
        /** Each new connection, on any front, to the next healthy node. */
        ROUND_ROBIN
    }

    private static final Duration STOP_LIMIT = Duration.ofSeconds(5);

    private final InetAddress loopback;
    private final List<Integer> nodePorts;
    private final Routing routing;
    private final int failAfter;
    private final int maxConnections;
    private final int connectTimeoutMillis;
    private final List<ServerSocket> fronts = new ArrayList<>();
    /** The node each front sends its new connections to; guarded by this. */
    private final int[] routes;
    /** Guarded by this. */
    private final boolean[] healthy;
    /** Failed checks in a row, per node; each written only by its node's checker thread. */
    private final int[] failures;
    private final boolean[] blackholed;
    private final Set<BalancedConnection> open = ConcurrentHashMap.newKeySet();
    private final AtomicInteger nextNode = new AtomicInteger();
    private final LongAdder accepted = new LongAdder();
    private final LongAdder refused = new LongAdder();
    private final LongAdder cut = new LongAdder();
    private final LongAdder reroutes = new LongAdder();
    private final LongAdder markedDown = new LongAdder();
    private final LongAdder checks = new LongAdder();
    private final LongAdder droppedBytes = new LongAdder();
    private final ExecutorService acceptors;
    private final ExecutorService relays;
    private final ScheduledExecutorService checkers;
    /** Guarded by this. */
    private boolean closed;

    private FailoverBalancer(Builder builder) throws IOException {
        this.loopback = InetAddress.getByName("127.0.0.1");
        this.nodePorts = List.copyOf(builder.nodePorts);
        this.routing = builder.routing;
        this.failAfter = builder.failAfter;
        this.maxConnections = builder.maxConnections;
        this.connectTimeoutMillis = Math.toIntExact(builder.healthTimeout.toMillis());
        int nodes = nodePorts.size();
        this.routes = new int[builder.fronts];
        this.healthy = new boolean[nodes];
        this.failures = new int[nodes];
        this.blackholed = new boolean[nodes];
        Arrays.fill(healthy, true);
        this.acceptors = Executors.newFixedThreadPool(builder.fronts, daemons("balancer-front"));
        this.relays = Executors.newCachedThreadPool(daemons("balancer-relay"));
        this.checkers = Executors.newScheduledThreadPool(nodes, daemons("balancer-health"));
        try {
            for (int front = 0; front < builder.fronts; front++) {
                routes[front] = front % nodes;
                fronts.add(new ServerSocket(0, 128, loopback));
            }
        } catch (IOException failed) {
            close();
            throw failed;
        }
        for (int front = 0; front < fronts.size(); front++) {
            int index = front;
            acceptors.execute(() -> accept(index));
        }
        ReadinessProbe probe = new ReadinessProbe(loopback, builder.healthPath, builder.healthTimeout);
        for (int node = 0; node < nodes; node++) {
            int index = node;
            checkers.scheduleWithFixedDelay(() -> checked(index, probe.isReady(nodePorts.get(index))), 0,
                    builder.healthPeriod.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /**
     * @param nodePorts the nodes' ports on 127.0.0.1, in index order
     * @return a builder with one front per node, sticky routing and the default health check
     */
    public static Builder builder(List<Integer> nodePorts) {
        return new Builder(nodePorts);
    }

    /** @return how many front ports there are */
    public int fronts() {
        return fronts.size();
    }

    /**
     * @param front a front's index
     * @return its port on 127.0.0.1
     */
    public int frontPort(int front) {
        return fronts.get(front).getLocalPort();
    }

    /**
     * @param front a front's index
     * @return the index of the node its new connections go to now (sticky routing)
     */
    public synchronized int routeOf(int front) {
        return routes[front];
    }

    /**
     * @param node a node's index
     * @return false from the moment its health check failed {@code failAfter} times in a row until it passes again
     */
    public synchronized boolean isHealthy(int node) {
        return healthy[node];
    }

    /**
     * Holds the node's connections, present and future, open and silent in both directions, as a machine that
     * vanished; until {@link #restore(int)}. The node itself is left alone: kill it to make its health check fail.
     *
     * @param node a node's index
     */
    public synchronized void blackhole(int node) {
        blackholed[node] = true;
    }

    /** @param node a node's index: relays its connections again (for a node started anew after a black hole) */
    public synchronized void restore(int node) {
        blackholed[node] = false;
    }

    /**
     * @param node a node's index
     * @return how many connections to it are open now
     */
    public long openConnections(int node) {
        return open.stream().filter(connection -> connection.node() == node).count();
    }

    /** @return connections accepted and relayed to a node, since the start */
    public long connectionsAccepted() {
        return accepted.sum();
    }

    /** @return connections refused with a reset: no node could be reached, or {@code maxConnections} were open */
    public long connectionsRefused() {
        return refused.sum();
    }

    /** @return connections cut with a reset because their node failed its health check */
    public long connectionsCut() {
        return cut.sum();
    }

    /** @return changes of a front's route (sticky routing), both away from a failed node and back */
    public long reroutes() {
        return reroutes.sum();
    }

    /** @return how many times a node was marked failed */
    public long nodesMarkedDown() {
        return markedDown.sum();
    }

    /** @return health checks completed, on all nodes */
    public long checksCompleted() {
        return checks.sum();
    }

    /** @return bytes read from black-holed connections and dropped, in both directions */
    public long bytesDropped() {
        return droppedBytes.sum();
    }

    private void accept(int front) {
        ServerSocket listener = fronts.get(front);
        while (!listener.isClosed()) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException closedListener) {
                return;
            }
            try {
                admit(front, client);
            } catch (RuntimeException unexpected) {
                refused.increment();
                BalancedConnection.closeQuietly(client);
            }
        }
    }

    private void admit(int front, Socket client) {
        int node;
        synchronized (this) {
            node = closed || open.size() >= maxConnections ? -1 : pick(front);
        }
        Socket server = new Socket();
        try {
            if (node < 0) {
                throw new IOException("no node");
            }
            client.setTcpNoDelay(true);
            server.setTcpNoDelay(true);
            server.connect(new InetSocketAddress(loopback, nodePorts.get(node)), connectTimeoutMillis);
        } catch (IOException unreachable) {
            refused.increment();
            BalancedConnection.reset(client);
            BalancedConnection.closeQuietly(server);
            return;
        }
        int target = node;
        BalancedConnection connection = new BalancedConnection(node, client, server, () -> isBlackholed(target),
                droppedBytes, open::remove);
        boolean admitted;
        synchronized (this) {
            // Checked again under the lock that marks nodes down, so that no connection escapes a cut.
            admitted = !closed && healthy[node];
            if (admitted) {
                open.add(connection);
            }
        }
        if (!admitted) {
            cut.increment();
            connection.cut();
            return;
        }
        accepted.increment();
        connection.start(relays);
    }

    /** Guarded by this. */
    private int pick(int front) {
        if (routing == Routing.STICKY) {
            return routes[front];
        }
        int nodes = nodePorts.size();
        for (int tries = 0; tries < nodes; tries++) {
            int node = Math.floorMod(nextNode.getAndIncrement(), nodes);
            if (healthy[node]) {
                return node;
            }
        }
        return Math.floorMod(nextNode.getAndIncrement(), nodes);
    }

    private synchronized boolean isBlackholed(int node) {
        return blackholed[node];
    }

    private void checked(int node, boolean ready) {
        List<BalancedConnection> toCut = List.of();
        synchronized (this) {
            if (closed) {
                return;
            }
            checks.increment();
            if (ready) {
                failures[node] = 0;
                if (!healthy[node]) {
                    healthy[node] = true;
                    reroute();
                }
            } else if (++failures[node] >= failAfter && healthy[node]) {
                healthy[node] = false;
                markedDown.increment();
                reroute();
                toCut = open.stream().filter(connection -> connection.node() == node).toList();
            }
        }
        for (BalancedConnection connection : toCut) {
            cut.increment();
            connection.cut();
        }
    }

    /** Each front to its primary node if healthy, else to the next healthy one; guarded by this. */
    private void reroute() {
        int nodes = nodePorts.size();
        for (int front = 0; front < routes.length; front++) {
            int primary = front % nodes;
            int route = primary;
            for (int step = 0; step < nodes; step++) {
                int candidate = (primary + step) % nodes;
                if (healthy[candidate]) {
                    route = candidate;
                    break;
                }
            }
            if (route != routes[front]) {
                routes[front] = route;
                reroutes.increment();
            }
        }
    }

    @Override
    public void close() {
        synchronized (this) {
            closed = true;
        }
        for (ServerSocket front : fronts) {
            try {
                front.close();
            } catch (IOException ignored) {
                // Closing anyway.
            }
        }
        checkers.shutdownNow();
        for (BalancedConnection connection : List.copyOf(open)) {
            connection.cut();
        }
        acceptors.shutdownNow();
        relays.shutdownNow();
        try {
            for (ExecutorService threads : List.of(checkers, acceptors, relays)) {
                threads.awaitTermination(STOP_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private static ThreadFactory daemons(String name) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, name + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    /** The balancer's settings; {@link #start()} binds the fronts and starts the health checks. */
    public static final class Builder {
        private final List<Integer> nodePorts;
        private int fronts;
        private Routing routing = Routing.STICKY;
        private Duration healthPeriod = Duration.ofMillis(250);
        private Duration healthTimeout = Duration.ofSeconds(1);
        private String healthPath = "/health/ready";
        private int failAfter = 1;
        private int maxConnections = 512;

        private Builder(List<Integer> nodePorts) {
            if (nodePorts.isEmpty()) {
                throw new IllegalArgumentException("nodePorts: at least one node");
            }
            this.nodePorts = List.copyOf(nodePorts);
            this.fronts = nodePorts.size();
        }

        /** @param fronts front ports, at least 1 (default: one per node); front i's primary node is i % nodes */
        public Builder fronts(int fronts) {
            this.fronts = positive("fronts", fronts);
            return this;
        }

        /** @param routing sticky by front port (default) or round-robin per connection */
        public Builder routing(Routing routing) {
            this.routing = Objects.requireNonNull(routing, "routing");
            return this;
        }

        /** @param period between the end of one check of a node and the start of the next (default 250 ms) */
        public Builder healthPeriod(Duration period) {
            this.healthPeriod = positive("healthPeriod", period);
            return this;
        }

        /** @param timeout bounds a check's connect and each of its reads, and a relay's connect (default 1 s) */
        public Builder healthTimeout(Duration timeout) {
            this.healthTimeout = positive("healthTimeout", timeout);
            return this;
        }

        /** @param path the readiness path (default {@code /health/ready}) */
        public Builder healthPath(String path) {
            if (path == null || !path.startsWith("/")) {
                throw new IllegalArgumentException("healthPath: '" + path + "' must start with /");
            }
            this.healthPath = path;
            return this;
        }

        /** @param failAfter failed checks in a row that mark a node failed (default 1) */
        public Builder failAfter(int failAfter) {
            this.failAfter = positive("failAfter", failAfter);
            return this;
        }

        /** @param maxConnections open connections at most; more are refused with a reset (default 512) */
        public Builder maxConnections(int maxConnections) {
            this.maxConnections = positive("maxConnections", maxConnections);
            return this;
        }

        /**
         * @return the running balancer
         * @throws IOException if a front port cannot be bound
         */
        public FailoverBalancer start() throws IOException {
            return new FailoverBalancer(this);
        }

        private static int positive(String name, int value) {
            if (value < 1) {
                throw new IllegalArgumentException(name + ": " + value + " must be at least 1");
            }
            return value;
        }

        private static Duration positive(String name, Duration value) {
            if (value == null || value.isNegative() || value.isZero() || value.toMillis() > Integer.MAX_VALUE) {
                throw new IllegalArgumentException(name + ": " + value + " must be a positive duration");
            }
            return value;
        }
    }
}
