package org.bayeux.transport.jetty;

import java.util.ArrayList;
import java.util.List;

import org.bayeux.server.BayeuxEngine;
import org.bayeux.transport.http.HttpTransport;
import org.bayeux.transport.http.TransportConfig;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.handler.ContextHandler;
import org.eclipse.jetty.util.Callback;

/**
 * The Bayeux endpoint as a Jetty core {@link Handler}: it serves the path it is mounted on and every path below it
 * (clients append {@code /handshake}, {@code /connect}, ...), over HTTP and, unless
 * {@link TransportConfig#WEBSOCKET} is off, WebSocket. Starting the handler starts the engine; stopping it stops
 * the engine.
 */
public final class BayeuxHandler extends Handler.Abstract {
    private final BayeuxEngine engine;
    private final HttpTransport http;
    private final WebSocketTransport webSocket;
    private volatile ClosedPollWatcher closedPolls;

    /**
     * @param engine the engine, not yet started
     * @param config the transport configuration
     */
    public BayeuxHandler(BayeuxEngine engine, TransportConfig config) {
        this.engine = engine;
        this.http = new HttpTransport(engine, config);
        this.webSocket = config.get(TransportConfig.WEBSOCKET) ? new WebSocketTransport(engine, config) : null;
        // Clients pick their own preference among these, but list WebSocket first, as the best of them.
        List<String> names = new ArrayList<>();
        if (webSocket != null) {
            names.add(WebSocketTransport.NAME);
        }
        names.addAll(http.transportNames());
        engine.setTransportNames(names);
    }

    /** @return the engine behind this endpoint */
    public BayeuxEngine getEngine() {
        return engine;
    }

    /** @return the number of WebSocket connections open on this endpoint now */
    public int getWebSocketCount() {
        return webSocket == null ? 0 : webSocket.openConnections();
    }

    /** @return how many WebSockets were closed for carrying no session within {@code wsHandshakeTimeout} */
    public long getWebSocketHandshakeTimeouts() {
        return webSocket == null ? 0 : webSocket.handshakeTimeouts();
    }

    /** @return the WebSocket transport, or null when it is off; for tests of this package */
    WebSocketTransport webSocketTransport() {
        return webSocket;
    }

    /**
     * @return how many WebSockets were dropped because they accepted no bytes for {@code wsWriteStallTimeout}
     */
    public long getWebSocketWriteStallDrops() {
        return webSocket == null ? 0 : webSocket.sockets().writeStallDrops();
    }

    /** @return how many WebSockets were dropped because their unwritten bytes reached {@code maxQueueBytes} */
    public long getWebSocketSlowPeerDrops() {
        return webSocket == null ? 0 : webSocket.sockets().slowPeerDrops();
    }

    @Override
    protected void doStart() throws Exception {
        engine.start();
        closedPolls = new ClosedPollWatcher(getServer().getThreadPool());
        if (webSocket != null) {
            Server server = getServer();
            ContextHandler context = server.getContainer(this, ContextHandler.class);
            webSocket.start(server, context);
        }
        super.doStart();
    }

    @Override
    protected void doStop() throws Exception {
        if (webSocket != null) {
            // Before the engine stops: the sessions the sockets carried see their carrier end.
            webSocket.stop();
        }
        super.doStop();
        engine.stop();
        ClosedPollWatcher watcher = closedPolls;
        if (watcher != null) {
            watcher.stop();
        }
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        if (webSocket != null && webSocket.handle(request, response, callback)) {
            return true;
        }
        http.handle(new JettyHttpExchange(request, response, callback, closedPolls));
        return true;
    }
}
