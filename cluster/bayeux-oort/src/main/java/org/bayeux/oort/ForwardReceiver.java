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

    private final OortStats stats;
    private final Membership membership;
    private final OriginSequences sequences;
    private final Incarnation self;
    private final ObservedChannels observed;
    /** Where peers' messages are delivered: the node between {@link #start} and {@link #stop}, else null. */
    private volatile ClusterNode node;
    /** Refused forwards are a forger's (or a broken peer's) to send: one log line per period at most. */
    private final RefusalLog refusals = new RefusalLog(LOG::warn, System::nanoTime);
    private volatile FanOutLanes lanes = new FanOutLanes(1, "unused");

    /**
     * @param stats the node's counters
     * @param membership who has joined and who has left (a departed incarnation's forwards are never taken)
     * @param sequences the numbering of each origin's forwards
     * @param self this node's incarnation, to which the forwards are addressed
     * @param observed the channels delivered here
     */
    ForwardReceiver(OortStats stats, Membership membership, OriginSequences sequences, Incarnation self,
            ObservedChannels observed) {
        this.stats = stats;
        this.membership = membership;
        this.sequences = sequences;
        this.self = self;
        this.observed = observed;
    }

    /**
     * @param target where peers' messages are delivered from now on
     * @param fanOutLanes the threads that deliver (1: the reading thread)
     * @param name their name prefix
     */
    void start(ClusterNode target, int fanOutLanes, String name) {
        lanes = new FanOutLanes(fanOutLanes, name);
        node = target;
    }

    /** Nothing is delivered from now on. */
    void stop() {
        node = null;
        lanes.stop();
    }

    @Override
    public boolean onMessage(ServerSession sender, ServerChannel channel, ServerMessage.Mutable message) {
        JoinProof.Peer peer = OortGate.peerOf(sender);
        ClusterNode target = node;
        if (peer == null || target == null || !(message.getData() instanceof Map<?, ?> data)) {
            return false;
        }
        if (!(data.get("origin") instanceof String origin) || !(data.get("forwards") instanceof List<?> forwards)
                || !origin.equals(peer.id())) {
            // One hop: a peer only ever sends its own messages.
            stats.refusedForwards.increment();
            refusals.refused(() -> "Oort node " + RefusalLog.sanitized(peer.id()) + " sent forwards that are not its"
                    + " own messages or not well formed: refused");
            message.put(PeerReplies.VERDICT_FIELD, OriginSequences.Verdict.REFUSED);
            return false;
        }
        if (membership.isDeparted(origin)) {
            // Never taken: the sender learns on its next join that it left, and takes a new incarnation.
            message.put(PeerReplies.VERDICT_FIELD, OriginSequences.Verdict.OUT_OF_ORDER);
            return false;
        }
        membership.heard(origin);
        // Taken as a whole or not: past a refusal, every later forward of the chain would be refused too.
        OriginSequences.Verdict verdict = OriginSequences.Verdict.DELIVER;
        for (Object item : forwards) {
            verdict = accept(peer, item, target);
            if (verdict == OriginSequences.Verdict.OUT_OF_ORDER || verdict == OriginSequences.Verdict.REFUSED) {
                break;
            }
        }
        // Read by PeerReplies, which makes the reply say taken or refused.
        message.put(PeerReplies.VERDICT_FIELD, verdict);
        return false;
    }

    private OriginSequences.Verdict accept(JoinProof.Peer peer, Object item, ClusterNode target) {
        String origin = peer.id();
        if (!(item instanceof Map<?, ?> forward) || !(forward.get("seq") instanceof Number number)
                || !(forward.get("prev") instanceof Number prev)
                || !(forward.get("channel") instanceof String forwardedChannel)
                || !(forward.get("message") instanceof String json)
                || !(forward.get("to") instanceof String to)) {
            return refuse(origin, "a forward that is not well formed");
        }
        long seq = number.longValue();
        long previous = prev.longValue();
        if (!peer.forwards().verify(origin, to, seq, previous, forwardedChannel, json,
                forward.get(ForwardAuth.FIELD))) {
            // Not made with this link's key: a reader of the link replaying or forging, not the peer.
            return refuse(origin, "a forward whose MAC is not good");
        }
        ServerMessage parsed;
        try {
            parsed = target.parse(json.getBytes(StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
            return refuse(origin, "a forward whose message cannot be delivered");
        }
        if (!forwardedChannel.equals(parsed.getChannel())) {
            // The channel checked below must be the one delivered on.
            return refuse(origin, "a forward whose message is on another channel than the forward's");
        }
        OriginSequences.Verdict verdict = sequences.accept(origin, to, self::id, seq, previous, () -> {
            if (!observed.matches(forwardedChannel)) {
                stats.notObserved.increment();
                return;
            }
            // Checked and numbered here, in the origin's order; fanned out on the channel's lane.
            lanes.deliver(forwardedChannel, () -> {
                target.deliverParsed(parsed);
                stats.received.increment();
            });
        });
        if (verdict == OriginSequences.Verdict.REFUSED) {
            refusals.refused(() -> "Oort node " + RefusalLog.sanitized(origin) + " sent a forward numbered " + seq
                    + " after " + previous + ", which no genuine chain has (a second start or too far a jump):"
                    + " refused");
        }
        return verdict;
    }

    private OriginSequences.Verdict refuse(String origin, String what) {
        stats.refusedForwards.increment();
        refusals.refused(() -> "Oort refused " + what + " on the link of node " + RefusalLog.sanitized(origin));
        return OriginSequences.Verdict.REFUSED;
    }
}
