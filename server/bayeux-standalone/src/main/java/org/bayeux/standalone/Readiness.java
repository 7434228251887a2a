package org.bayeux.standalone;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import org.bayeux.server.cluster.Cluster;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The health checks, for load balancers and orchestrators:
 * <ul>
 * <li>{@code GET /health/live}: {@code 200 {"live":true}} while the process serves HTTP at all;</li>
 * <li>{@code GET /health/ready}, and its older alias {@code GET /ready}: whether this node should be sent clients.
 * {@code 200 {"ready":true}} once {@link #started()} and until {@link #shuttingDown()}, while its cluster can take
 * publishes; else {@code 503 {"ready":false,"reason":"..."}} with reason {@code starting}, {@code draining} (from
 * {@link #draining()}: the graceful shutdown hands the clients over), {@code shutting_down}, or the cluster's (for the Redis backplane {@code backplane_unavailable}, while Redis is out of reach:
 * {@link Cluster#isAvailable()}).</li>
 * </ul>
 * {@code HEAD} is answered as {@code GET} without a body. Every other request goes on to the wrapped handler.
 *
 * <p>Thread-safe: the state may be changed from any thread (the start-up, a shutdown hook).</p>
 */
final class Readiness extends Handler.Wrapper {
    /** The readiness path kept from before the health checks, an alias of {@link #READY_PATH}. */
    static final String PATH = "/ready";
    /** The readiness check. */
    static final String READY_PATH = "/health/ready";
    /** The liveness check. */
    static final String LIVE_PATH = "/health/live";
    private static final ByteBuffer READY = json("{\"ready\":true}");
    private static final ByteBuffer LIVE = json("{\"live\":true}");

    /** Where the node is in its life. */
    enum State {
        /** Built, not yet serving every part (applications, cluster joins): not ready. */
        STARTING,
        /** Started: ready if its cluster is available. */
        RUNNING,
        /** Handing its clients over before it stops: not ready again. */
        DRAINING,
        /** Stopping: not ready again, so load balancers send new clients elsewhere. */
        SHUTTING_DOWN
    }

    private final Cluster cluster;
    private final String reason;
    private volatile State state = State.STARTING;

    /**
     * @param next the handler of every other request
     * @param cluster the node's cluster, or null for a single node
     * @param reason what a 503 says is wrong with the cluster, such as {@code backplane_unavailable}
     */
    Readiness(Handler next, Cluster cluster, String reason) {
        super(next);
        this.cluster = cluster;
        this.reason = reason;
    }

    /** The node has started: ready from now on, while its cluster is available. */
    void started() {
        if (state == State.STARTING) {
            state = State.RUNNING;
        }
    }

    /**
     * The node is shutting down (or draining): not ready from now on, whatever happens next. The graceful shutdown
     * calls this first, so that load balancers stop sending clients before connections are closed.
     */
    void shuttingDown() {
        state = State.SHUTTING_DOWN;
    }

    /**
     * The server drains (graceful shutdown): not ready from now on, with reason {@code draining}, so that load
     * balancers stop sending clients while the connected ones are told to reconnect elsewhere.
     */
    void draining() {
        if (state != State.SHUTTING_DOWN) {
            state = State.DRAINING;
        }
    }

    /** @return where the node is in its life */
    State state() {
        return state;
    }

    /** @return null if ready, else the reason it is not, as the 503 body gives it */
    String notReadyReason() {
        State now = state;
        if (now == State.STARTING) {
            return "starting";
        }
        if (now == State.DRAINING) {
            return "draining";
        }
        if (now == State.SHUTTING_DOWN) {
            return "shutting_down";
        }
        return cluster == null || cluster.isAvailable() ? null : reason;
    }

    /**
     * Answers 405 (with {@code Allow: GET, HEAD}) to any other method: what the health checks and {@code /metrics}
     * take.
     *
     * @return true if the request was answered so
     */
    static boolean refusedUnlessGetOrHead(Request request, Response response, Callback callback) {
        String method = request.getMethod();
        if (HttpMethod.GET.is(method) || HttpMethod.HEAD.is(method)) {
            return false;
        }
        response.setStatus(HttpStatus.METHOD_NOT_ALLOWED_405);
        response.getHeaders().put(HttpHeader.ALLOW, "GET, HEAD");
        callback.succeeded();
        return true;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        String path = Request.getPathInContext(request);
        boolean live = LIVE_PATH.equals(path);
        if (!live && !PATH.equals(path) && !READY_PATH.equals(path)) {
            return super.handle(request, response, callback);
        }
        if (refusedUnlessGetOrHead(request, response, callback)) {
            return true;
        }
        String method = request.getMethod();
        String notReady = live ? null : notReadyReason();
        response.setStatus(notReady == null ? HttpStatus.OK_200 : HttpStatus.SERVICE_UNAVAILABLE_503);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        // A cached answer is a wrong answer a second later.
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
        ByteBuffer body = live ? LIVE.slice() : notReady == null ? READY.slice()
                : json("{\"ready\":false,\"reason\":\"" + notReady + "\"}");
        response.write(true, HttpMethod.HEAD.is(method) ? ByteBuffer.allocate(0) : body, callback);
        return true;
    }

    private static ByteBuffer json(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)).asReadOnlyBuffer();
    }
}
