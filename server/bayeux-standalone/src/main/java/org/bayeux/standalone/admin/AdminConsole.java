package org.bayeux.standalone.admin;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import java.util.function.Supplier;

import org.bayeux.api.Promise;
import org.bayeux.api.server.ServerChannel;
import org.bayeux.api.server.ServerSession;
import org.bayeux.backplane.redis.RedisBackplane;
import org.bayeux.oort.LinkSnapshot;
import org.bayeux.oort.Oort;
import org.bayeux.server.BayeuxEngine;
import org.bayeux.server.EngineStatistics;
import org.bayeux.server.cluster.Cluster;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.handler.ContextHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin page of the standalone server: its page at {@value #PATH}, its statistics channel {@value #CHANNEL},
 * and the engine's text dump on request at {@value #DUMP_CHANNEL}. Made only when {@code admin.token} is set. Once a
 * second, while at least one admin session is subscribed, one snapshot is built and delivered to each subscriber
 * directly (never published: a wildcard subscriber such as {@code /**} cannot see it).
 */
public final class AdminConsole implements AutoCloseable {
    /** The page's path. */
    public static final String PATH = "/admin";
    /** The statistics channel. */
    public static final String CHANNEL = "/bayeux/admin/stats";
    /** Where an admin session asks for the engine's text dump, and gets it back ({@link AdminDump}). */
    public static final String DUMP_CHANNEL = "/service/admin/dump";

    private static final Logger LOG = LoggerFactory.getLogger(AdminConsole.class);

    private final BayeuxEngine engine;
    private final AdminAccess access;
    private final ServerChannel channel;
    private final LatencyHistogram latency = new LatencyHistogram();
    private final ChannelCounter counter = new ChannelCounter();
    private final AdminStats stats;
    private final LongConsumer previousRecorder;
    private final ScheduledExecutorService ticker;
    /** The channel the counter listens on while watched, or null. Admin thread only. */
    private ServerChannel counting;

    /**
     * Sets up the admin sessions' access (wrapping the security policy set now: call it after the application has
     * set its own) and starts the ticker.
     *
     * @param engine the engine
     * @param token the admin token (checked by {@code OperationsConfig})
     * @param cluster the cluster's state for the page ({@link #clusterView}), or null for a single node
     */
    public AdminConsole(BayeuxEngine engine, String token, Supplier<Map<String, Object>> cluster) {
        this.engine = engine;
        this.access = new AdminAccess(token, engine.getSecurityPolicy());
        engine.setSecurityPolicy(access);
        channel = engine.createChannelIfAbsent(CHANNEL, created -> {
            created.setPersistent(true);
            created.addAuthorizer(access);
        });
        AdminDump dump = new AdminDump(engine::dump);
        engine.createChannelIfAbsent(DUMP_CHANNEL, created -> {
            created.setPersistent(true);
            created.addAuthorizer(dump);
            created.addMessageListener(dump);
        });
        EngineStatistics statistics = engine.statistics();
        previousRecorder = statistics.getDeliveryLatencyRecorder();
        statistics.setDeliveryLatencyRecorder(previousRecorder == null ? latency : previousRecorder.andThen(latency));
        stats = new AdminStats(engine, latency, counter, cluster, access);
        ticker = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "bayeux-admin");
            thread.setDaemon(true);
            return thread;
        });
        ticker.scheduleAtFixedRate(this::tick, 1, 1, TimeUnit.SECONDS);
    }

    /**
     * @param next every other request's handler
     * @return a handler serving the page at {@value #PATH} (and {@code /admin/...}), then {@code next}
     */
    public Handler mount(Handler next) {
        ContextHandler page = new ContextHandler(new AdminPageHandler(), PATH);
        return new Handler.Sequence(page, next);
    }

    private void tick() {
        try {
            List<ServerSession> watchers = new ArrayList<>();
            for (ServerSession session : channel.getSubscribers()) {
                if (AdminAccess.isAdmin(session)) {
                    watchers.add(session);
                }
            }
            if (watchers.isEmpty()) {
                stopCounting();
                stats.baseline();
                return;
            }
            if (counting == null) {
                counting = engine.createChannelIfAbsent("/**", created -> created.setPersistent(true));
                counting.addMessageListener(counter);
            }
            Map<String, Object> snapshot = stats.snapshot();
            for (ServerSession watcher : watchers) {
                watcher.deliver(null, CHANNEL, snapshot, Promise.noop());
            }
        } catch (RuntimeException failure) {
            // The next tick tries again; a failure must not end the schedule.
            LOG.warn("Admin statistics failed", failure);
        }
    }

    private void stopCounting() {
        if (counting != null) {
            counting.removeMessageListener(counter);
            counting = null;
        }
    }

    /**
     * @param oort the Oort node, or null
     * @param backplane the Redis backplane, or null
     * @param other any other cluster the engine joined, or null
     * @return what the page shows of the cluster, read at each snapshot; null for a single node
     */
    public static Supplier<Map<String, Object>> clusterView(Oort oort, RedisBackplane backplane, Cluster other) {
        if (oort != null) {
            return () -> {
                Map<String, Object> view = new LinkedHashMap<>();
                view.put("kind", "oort");
                view.put("available", true);
                view.put("self", oort.config().url());
                List<Map<String, Object>> nodes = new ArrayList<>();
                for (LinkSnapshot link : oort.links()) {
                    Map<String, Object> node = new LinkedHashMap<>();
                    node.put("url", link.url());
                    node.put("state", link.linkState());
                    node.put("joined", link.memberId() != null);
                    node.put("roundTripMs", link.roundTrip() == null ? null : link.roundTrip().toNanos() / 1e6);
                    node.put("queued", link.queued());
                    nodes.add(node);
                }
                view.put("nodes", nodes);
                return view;
            };
        }
        if (backplane != null) {
            return () -> {
                Map<String, Object> view = new LinkedHashMap<>();
                view.put("kind", "redis");
                view.put("available", backplane.isAvailable());
                view.put("connected", backplane.isConnected());
                view.put("self", backplane.nodeId());
                return view;
            };
        }
        if (other != null) {
            return () -> {
                Map<String, Object> view = new LinkedHashMap<>();
                view.put("kind", "other");
                view.put("available", other.isAvailable());
                return view;
            };
        }
        return null;
    }

    /** Stops the ticker and gives the latency recorder back; the page's handler stops with Jetty. */
    @Override
    public void close() {
        ticker.shutdownNow();
        try {
            ticker.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
        stopCounting();
        engine.statistics().setDeliveryLatencyRecorder(previousRecorder);
    }
}
