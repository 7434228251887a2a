package org.bayeux.standalone;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import org.bayeux.metrics.MetricsExport;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * {@code GET /metrics}: every meter in the Prometheus text format, rendered when asked (the gauges read the engine's
 * state then). Every other request goes on to the wrapped handler. With an admin connector, {@code /metrics} is served
 * on it alone, and it serves nothing else (404; the health checks are answered before this handler).
 */
final class MetricsHandler extends Handler.Wrapper {
    /** The path answered. */
    static final String PATH = "/metrics";

    private final MetricsExport export;
    private final Connector admin;

    /**
     * @param next the handler of every other request
     * @param export the meters, or null for none (then only the admin connector's 404s are served here)
     * @param admin the admin connector, or null to serve {@code /metrics} on every connector
     */
    MetricsHandler(Handler next, MetricsExport export, Connector admin) {
        super(next);
        this.export = export;
        this.admin = admin;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        boolean onAdmin = admin != null && request.getConnectionMetaData().getConnector() == admin;
        boolean metrics = export != null && PATH.equals(Request.getPathInContext(request));
        if (onAdmin && !metrics) {
            Response.writeError(request, response, callback, HttpStatus.NOT_FOUND_404);
            return true;
        }
        if (!metrics || admin != null && !onAdmin) {
            return super.handle(request, response, callback);
        }
        if (Readiness.refusedUnlessGetOrHead(request, response, callback)) {
            return true;
        }
        String method = request.getMethod();
        response.setStatus(HttpStatus.OK_200);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, MetricsExport.PROMETHEUS_CONTENT_TYPE);
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
        ByteBuffer body = HttpMethod.HEAD.is(method) ? ByteBuffer.allocate(0)
                : ByteBuffer.wrap(export.scrape().getBytes(StandardCharsets.UTF_8));
        response.write(true, body, callback);
        return true;
    }
}
