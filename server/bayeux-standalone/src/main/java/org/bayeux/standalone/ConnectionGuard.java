package org.bayeux.standalone;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Scheduler;
import org.eclipse.jetty.server.Handler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes HTTP/1.1 connections that hold the server's resources without sending a request at a useful pace, which
 * Jetty's idle timeout alone does not catch (every byte restarts it, and it must be long enough for a held long
 * poll):
 * <ul>
 * <li><b>header timeout</b>: from the moment a connection opens, and again from the end of each of its requests,
 *     the next request's headers must be complete within {@code headerTimeout}. This closes sockets that never send
 *     a request, headers dribbled a byte at a time, and keep-alive connections left idle.</li>
 * <li><b>minimum data rate</b>: a request body may start up to {@code headerTimeout} after its headers; from then on
 *     it must arrive at an average of at least {@code minDataRate} bytes per second.</li>
 * </ul>
 * A request in progress (a held long poll, say) is otherwise left to the connector's idle timeout, and an upgraded
 * connection (WebSocket) leaves this guard's watch. One sweep on Jetty's scheduler checks every connection, a few
 * times per {@code headerTimeout}, instead of a timer per connection and request.
 *
 * <p>Install it with {@link #connectionFactory(HttpConfiguration)} as the connector's HTTP factory and as the
 * server's outermost handler.</p>
 */
final class ConnectionGuard extends Handler.Wrapper implements Connection.Listener {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionGuard.class);
    private static final long MAX_SWEEP_PERIOD_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long MIN_SWEEP_PERIOD_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final long headerTimeoutNanos;
    private final long minDataRate;
    private final long sweepPeriodNanos;
    private final ConcurrentHashMap<Connection, Watch> watched = new ConcurrentHashMap<>();
    private final LongAdder headerTimeouts = new LongAdder();
    private final LongAdder slowBodies = new LongAdder();
    private volatile Scheduler.Task nextSweep;

    /**
     * @param headerTimeout the time allowed for a request's headers, and before a body starts
     * @param minDataRate the lowest average body rate in bytes per second; 0 for none
     */
    ConnectionGuard(Duration headerTimeout, long minDataRate) {
        this.headerTimeoutNanos = headerTimeout.toNanos();
        this.minDataRate = minDataRate;
        this.sweepPeriodNanos = Math.max(MIN_SWEEP_PERIOD_NANOS, Math.min(MAX_SWEEP_PERIOD_NANOS,
                headerTimeoutNanos / 4));
    }

    /**
     * @param configuration the HTTP configuration
     * @return an HTTP/1.1 connection factory whose connections this guard watches
     */
    HttpConnectionFactory connectionFactory(HttpConfiguration configuration) {
        return new HttpConnectionFactory(configuration) {
            @Override
            public Connection newConnection(Connector connector, EndPoint endPoint) {
                Connection connection = super.newConnection(connector, endPoint);
                connection.addEventListener(ConnectionGuard.this);
                return connection;
            }
        };
    }

    /** @return how many connections were closed for not completing a request's headers in time */
    long headerTimeouts() {
        return headerTimeouts.sum();
    }

    /** @return how many connections were closed for sending a request body below the minimum rate */
    long slowBodies() {
        return slowBodies.sum();
    }

    // ---- connections -----------------------------------------------------------------------------------------

    @Override
    public void onOpened(Connection connection) {
        watched.put(connection, new Watch(System.nanoTime()));
    }

    @Override
    public void onClosed(Connection connection) {
        // Also on an upgrade: the WebSocket that replaces the HTTP connection has limits of its own.
        watched.remove(connection);
    }

    // ---- requests --------------------------------------------------------------------------------------------

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        Watch watch = watched.get(request.getConnectionMetaData().getConnection());
        if (watch == null) {
            return super.handle(request, response, callback);
        }
        long length = request.getLength();
        boolean bodyExpected = length > 0 || length < 0 && request.getHeaders().contains(HttpHeader.TRANSFER_ENCODING);
        watch.requestStarted(System.nanoTime(), bodyExpected);
        Request counted = bodyExpected && minDataRate > 0 ? new CountingRequest(request, watch) : request;
        // The wait for the next request's headers starts before the next request can be parsed.
        Callback ended = new Callback.Nested(callback) {
            @Override
            public void succeeded() {
                watch.requestEnded(System.nanoTime());
                super.succeeded();
            }

            @Override
            public void failed(Throwable failure) {
                watch.requestEnded(System.nanoTime());
                super.failed(failure);
            }
        };
        boolean handled;
        try {
            handled = super.handle(counted, response, ended);
        } catch (Exception | Error failure) {
            // Jetty answers with an error on the original callback: the wait for the next request starts now.
            watch.requestEnded(System.nanoTime());
            throw failure;
        }
        if (!handled) {
            // Jetty answers 404 on the original callback, which this guard does not see.
            watch.requestEnded(System.nanoTime());
        }
        return handled;
    }

    /** Counts the body's bytes as the handler reads them. */
    private static final class CountingRequest extends Request.Wrapper {
        private final Watch watch;

        CountingRequest(Request request, Watch watch) {
            super(request);
            this.watch = watch;
        }

        @Override
        public Content.Chunk read() {
            Content.Chunk chunk = super.read();
            if (chunk != null) {
                watch.bodyRead(chunk.remaining(), chunk.isLast());
            }
            return chunk;
        }
    }

    // ---- the sweep -------------------------------------------------------------------------------------------

    @Override
    protected void doStart() throws Exception {
        super.doStart();
        scheduleSweep();
    }

    @Override
    protected void doStop() throws Exception {
        Scheduler.Task task = nextSweep;
        if (task != null) {
            task.cancel();
        }
        super.doStop();
        watched.clear();
    }

    private void scheduleSweep() {
        if (isRunning()) {
            nextSweep = getServer().getScheduler().schedule(this::sweep, sweepPeriodNanos, TimeUnit.NANOSECONDS);
        }
    }

    private void sweep() {
        try {
            long now = System.nanoTime();
            watched.forEach((connection, watch) -> {
                String verdict = watch.verdict(now, headerTimeoutNanos, minDataRate);
                if (verdict != null) {
                    (verdict == Watch.SLOW_HEADERS ? headerTimeouts : slowBodies).increment();
                    LOG.debug("Closing {}: {}", connection.getEndPoint().getRemoteSocketAddress(), verdict);
                    watched.remove(connection);
                    connection.close();
                }
            });
        } catch (RuntimeException failure) {
            LOG.warn("Connection sweep failed", failure);
        } finally {
            scheduleSweep();
        }
    }

    /** What the guard knows of one connection: written by its request's threads, read by the sweep. */
    private static final class Watch {
        static final String SLOW_HEADERS = "no complete request headers in time";
        static final String SLOW_BODY = "request body below the minimum data rate";

        // Start of the current wait for headers; 0 while a request is in progress.
        private volatile long waitingSince;
        private volatile long requestStart;
        private volatile boolean bodyPending;
        private volatile long bodyBytes;

        Watch(long now) {
            waitingSince = now;
        }

        void requestStarted(long now, boolean bodyExpected) {
            requestStart = now;
            bodyBytes = 0;
            bodyPending = bodyExpected;
            waitingSince = 0;
        }

        void bodyRead(int bytes, boolean last) {
            bodyBytes += bytes; // one reader at a time: the request's
            if (last) {
                bodyPending = false;
            }
        }

        void requestEnded(long now) {
            bodyPending = false;
            waitingSince = now;
        }

        /** @return why the connection must close now, or null */
        String verdict(long now, long headerTimeoutNanos, long minDataRate) {
            long waiting = waitingSince;
            if (waiting != 0) {
                return now - waiting > headerTimeoutNanos ? SLOW_HEADERS : null;
            }
            if (minDataRate <= 0 || !bodyPending) {
                return null;
            }
            long measuredNanos = now - requestStart - headerTimeoutNanos;
            if (measuredNanos <= 0) {
                return null;
            }
            double expected = minDataRate * (measuredNanos / 1e9);
            return bodyBytes < expected ? SLOW_BODY : null;
        }
    }
}
