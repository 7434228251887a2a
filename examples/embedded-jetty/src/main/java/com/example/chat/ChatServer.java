package com.example.chat;

import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;

import org.bayeux.api.server.Authorizer;
import org.bayeux.api.server.BayeuxServer;
import org.bayeux.server.BayeuxEngine;
import org.bayeux.server.BayeuxService;
import org.bayeux.server.config.BayeuxServerConfig;
import org.bayeux.transport.http.TransportConfig;
import org.bayeux.transport.jetty.BayeuxEndpoint;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ContextHandler;
import org.eclipse.jetty.server.handler.ContextHandlerCollection;
import org.eclipse.jetty.server.handler.ResourceHandler;
import org.eclipse.jetty.util.resource.Resource;
import org.eclipse.jetty.util.resource.ResourceFactory;

/**
 * A chat application's own Jetty server: its page at {@code /}, the CometD JavaScript client's files at
 * {@code /js/cometd/}, and the Bayeux endpoint at {@code /cometd}, with open {@code /chat/**} channels and an echo
 * service on {@code /service/echo}.
 */
public final class ChatServer implements AutoCloseable {
    private final Server jetty;
    private final BayeuxEngine bayeux;

    private ChatServer(Server jetty, BayeuxEngine bayeux) {
        this.jetty = jetty;
        this.bayeux = bayeux;
    }

    /**
     * Usage: {@code ChatServer PORT COMETD_JS_DIR}, where the directory holds the CometD JavaScript client's files
     * ({@code node_modules/cometd} after {@code npm install cometd}).
     *
     * @param args the port and the directory
     * @throws Exception if the server cannot start
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            throw new IllegalArgumentException("usage: ChatServer PORT COMETD_JS_DIR");
        }
        try (ChatServer server = start("0.0.0.0", Integer.parseInt(args[0]), Path.of(args[1]))) {
            System.out.println("Chat at " + server.uri());
            server.jetty.join();
        }
    }

    /**
     * @param host the address to listen on
     * @param port the port, 0 for any free one
     * @param cometdScripts the directory of the CometD JavaScript client's files
     * @return the started server
     * @throws Exception if it cannot start
     */
    public static ChatServer start(String host, int port, Path cometdScripts) throws Exception {
        BayeuxEngine bayeux = BayeuxEngine.create(BayeuxServerConfig.defaults());
        bayeux.createChannelIfAbsent("/chat/**", channel -> channel.addAuthorizer(
                (operation, id, session, message) -> Authorizer.Result.grant()));
        new EchoService(bayeux);

        Server jetty = new Server();
        ServerConnector connector = new ServerConnector(jetty);
        connector.setHost(host);
        connector.setPort(port);
        jetty.addConnector(connector);

        ResourceFactory resources = ResourceFactory.of(jetty);
        URI page = Objects.requireNonNull(ChatServer.class.getResource("/web/"), "the page's resources").toURI();
        ContextHandlerCollection contexts = new ContextHandlerCollection(
                new ContextHandler(files(resources.newResource(page)), "/"),
                new ContextHandler(files(resources.newResource(cometdScripts)), "/js/cometd"));
        jetty.setHandler(contexts);
        BayeuxEndpoint.mount(jetty, "/cometd", bayeux, TransportConfig.defaults());
        jetty.start();   // also starts the engine
        return new ChatServer(jetty, bayeux);
    }

    private static ResourceHandler files(Resource base) {
        ResourceHandler handler = new ResourceHandler();
        handler.setBaseResource(base);
        handler.setDirAllowed(false);
        return handler;
    }

    /** @return the engine, to add services, listeners or local sessions */
    public BayeuxServer bayeux() {
        return bayeux;
    }

    /** @return the page's address */
    public URI uri() {
        return jetty.getURI().resolve("/");
    }

    @Override
    public void close() throws Exception {
        jetty.stop();
    }

    /** Answers {@code /service/echo} with {@code {"echo": <the request's data>}}, to the requester only. */
    static final class EchoService extends BayeuxService {
        EchoService(BayeuxServer server) {
            super(server, "echo");
            addService("/service/echo", (requester, request) -> Map.of("echo", request.getData()));
        }
    }
}
