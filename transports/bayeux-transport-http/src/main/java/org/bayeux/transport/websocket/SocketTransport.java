package org.bayeux.transport.websocket;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import org.bayeux.server.transport.CarrierCapabilities;
import org.bayeux.server.transport.ClientBindings;
import org.bayeux.server.transport.TransportEngine;
import org.bayeux.transport.http.BrowserRegistry;
import org.bayeux.transport.http.CookieBinding;
import org.bayeux.transport.http.Cors;
import org.bayeux.transport.http.FirstSocketAdoptions;
import org.bayeux.transport.http.SessionBinding;
import org.bayeux.transport.http.SessionLimits;
import org.bayeux.transport.http.TransportConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The container-neutral part of the {@code websocket} transport: its limits, the origin rule for upgrades, the count
 * of open connections and the executor on which the engine is told about dead sockets. A server adapter (Jetty core,
 * Jakarta WebSocket) accepts upgrades and creates a {@link SocketCarrier} per connection with
 * {@link #newCarrier()}.
 */
public final class SocketTransport {
    /** The transport's name in handshakes and connects. */
    public static final String NAME = "websocket";

    private static final Logger LOG = LoggerFactory.getLogger(SocketTransport.class);

    private final TransportEngine engine;
    private final TransportConfig config;
    private final Cors cors;
    private final Executor executor;
    private final AtomicInteger open = new AtomicInteger();
    private final PushLanes pushLanes;
    private final int maxOutgoingFrameBytes;
    private final Duration handshakeTimeout;
    private final LongAdder handshakeTimeouts = new LongAdder();
    private final Duration writeStallTimeout;
    private final LongAdder slowPeerDrops = new LongAdder();
    private final LongAdder writeStallDrops = new LongAdder();
    private final CookieBinding binding;
    private final SessionLimits limits;
    private final FirstSocketAdoptions adoptions;
    /** What every socket of this transport can do. */
    private final CarrierCapabilities capabilities;

    /**
     * @param engine the engine
     * @param config the transport configuration
     * @param executor runs calls into the engine that must not happen on the thread at hand; it may refuse tasks
     *        while stopping
     */
    public SocketTransport(TransportEngine engine, TransportConfig config, Executor executor) {
        this.engine = engine;
        this.config = config;
        this.cors = new Cors(config.allowedOrigins());
        this.executor = executor;
        this.pushLanes = new PushLanes(executor, Runtime.getRuntime().availableProcessors());
        this.maxOutgoingFrameBytes = config.get(TransportConfig.WS_MAX_FRAME);
        this.handshakeTimeout = config.get(TransportConfig.WS_HANDSHAKE_TIMEOUT);
        this.writeStallTimeout = config.get(TransportConfig.WS_WRITE_STALL_TIMEOUT);
        this.binding = new CookieBinding(engine.services(), config.sessionBinding());
        this.limits = SessionLimits.of(engine.services(), config);
        this.adoptions = FirstSocketAdoptions.of(engine.services());
        // The engine then never hands over more queued messages than fit one frame, connect replies included
        // (which must stay whole under ack): clients' default limit on an incoming message is 64 KiB.
        this.capabilities = CarrierCapabilities.of(NAME).holdingConnects().pushingWhileHeld().persistent()
                .piggybacking().maxResponseBytes(maxOutgoingFrameBytes);
    }

    /** @return what every socket of this transport can do */
    CarrierCapabilities capabilities() {
        return capabilities;
    }

    /** @return how sessions are bound to their browser cookie ({@link TransportConfig#SESSION_BINDING}) */
    CookieBinding binding() {
        return binding;
    }

    /** @return the name of the browser cookie whose value an adapter passes to {@link SocketCarrier#setBrowserId} */
    public String browserCookieName() {
        return config.get(TransportConfig.BROWSER_COOKIE_NAME);
    }

    /**
     * Decides whether an upgrade's browser cookie may vouch for sessions: when the upgrade has no {@code Origin} (not
     * a browser), comes from the page's own origin or from one listed in {@code allowedOrigins}, but not from an
     * origin allowed only by {@code *}, where any site's page could open a socket with its visitor's cookie.
     *
     * @param origin the {@code Origin} header, or null
     * @param secure whether the request came over TLS
     * @param serverHost the host the request was sent to
     * @param serverPort the port the request was sent to
     * @return true if the cookie may be trusted
     */
    public boolean trustsCookieFrom(String origin, boolean secure, String serverHost, int serverPort) {
        return origin == null || Cors.isSameOrigin(origin, secure, serverHost, serverPort) || cors.lists(origin);
    }

    /** @return the sessions created over HTTP that a socket without a cookie may take over, once */
    FirstSocketAdoptions adoptions() {
        return adoptions;
    }

    /** @return the caps on sessions per browser and per address, shared with the HTTP transport */
    public SessionLimits limits() {
        return limits;
    }

    /**
     * @param secure whether the upgrade request came over TLS (or a trusted proxy says so)
     * @return the attributes of the browser cookie an upgrade response sets, besides {@code Path=/; HttpOnly}
     */
    public Map<String, String> browserCookieAttributes(boolean secure) {
        return BrowserRegistry.cookieAttributes(config, secure);
    }

    /**
     * @return a browser id for an upgrade that came without a cookie but may be given one (its origin is trusted,
     *         {@link #trustsCookieFrom}), for its response to set, so that a client reconnecting on a new socket
     *         keeps its sessions; null when sessions are not bound
     */
    public String newBrowserId() {
        return binding.mode() != SessionBinding.NONE ? BrowserRegistry.randomBrowserId() : null;
    }

    /** @return a carrier for a connection about to open */
    public SocketCarrier newCarrier() {
        return new SocketCarrier(this);
    }

    /** @return the bindings of sessions to their browser and carrier, which the engine keeps */
    ClientBindings bindings() {
        return engine.services().bindings();
    }

    /** @return the engine */
    public TransportEngine engine() {
        return engine;
    }

    /** @return the largest incoming message, in bytes: the engine's {@code maxMessageSizeBytes} */
    public int maxIncomingMessageBytes() {
        return engine.services().getConfig().maxMessageSizeBytes();
    }

    /** @return the size up to which pushed messages are grouped into one text message */
    public int maxOutgoingFrameBytes() {
        return maxOutgoingFrameBytes;
    }

    /** @return the smallest outgoing message worth compressing when {@code permessage-deflate} was negotiated */
    public int deflateMinimumBytes() {
        return config.get(TransportConfig.WS_DEFLATE_MIN_SIZE);
    }

    /** @return how long a socket may stay silent, warning once if it does not exceed the engine's timeout */
    public Duration idleTimeout() {
        Duration idleTimeout = config.get(TransportConfig.WS_IDLE_TIMEOUT);
        if (idleTimeout.compareTo(engine.services().getConfig().timeout()) <= 0) {
            LOG.warn("{}={} does not exceed the engine's timeout={}: sockets of quiet clients will be closed while "
                    + "their connect is held", TransportConfig.WS_IDLE_TIMEOUT.key(), idleTimeout,
                    engine.services().getConfig().timeout());
        }
        return idleTimeout;
    }

    /**
     * @return how many bytes may wait on a socket before its peer is dropped as too slow: the engine's
     *         {@code maxQueueBytes}. The engine keeps its deliveries queued while a socket is a frame behind, so
     *         only replies to a client that sends without reading its answers come near it.
     */
    long maxPendingBytes() {
        return engine.services().getConfig().maxQueueBytes();
    }

    /** @return how long a socket with bytes to write may accept none before it is dropped */
    Duration writeStallTimeout() {
        return writeStallTimeout;
    }

    /** @return how many sockets were dropped because their backlog reached {@link #maxPendingBytes()} */
    public long slowPeerDrops() {
        return slowPeerDrops.sum();
    }

    /** @return how many sockets were dropped because they accepted no bytes for {@code wsWriteStallTimeout} */
    public long writeStallDrops() {
        return writeStallDrops.sum();
    }

    void slowPeerDropped() {
        slowPeerDrops.increment();
    }

    void writeStallDropped() {
        writeStallDrops.increment();
    }

    /** @return the number of open WebSocket connections carrying Bayeux traffic */
    public int openConnections() {
        return open.get();
    }

    void opened() {
        open.incrementAndGet();
    }

    void closed() {
        open.decrementAndGet();
    }

    /** @return how many sockets were closed for carrying no session within {@code wsHandshakeTimeout} */
    public long handshakeTimeouts() {
        return handshakeTimeouts.sum();
    }

    /**
     * Runs a check once {@code wsHandshakeTimeout} has passed (never, when it is 0). The engine's one timer thread
     * holds the wait, so no thread is taken per socket; a check that finds the socket carrying a session does
     * nothing.
     *
     * @param check the check, run on the executor
     * @return the scheduled check, for the socket to cancel once it carries a session (so that thousands of sockets
     *         opened within {@code wsHandshakeTimeout} do not keep as many tasks in memory), or null if none
     */
    ScheduledFuture<?> afterHandshakeTimeout(Runnable check) {
        if (handshakeTimeout.isZero()) {
            return null;
        }
        // On the engine's one timer thread, handed to the transport's executor since closing a socket may block.
        return engine.services().schedule(() -> execute(check), handshakeTimeout);
    }

    /** @return {@code wsHandshakeTimeout} */
    Duration handshakeTimeout() {
        return handshakeTimeout;
    }

    void handshakeTimedOut() {
        handshakeTimeouts.increment();
    }

    /** Runs a task on the executor; during shutdown the task may be dropped. */
    void execute(Runnable task) {
        try {
            executor.execute(task);
        } catch (RejectedExecutionException stopping) {
            LOG.debug("Executor refused a task, probably stopping", stopping);
        }
    }

    /**
     * Runs a push of the engine's on the lane of a carrier ({@link PushLanes}).
     *
     * @param carrier the carrier the push writes on
     * @param push the push
     */
    void executePush(SocketCarrier carrier, Runnable push) {
        pushLanes.execute(carrier, push);
    }

    /**
     * Decides whether an upgrade may proceed: no {@code Origin} (not a browser), the page's own origin, or one of
     * {@code allowedOrigins}.
     *
     * @param origin the {@code Origin} header, or null
     * @param secure whether the request came over TLS
     * @param serverHost the host the request was sent to
     * @param serverPort the port the request was sent to
     * @return true if the upgrade is allowed
     */
    public boolean allowsOrigin(String origin, boolean secure, String serverHost, int serverPort) {
        return origin == null || Cors.isSameOrigin(origin, secure, serverHost, serverPort) || cors.allows(origin);
    }
}
