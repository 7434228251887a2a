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
 * {@code GET /ready}: whether this node should be sent clients. {@code 200 {"ready":true}} while it can take
 * publishes; {@code 503 {"ready":false,"reason":"backplane_unavailable"}} while its cluster says it cannot
 * ({@link Cluster#isAvailable()}: for the Redis backplane, while Redis is out of reach). A single node, or an Oort
 * node, is ready once it listens. Once the server drains ({@link #draining()}), {@code 503
 * {"ready":false,"reason":"draining"}} for good. Every other request goes on to the wrapped handler.
 */
final class Readiness extends Handler.Wrapper {
    /** The path answered. */
    static final String PATH = "/ready";
    private static final ByteBuffer READY = json("{\"ready\":true}");

    private final Cluster cluster;
    private final String reason;
    /** The server drains (it stops): never ready again. */
    private volatile boolean draining;

    /**
     * @param next the handler of every other request
     * @param cluster the node's cluster, or null for a single node
     * @param reason what a 503 says is wrong, such as {@code backplane_unavailable}
     */
    Readiness(Handler next, Cluster cluster, String reason) {
        super(next);
        this.cluster = cluster;
        this.reason = reason;
    }

    /** From now on, answers {@code 503 {"ready":false,"reason":"draining"}}. */
    void draining() {
        draining = true;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        if (!PATH.equals(Request.getPathInContext(request))) {
            return super.handle(request, response, callback);
        }
        String method = request.getMethod();
        if (!HttpMethod.GET.is(method) && !HttpMethod.HEAD.is(method)) {
            response.setStatus(HttpStatus.METHOD_NOT_ALLOWED_405);
            response.getHeaders().put(HttpHeader.ALLOW, "GET, HEAD");
            callback.succeeded();
            return true;
        }
        boolean ready = !draining && (cluster == null || cluster.isAvailable());
        response.setStatus(ready ? HttpStatus.OK_200 : HttpStatus.SERVICE_UNAVAILABLE_503);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        // A cached answer is a wrong answer a second later.
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
        ByteBuffer body = ready ? READY.slice() : json("{\"ready\":false,\"reason\":\""
                + (draining ? "draining" : reason) + "\"}");
        response.write(true, HttpMethod.HEAD.is(method) ? ByteBuffer.allocate(0) : body, callback);
        return true;
    }

    private static ByteBuffer json(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)).asReadOnlyBuffer();
    }
}
