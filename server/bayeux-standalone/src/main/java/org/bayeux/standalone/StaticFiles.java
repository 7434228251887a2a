package org.bayeux.standalone;

import java.nio.file.Path;

import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.handler.ResourceHandler;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.resource.Resource;
import org.eclipse.jetty.util.resource.ResourceFactory;

/**
 * The files served at {@code /}: a {@code --static} folder. A folder is never listed (a folder
 * without {@code index.html} answers 403), and no file or folder whose name starts with a dot is served, at any depth
 * ({@code .env}, {@code .git/config}, {@code .htpasswd}): such files are put in a folder by tools and editors, not
 * for visitors. The one exception is {@code /.well-known/} (RFC 8615), public by definition, though not the
 * dot-files inside it. Symbolic links that leave the folder are not followed (Jetty's alias check).
 */
final class StaticFiles {
    /** The top folder of RFC 8615's well-known URIs, served like any other. */
    static final String WELL_KNOWN = ".well-known";

    private StaticFiles() {
    }

    /**
     * @param folder the {@code --static} folder, or null
     * @param jetty the server, whose resource factory releases the resources when it stops
     * @return the handler, or null for nothing at {@code /}
     */
    static Handler handler(Path folder, Server jetty) {
        if (folder == null) {
            return null;
        }
        Resource base = ResourceFactory.of(jetty).newResource(folder);
        ResourceHandler resources = new ResourceHandler();
        resources.setBaseResource(base);
        resources.setDirAllowed(false);
        resources.setWelcomeFiles("index.html");
        return new HiddenFiles(resources);
    }

    /**
     * @param path a request's path in its context, decoded and normalised ({@code /a/.env})
     * @return true if a segment of it starts with a dot, other than a first {@code .well-known}
     */
    static boolean isHidden(String path) {
        String[] segments = path.split("/");
        for (int i = 0; i < segments.length; i++) {
            String segment = segments[i];
            // segments[0] is the empty text before the leading slash, so the top folder is segments[1].
            if (segment.startsWith(".") && !(i == 1 && segment.equals(WELL_KNOWN) && segments.length > 2)) {
                return true;
            }
        }
        return false;
    }

    /** Answers 404 for a hidden path, as for a file that does not exist: nothing tells it is there. */
    private static final class HiddenFiles extends Handler.Wrapper {
        HiddenFiles(Handler files) {
            super(files);
        }

        @Override
        public boolean handle(Request request, Response response, Callback callback) throws Exception {
            String path = Request.getPathInContext(request);
            if (path == null || isHidden(path)) {
                Response.writeError(request, response, callback, HttpStatus.NOT_FOUND_404);
                return true;
            }
            return super.handle(request, response, callback);
        }
    }
}
