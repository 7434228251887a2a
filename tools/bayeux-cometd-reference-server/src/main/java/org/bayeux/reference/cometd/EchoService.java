package org.bayeux.reference.cometd;

import org.cometd.bayeux.Promise;
import org.cometd.bayeux.server.BayeuxServer;
import org.cometd.bayeux.server.LocalSession;
import org.cometd.bayeux.server.ServerChannel;
import org.cometd.bayeux.server.ServerMessage;
import org.cometd.bayeux.server.ServerSession;

/**
 * Answers every message on {@value #CHANNEL} with a message to its sender only, on the same channel, with the
 * request's {@code id} and {@code data} and {@code successful: true}: the shape a client's remote call waits for.
 * Written with CometD's plain server API, so the answer is CometD's own wire format.
 */
public final class EchoService {
    /** The service channel. */
    public static final String CHANNEL = "/service/echo";

    private final BayeuxServer bayeux;
    private final LocalSession sender;

    EchoService(BayeuxServer bayeux) {
        this.bayeux = bayeux;
        this.sender = bayeux.newLocalSession("echo");
        sender.handshake();
        bayeux.createChannelIfAbsent(CHANNEL).getReference().addListener(new ServerChannel.MessageListener() {
            @Override
            public boolean onMessage(ServerSession from, ServerChannel channel, ServerMessage.Mutable request) {
                return answer(from, channel, request);
            }
        });
    }

    private boolean answer(ServerSession from, ServerChannel channel, ServerMessage.Mutable request) {
        ServerMessage.Mutable answer = bayeux.newMessage();
        answer.setChannel(channel.getId());
        answer.setId(request.getId());
        answer.setSuccessful(true);
        answer.setData(request.getData());
        from.deliver(sender.getServerSession(), answer, Promise.noop());
        return true;
    }
}
