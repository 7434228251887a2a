package org.bayeux.load.server;

import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

import org.bayeux.reference.cometd.CometDReferenceServer;
import org.cometd.bayeux.Channel;
import org.cometd.bayeux.Promise;
import org.cometd.bayeux.server.BayeuxServer;
import org.cometd.bayeux.server.LocalSession;
import org.cometd.bayeux.server.ServerChannel;
import org.cometd.bayeux.server.ServerMessage;
import org.cometd.bayeux.server.ServerSession;
import org.cometd.server.ServerSessionImpl;

/**
 * {@code bin/bayeux load-server --cometd}: the unmodified CometD 8 reference server with the same statistics service
 * as {@link LoadServer}, written with CometD's own API, so that one load client measures both servers alike.
 */
public final class CometDLoadServer {
    private final BayeuxServer bayeux;
    private final LocalSession sender;
    private final LongAdder publishes = new LongAdder();
    private final LongAdder connects = new LongAdder();

    /**
     * Installs the statistics service on a CometD server.
     *
     * @param bayeux CometD's server
     */
    public CometDLoadServer(BayeuxServer bayeux) {
        this.bayeux = bayeux;
        this.sender = bayeux.newLocalSession("load-stats");
        sender.handshake();
        bayeux.createChannelIfAbsent(LoadServer.STATS_SERVICE).getReference()
                .addListener(new ServerChannel.MessageListener() {
                    @Override
                    public boolean onMessage(ServerSession from, ServerChannel channel, ServerMessage.Mutable request) {
                        answer(from, request);
                        return true;
                    }
                });
        bayeux.createChannelIfAbsent("/load/**", channel -> channel.setPersistent(true)).getReference()
                .addListener(new ServerChannel.MessageListener() {
                    @Override
                    public boolean onMessage(ServerSession from, ServerChannel channel, ServerMessage.Mutable message) {
                        publishes.increment();
                        return true;
                    }
                });
        bayeux.addExtension(new BayeuxServer.Extension() {
            @Override
            public boolean rcvMeta(ServerSession from, ServerMessage.Mutable message) {
                if (Channel.META_CONNECT.equals(message.getChannel())) {
                    connects.increment();
                }
                return true;
            }
        });
    }

    private void answer(ServerSession requester, ServerMessage request) {
        boolean fullGc = request.getData() instanceof Map<?, ?> data && Boolean.TRUE.equals(data.get("gc"));
        Map<String, Object> stats = ProcessStats.snapshot(fullGc);
        stats.put("server", "cometd");
        int sessions = 0;
        long queued = 0;
        for (ServerSession session : bayeux.getSessions()) {
            if (session.isLocalSession()) {
                continue;
            }
            sessions++;
            if (session instanceof ServerSessionImpl impl) {
                queued += impl.getQueue().size();
            }
        }
        stats.put("sessions", sessions); // remote clients only
        stats.put("queuedMessages", queued);
        stats.put("publishesReceived", publishes.sum());
        stats.put("connectsReceived", connects.sum());
        ServerMessage.Mutable answer = bayeux.newMessage();
        answer.setChannel(request.getChannel());
        answer.setId(request.getId());
        answer.setSuccessful(true);
        answer.setData(stats);
        requester.deliver(sender.getServerSession(), answer, Promise.noop());
    }

    /**
     * @param args {@code [--host H] [--port P] [--set KEY=VALUE]...}, as {@link CometDReferenceServer}
     * @throws Exception if the server cannot start
     */
    public static void main(String[] args) throws Exception {
        CometDReferenceServer.main(args, server -> new CometDLoadServer(server.bayeux()));
    }
}
