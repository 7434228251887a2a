package org.bayeux.load.server;

import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

import org.bayeux.api.server.ServerExtension;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.api.server.BayeuxServer;
import org.bayeux.server.BayeuxService;
import org.bayeux.standalone.StandaloneOptions;
import org.bayeux.standalone.StandaloneServer;

/**
 * {@code bin/bayeux load-server}: the standalone server plus the statistics service the load client asks at the end
 * of a run, {@value #STATS_SERVICE}: process CPU, GC, heap (after a full GC when asked), sessions, queued messages,
 * publishes and {@code /meta/connect} messages received. Takes the standalone server's options ({@code --port},
 * {@code --host}, {@code --set}).
 */
public final class LoadServer extends BayeuxService {
    /** The statistics service. */
    public static final String STATS_SERVICE = "/service/load/stats";

    private final BayeuxServer engine;
    private final LongAdder publishes = new LongAdder();
    private final LongAdder connects = new LongAdder();

    /**
     * Installs the statistics service on an engine.
     *
     * @param engine the engine
     */
    public LoadServer(BayeuxServer engine) {
        super(engine, "load-stats");
        this.engine = engine;
        addService(STATS_SERVICE, (requester, request) ->
                stats(request.getData() instanceof Map<?, ?> data && Boolean.TRUE.equals(data.get("gc"))));
        engine.createChannelIfAbsent("/load/**", channel -> channel.setPersistent(true))
                .addMessageListener((sender, channel, message) -> {
                    publishes.increment();
                    return true;
                });
        engine.addExtension(new ServerExtension() {
            @Override
            public boolean rcvMeta(ServerSession session, ServerMessage.Mutable message) {
                if ("/meta/connect".equals(message.getChannel())) {
                    connects.increment();
                }
                return true;
            }
        });
    }

    Map<String, Object> stats(boolean fullGc) {
        Map<String, Object> stats = ProcessStats.snapshot(fullGc);
        stats.put("server", "bayeux");
        int sessions = 0;
        long queued = 0;
        for (ServerSession session : engine.getSessions()) {
            if (session.isLocalSession()) {
                continue;
            }
            sessions++;
            queued += session.getQueueSize();
        }
        stats.put("sessions", sessions); // remote clients only
        stats.put("queuedMessages", queued);
        stats.put("publishesReceived", publishes.sum());
        stats.put("connectsReceived", connects.sum());
        return stats;
    }

    /**
     * @param args the standalone server's options
     * @throws Exception if the server cannot start
     */
    public static void main(String[] args) throws Exception {
        StandaloneOptions options;
        try {
            // A load run's thousands of clients come from one or a few hosts: the per-address caps would refuse them.
            // Given first, so that the command line may set them again.
            String[] unlimited = {"--set", "maxSessionsPerAddress=-1", "--set", "maxHandshakesPerAddressPerSecond=-1"};
            String[] all = new String[unlimited.length + args.length];
            System.arraycopy(unlimited, 0, all, 0, unlimited.length);
            System.arraycopy(args, 0, all, unlimited.length, args.length);
            options = StandaloneOptions.parse(all);
        } catch (IllegalArgumentException bad) {
            System.err.println("bayeux load-server: " + bad.getMessage());
            System.exit(2);
            return;
        }
        StandaloneServer server = new StandaloneServer(options);
        new LoadServer(server.getEngine());
        System.out.println("LOAD-SERVER-READY http://127.0.0.1:" + server.getPort() + "/bayeux");
        System.out.flush();
        server.join();
    }
}
