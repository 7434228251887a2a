package org.bayeux.transport.jetty;

import org.bayeux.server.BayeuxEngine;
import org.bayeux.transport.http.TransportConfig;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.handler.ContextHandler;

/**
 * Adds a Bayeux endpoint to a user's own Jetty server.
 *
 * <pre>{@code
 * Server jetty = new Server(8080);
 * BayeuxEngine bayeux = BayeuxEngine.create(BayeuxServerConfig.defaults());
 * BayeuxEndpoint.mount(jetty, "/bayeux", bayeux, TransportConfig.defaults());
 * jetty.start();   // also starts the engine
 * }</pre>
 */
public final class BayeuxEndpoint {
    private BayeuxEndpoint() {
    }

    /**
     * Mounts the endpoint at a path, in front of whatever handler the server already has.
     *
     * @param server the Jetty server, not yet started
     * @param path the context path, for example {@code /bayeux}
     * @param engine the engine, not yet started; it starts and stops with the server
     * @param config the transport configuration
     * @return the context that serves the endpoint
     */
    public static ContextHandler mount(Server server, String path, BayeuxEngine engine, TransportConfig config) {
        ContextHandler context = new ContextHandler(newHandler(engine, config), path);
        context.setAllowNullPathInContext(true);
        Handler existing = server.getHandler();
        if (existing == null) {
            server.setHandler(context);
        } else if (existing instanceof Handler.Collection) {
            ((Handler.Collection) existing).addHandler(context);
        } else {
            server.setHandler(new Handler.Sequence(context, existing));
        }
        return context;
    }

    /**
     * @param engine the engine, not yet started
     * @param config the transport configuration
     * @return the endpoint's handler, to mount in a context of the caller's choice; it serves HTTP and WebSocket
     *         upgrades on the context's path and every path below it
     */
    public static Handler newHandler(BayeuxEngine engine, TransportConfig config) {
        return new BayeuxHandler(engine, config);
    }
}
