package org.bayeux.standalone.admin;

import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ResourceHandler;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.resource.ResourceFactory;

/**
 * The admin page's files (HTML, script, style, and the JavaScript client's modules), from the class path. They hold
 * no figure: the numbers come only over the statistics channel, to sessions that gave the token. A path with no file
 * is a 404 here, never passed on (a static folder's {@code admin/} is not reachable while the page is on).
 */
final class AdminPageHandler extends Handler.Wrapper {
    AdminPageHandler() {
        ResourceHandler files = new ResourceHandler();
        files.setBaseResource(ResourceFactory.root().newClassLoaderResource("org/bayeux/standalone/admin/"));
        files.setWelcomeFiles("index.html");
        files.setDirAllowed(false);
        setHandler(files);
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
        response.getHeaders().put("X-Content-Type-Options", "nosniff");
        response.getHeaders().put("X-Frame-Options", "DENY");
        response.getHeaders().put("Referrer-Policy", "no-referrer");
        // Own files and this server's endpoint only: no inline script, no other origin. WebSocket URLs are named
        // with this request's host (not every browser counts them as 'self'); the client's timer worker is a blob.
        String host = request.getHttpURI().getAuthority();
        response.getHeaders().put("Content-Security-Policy", "default-src 'self'; connect-src 'self' ws://" + host
                + " wss://" + host + "; worker-src 'self' blob:; img-src 'self' data:; frame-ancestors 'none'; "
                + "base-uri 'none'; form-action 'none'");
        if (super.handle(request, response, callback)) {
            return true;
        }
        Response.writeError(request, response, callback, HttpStatus.NOT_FOUND_404);
        return true;
    }
}
