package org.bayeux.oort;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.bayeux.api.server.ChannelMessageListener;
import org.bayeux.api.server.ServerChannel;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.server.cluster.ClusterNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes messages of peers, from the sessions their links opened here. It always answers false: a forwarded
 * message stops here and is never fanned out on its service channel, not even to this node's local sessions
 * subscribed to {@code /**} or {@code /service/**}; the peer's link reads the resulting
 * {@code 404::message_deleted} as "taken".
 */
final class ForwardReceiver implements ChannelMessageListener {
    private static final Logger LOG = LoggerFactory.getLogger(Oort.class);

    private final Oort oort;
    private volatile FanOutLanes lanes = new FanOutLanes(1, "unused");

    ForwardReceiver(Oort oort) {
        this.oort = oort;
    }

    /**
     * @param fanOutLanes the threads that deliver (1: the reading thread)
     * @param name their name prefix
     */
    void start(int fanOutLanes, String name) {
        lanes = new FanOutLanes(fanOutLanes, name);
    }

    void stop() {
        lanes.stop();
    }

    @Override
    public boolean onMessage(ServerSession sender, ServerChannel channel, ServerMessage.Mutable message) {
        JoinProof.Peer peer = OortGate.peerOf(sender);
        ClusterNode target = oort.node();
        if (peer == null || target == null || !(message.getData() instanceof Map<?, ?> data)) {
            return false;
        }
        if (!(data.get("origin") instanceof String origin) || !(data.get("forwards") instanceof List<?> forwards)
                || !origin.equals(peer.id())) {
            // One hop: a peer only ever sends its own messages.
            LOG.warn("Oort node {} sent forwards that are not its own messages or not well formed: dropped",
                    peer.id());
            return false;
        }
        if (oort.membership().isDeparted(origin)) {
            // Never taken: the sender learns on its next join that it left, and takes a new incarnation.
            message.put(PeerReplies.VERDICT_FIELD, OriginSequences.Verdict.OUT_OF_ORDER);
            return false;
        }
        oort.membership().heard(origin);
        // Taken as a whole or not: past a refusal, every later forward of the chain would be refused too.
        OriginSequences.Verdict verdict = OriginSequences.Verdict.DELIVER;
        for (Object item : forwards) {
            verdict = accept(origin, item, target);
            if (verdict == OriginSequences.Verdict.OUT_OF_ORDER) {
                break;
            }
        }
        // Read by PeerReplies, which makes the reply say taken or refused.
        message.put(PeerReplies.VERDICT_FIELD, verdict);
        return false;
    }

    private OriginSequences.Verdict accept(String origin, Object item, ClusterNode target) {
        if (!(item instanceof Map<?, ?> forward) || !(forward.get("seq") instanceof Number number)
                || !(forward.get("prev") instanceof Number prev)
                || !(forward.get("channel") instanceof String forwardedChannel)
                || !(forward.get("message") instanceof String json)) {
            LOG.warn("Oort node {} sent a forward that is not well formed: refused", origin);
            return OriginSequences.Verdict.OUT_OF_ORDER;
        }
        return oort.sequences().accept(origin, number.longValue(), prev.longValue(), () -> {
            if (!oort.isObserved(forwardedChannel)) {
                oort.stats().notObserved.increment();
                return;
            }
            // Checked and numbered here, in the origin's order; fanned out on the channel's lane.
            lanes.deliver(forwardedChannel, () -> {
                try {
                    target.deliver(json.getBytes(StandardCharsets.UTF_8));
                    oort.stats().received.increment();
                } catch (IllegalArgumentException e) {
                    LOG.warn("A message from node {} could not be delivered: {}", origin, e.getMessage());
                }
            });
        });
    }
}
