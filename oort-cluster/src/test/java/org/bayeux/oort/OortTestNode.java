package org.bayeux.oort;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.bayeux.api.Message;
import org.bayeux.api.server.LocalSession;
import org.bayeux.server.BayeuxEngine;
import org.bayeux.server.cluster.ClusterListener;
import org.bayeux.server.cluster.ClusterMember;
import org.bayeux.transport.http.TransportConfig;
import org.bayeux.transport.jetty.BayeuxEndpoint;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/** One real node on loopback: Jetty on a port of its own, our endpoint at /bayeux, an engine and Oort. */
final class OortTestNode implements AutoCloseable {
    static final String SECRET = "0123456789abcdef0123456789abcdef-test-secret";

    final Server jetty = new Server();
    final BayeuxEngine engine = BayeuxEngine.create();
    final int port;
    final String url;
    final List<ClusterMember> joined = new CopyOnWriteArrayList<>();
    final List<ClusterMember> left = new CopyOnWriteArrayList<>();
    /** Joins and leaves in the order told: "joined id" or "left id". */
    final List<String> events = new CopyOnWriteArrayList<>();
    Oort oort;

    /** Binds a free port (so that the URL is known), but starts nothing. */
    OortTestNode() throws Exception {
        this(0);
    }

    /** Binds the given port (0: any free one), but starts nothing. */
    OortTestNode(int wantedPort) throws Exception {
        ServerConnector connector = new ServerConnector(jetty);
        connector.setHost("127.0.0.1");
        connector.setPort(wantedPort);
        jetty.addConnector(connector);
        connector.open();
        port = connector.getLocalPort();
        url = "http://127.0.0.1:" + port + "/bayeux";
        BayeuxEndpoint.mount(jetty, "/bayeux", engine, TransportConfig.defaults());
        engine.addClusterListener(new ClusterListener() {
            @Override
            public void joined(ClusterMember member) {
                joined.add(member);
                events.add("joined " + member.id());
            }

            @Override
            public void left(ClusterMember member) {
                left.add(member);
                events.add("left " + member.id());
            }
        });
    }

    /** Builds Oort with this node's URL and the test secret, then whatever {@code more} sets, and starts. */
    OortTestNode start(Consumer<Oort.Builder> more) throws Exception {
        Oort.Builder builder = Oort.builder(engine).url(url).secret(SECRET);
        more.accept(builder);
        oort = builder.build();
        jetty.start();
        return this;
    }

    /**
     * As {@link #start(Consumer)}, and {@code beforeStart} is given the built node before Jetty starts (where an
     * application creates Seti, replicated objects and services).
     */
    OortTestNode start(Consumer<Oort.Builder> more, Consumer<Oort> beforeStart) throws Exception {
        Oort.Builder builder = Oort.builder(engine).url(url).secret(SECRET);
        more.accept(builder);
        oort = builder.build();
        beforeStart.accept(oort);
        jetty.start();
        return this;
    }

    LocalSession connected(String name) throws Exception {
        LocalSession session = engine.newLocalSession(name);
        CompletableFuture<Message> reply = new CompletableFuture<>();
        session.handshake(null, (channel, message) -> reply.complete(message));
        if (!reply.get(5, TimeUnit.SECONDS).isSuccessful()) {
            throw new IllegalStateException("local handshake failed");
        }
        return session;
    }

    List<Object> subscribe(String channel) throws Exception {
        List<Object> received = new CopyOnWriteArrayList<>();
        CompletableFuture<Message> reply = new CompletableFuture<>();
        connected("subscriber").getChannel(channel).subscribe((c, message) -> received.add(message.getData()),
                (c, message) -> reply.complete(message));
        if (!reply.get(5, TimeUnit.SECONDS).isSuccessful()) {
            throw new IllegalStateException("local subscribe failed");
        }
        return received;
    }

    @Override
    public void close() throws Exception {
        jetty.stop();
    }
}
