package org.bayeux.transport.jetty;

import java.util.ArrayList;
import java.util.List;

import org.bayeux.server.BayeuxServerImpl;
import org.bayeux.transport.http.HttpTransport;
import org.bayeux.transport.http.TransportConfig;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The Bayeux endpoint as a Jetty core {@link Handler}: it serves the path it is mounted on and every path below it
 * (clients append {@code /handshake}, {@code /connect}, ...). Starting the handler starts the engine; stopping it
 * stops the engine.
 */
public final class BayeuxHandler extends Handler.Abstract {
    private final BayeuxServerImpl engine;
    private final HttpTransport http;

    /**
     * @param engine the engine, not yet started
     * @param config the transport configuration
     */
    public BayeuxHandler(BayeuxServerImpl engine, TransportConfig config) {
        this.engine = engine;
        this.http = new HttpTransport(engine, config);
        // WebSocket is advertised only once its transport is mounted; until then clients must not try it.
        List<String> names = new ArrayList<>(http.transportNames());
        engine.setTransportNames(names);
    }

    /** @return the engine behind this endpoint */
    public BayeuxServerImpl getEngine() {
        return engine;
    }

    @Override
    protected void doStart() throws Exception {
        engine.start();
        super.doStart();
    }

    @Override
    protected void doStop() throws Exception {
        super.doStop();
        engine.stop();
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        http.handle(new JettyHttpExchange(request, response, callback));
        return true;
    }
}
