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
import org.bayeux.testsupport.PausableProxy;
import org.bayeux.testsupport.RecordingRelay;
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
    /** The proxy the node's URL points at, or null when the URL is the node's own port. */
    final PausableProxy proxy;
    /** The recording relay the node's URL points at, or null. */
    final RecordingRelay recording;
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
        this(wantedPort, null, false);
    }

    /**
     * Binds the given port (0: any free one), but starts nothing.
     *
     * @param wantedPort the port, 0 for any free one
     * @param given a proxy already in front of {@code wantedPort} (a restart behind the same URL), or null
     * @param proxied whether the node's URL is a proxy in front of it (every link into the node then passes it:
     *                pausing it cuts every link into the node); a new one unless {@code given}
     */
    OortTestNode(int wantedPort, PausableProxy given, boolean proxied) throws Exception {
        this(wantedPort, given, proxied, TransportConfig.defaults());
    }

    /** Binds any free port and serves the given transports, but starts nothing. */
    OortTestNode(TransportConfig transports) throws Exception {
        this(0, null, false, transports);
    }

    /**
     * Binds any free port and serves the given transports, but starts nothing; the node's URL is a recording relay in
     * front of it, so that every link into the node passes it and can be read as plain text.
     */
    static OortTestNode recorded(TransportConfig transports) throws Exception {
        return new OortTestNode(0, null, false, transports, true);
    }

    private OortTestNode(int wantedPort, PausableProxy given, boolean proxied, TransportConfig transports)
            throws Exception {
        this(wantedPort, given, proxied, transports, false);
    }

    private OortTestNode(int wantedPort, PausableProxy given, boolean proxied, TransportConfig transports,
            boolean recorded) throws Exception {
        ServerConnector connector = new ServerConnector(jetty);
        connector.setHost("127.0.0.1");
        connector.setPort(wantedPort);
        jetty.addConnector(connector);
        connector.open();
        port = connector.getLocalPort();
        proxy = given != null ? given : proxied ? new PausableProxy(port) : null;
        recording = recorded ? new RecordingRelay(port) : null;
        int urlPort = proxy != null ? proxy.port() : recording != null ? recording.port() : port;
        url = "http://127.0.0.1:" + urlPort + "/bayeux";
        BayeuxEndpoint.mount(jetty, "/bayeux", engine, transports);
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

    /** A node whose URL is a proxy of its own in front of it; the proxy closes with the node. */
    static OortTestNode behindProxy() throws Exception {
        return new OortTestNode(0, null, true);
    }

    /** Stops Jetty (and the node with it) but leaves the proxy in front of its port, for a restart. */
    void stopKeepingProxy() throws Exception {
        jetty.stop();
    }

    /** @return the ids of the members joined now */
    java.util.Set<String> memberIds() {
        return oort.members().stream().map(ClusterMember::id).collect(java.util.stream.Collectors.toSet());
    }

    /** @return the members told to the listeners as joined and not told as left since */
    java.util.Set<String> listenedMembers() {
        java.util.Set<String> ids = new java.util.HashSet<>();
        for (String event : events) {
            String id = event.substring(event.indexOf(' ') + 1);
            if (event.startsWith("joined ")) {
                ids.add(id);
            } else {
                ids.remove(id);
            }
        }
        return ids;
    }

    @Override
    public void close() throws Exception {
        try {
            jetty.stop();
        } finally {
            if (proxy != null) {
                proxy.close();
            }
            if (recording != null) {
                recording.close();
            }
        }
    }
}
