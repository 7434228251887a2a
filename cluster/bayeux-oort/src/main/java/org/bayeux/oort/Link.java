package org.bayeux.oort;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import org.bayeux.api.Message;
import org.bayeux.api.client.ClientSession;
import org.bayeux.client.BayeuxClient;
import org.bayeux.client.BayeuxClientConfig;
import org.bayeux.client.ClientResources;
import org.bayeux.client.transport.ClientTransport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's link to one peer: our Java client, over WebSocket (long-polling if WebSocket is refused), handshaking
 * with a fresh {@link JoinProof} every time (the client re-handshakes and backs off by itself). A link only carries
 * this node's messages to the peer; the peer's messages come in on the link the peer dialled. Each link is made for
 * one incarnation of this node: a new incarnation makes new links.
 *
 * <p>Forwards go through the link's {@link ForwardQueue}, which resends what the peer did not acknowledge when the
 * link flaps; everything else (heartbeats, gossip, peer messages) through {@link #send}, at most once.</p>
 */
final class Link {
    private static final Logger LOG = LoggerFactory.getLogger(Link.class);
    /** What a link tells its owner. */
    interface Listener {
        /** The client's state changed. */
        void stateChanged(Link link, BayeuxClient.State state);

        /** The peer refused this link's join: it declared this link's incarnation of this node left. */
        void refusedAsLeft(Link link);

        /** The peer answered a heartbeat on this link: the way to it works now. */
        void answered(Link link);
    }

    /** The answer of a peer that took a message and stopped it there (see {@code Oort}). */
    static final String TAKEN = "404::message_deleted";
    /** The error of a handshake refused because the peer declared the incarnation that makes it left. */
    static final String LEFT_ERROR = "410::oort_incarnation_left";

    private final String target;
    private final String selfId;
    private final BayeuxClient client;
    private final long maxQueueBytes;
    private final ForwardQueue forwards;
    private final OortStats stats;
    private final Listener listener;
    /** Bytes sent and not yet answered on {@link #send}: the client bounds the count, this bounds the bytes. */
    private final AtomicLong pendingBytes = new AtomicLong();
    /** When the peer last answered anything on this link, or the link last connected (System.nanoTime). */
    private volatile long lastAnsweredNanos = System.nanoTime();
    /** The last heartbeat's round trip, or -1 before the first answer. */
    private volatile long rttNanos = -1;
    private volatile BayeuxClient.State state = BayeuxClient.State.DISCONNECTED;
    private volatile boolean closed;
    /** The nonce of the proof of the handshake under way: this side's half of the link's forward key. */
    private volatile String joinNonce;
    /** Signs the forwards of the session the last successful handshake opened; null before one. */
    private volatile ForwardAuth forwardAuth;

    /**
     * @param target the peer's URL
     * @param selfId the incarnation of this node the link joins as
     * @param config this node's configuration
     * @param proof makes the handshake's proof
     * @param resources the threads and connections shared by all links
     * @param stats this node's counters
     * @param listener told of state changes and refusals
     */
    Link(String target, String selfId, OortConfig config, JoinProof proof, ClientResources resources, OortStats stats,
            Listener listener) {
        this.target = target;
        this.selfId = selfId;
        this.listener = listener;
        this.stats = stats;
        this.maxQueueBytes = config.maxQueueBytes();
        // Retries well within the peer timeout, so that a healed network is found again in a few intervals.
        Duration maxBackoff = config.peerTimeout().dividedBy(2);
        BayeuxClientConfig clientConfig = BayeuxClientConfig.builder(target)
                .transports(ClientTransport.WEBSOCKET, ClientTransport.LONG_POLLING)
                .maxIncomingMessageBytes(config.maxMessageBytes())
                // The forward queue's bound plus room for heartbeats and peer messages.
                .maxPendingMessages(config.maxQueue() + 1_000)
                // A request or a WebSocket upgrade lost on a dead connection fails (and the client opens a new one)
                // within half the peer timeout (2 s at least), so that a stuck connection recovers before the peer
                // is declared left.
                .maxNetworkDelay(networkDelay(config.peerTimeout()))
                .backoff(Duration.ofMillis(Math.min(250, maxBackoff.toMillis())), maxBackoff)
                .handshakeHook(request -> {
                    Map<String, Object> join = proof.make(selfId, config.url(), target);
                    joinNonce = (String) join.get("nonce");
                    request.ext(JoinProof.EXT, join);
                    return CompletableFuture.completedFuture(null);
                })
                .build();
        this.client = new BayeuxClient(clientConfig, resources);
        // Half the message limit for a batch: the messages travel as JSON strings, escaped.
        this.forwards = new ForwardQueue(config.maxQueue(), config.maxQueueBytes(), config.maxMessageBytes() / 2,
                () -> ClientTransport.WEBSOCKET.equals(client.getTransportName()) ? ForwardQueue.WINDOW : 1,
                this::sendForwards);
        client.addExtension(new ClientSession.Extension() {
            @Override
            public boolean rcvMeta(ClientSession session, Message.Mutable message) {
                if (Message.META_HANDSHAKE.equals(message.getChannel()) && !message.isSuccessful()
                        && LEFT_ERROR.equals(message.get(Message.ERROR_FIELD)) && !closed) {
                    listener.refusedAsLeft(Link.this);
                }
                if (Message.META_HANDSHAKE.equals(message.getChannel()) && message.isSuccessful()) {
                    keyFrom(message, proof, selfId, target);
                }
                return true;
            }
        });
        client.addStateListener((c, newState) -> {
            state = newState;
            if (newState == BayeuxClient.State.CONNECTED) {
                lastAnsweredNanos = System.nanoTime();
                stats.resent.add(forwards.resend());
            } else {
                forwards.pause();
            }
            listener.stateChanged(this, newState);
        });
    }

    /** A successful handshake: the peer's half of the forward key is in its reply; the session's key is made here. */
    private void keyFrom(Message reply, JoinProof proof, String selfId, String target) {
        Map<String, Object> ext = reply.getExt();
        String nonce = joinNonce;
        if (ext != null && ext.get(JoinProof.EXT) instanceof Map<?, ?> oort
                && oort.get(PeerReplies.ACCEPT_NONCE_FIELD) instanceof String acceptNonce && nonce != null) {
            forwardAuth = proof.forwardAuth(nonce, acceptNonce, selfId, target);
        } else {
            // A peer that sends no nonce takes no forward of ours: every one would be refused as unsigned.
            forwardAuth = null;
            LOG.warn("Oort peer at {} answered the join without its half of the forward key: forwards to it will be"
                    + " refused (a peer of an older version?)", target);
        }
    }

    static Duration networkDelay(Duration peerTimeout) {
        Duration half = peerTimeout.dividedBy(2);
        return half.compareTo(Duration.ofSeconds(2)) < 0 ? Duration.ofSeconds(2) : half;
    }

    /** Starts the handshake; the client keeps (re)connecting by itself. */
    void open() {
        client.handshake(null, null);
    }

    /** @return the peer's URL */
    String target() {
        return target;
    }

    /** @return the incarnation of this node the link joins as */
    String selfId() {
        return selfId;
    }

    /** @return when the peer last answered on this link, or the link last connected (System.nanoTime) */
    long lastAnsweredNanos() {
        return lastAnsweredNanos;
    }

    /** @return the last heartbeat's round trip in nanoseconds, or -1 before the first answer */
    long rttNanos() {
        return rttNanos;
    }

    /** @return the client's state */
    BayeuxClient.State state() {
        return state;
    }

    /** @return the name of the transport the link's client uses now */
    String transportName() {
        return client.getTransportName();
    }

    /** @return whether the link's session is connected now */
    boolean isConnected() {
        return client.isConnected();
    }

    /** @return whether {@link #close} was called: a link closed by this node, not by the network */
    boolean isClosed() {
        return closed;
    }

    /** @return the forwards this link holds until the peer acknowledges them */
    ForwardQueue forwards() {
        return forwards;
    }

    /**
     * Queues a forward on the link's chain; it goes at once if the link is connected, else when it is.
     *
     * @param seq the origin's number for it
     * @param fields its origin, channel and message
     * @param bytes what it weighs
     * @return false if the link already holds {@code oort.maxQueue} forwards or {@code oort.maxQueueBytes}
     */
    boolean forward(long seq, Map<String, Object> fields, int bytes) {
        return forwards.offer(seq, fields, bytes);
    }

    /**
     * One message for the whole batch, with this link's incarnation as the origin of every forward in it, and one
     * reply: taken if the peer took every forward.
     */
    private void sendForwards(ForwardQueue.Batch batch) {
        List<Map<String, Object>> list = new ArrayList<>(batch.entries.size());
        ForwardAuth auth = forwardAuth;
        for (ForwardQueue.Entry entry : batch.entries) {
            Map<String, Object> signed = new HashMap<>(entry.data);
            if (auth != null) {
                // Signed with the key of the session it goes on now: a resend after a new join is signed anew.
                signed.put(ForwardAuth.FIELD, auth.sign(selfId, (String) entry.data.get("to"), entry.seq, entry.prev,
                        (String) entry.data.get("channel"), (String) entry.data.get("message")));
            }
            list.add(signed);
        }
        client.getChannel(Oort.FORWARD_CHANNEL).publish(Map.of("origin", selfId, "forwards", list), (c, reply) -> {
            boolean taken = reply != null && reply.isSuccessful();
            if (taken) {
                lastAnsweredNanos = System.nanoTime();
            }
            forwards.replied(batch, taken);
        });
    }

    /** Sends a heartbeat, and measures its round trip from the answer. */
    void heartbeat(Map<String, Object> data) {
        long sent = System.nanoTime();
        send(Oort.HEARTBEAT_CHANNEL, data, 0, taken -> {
            if (taken) {
                rttNanos = System.nanoTime() - sent;
                listener.answered(this);
            }
        });
    }

    /**
     * Sends on the link without waiting, unless the link already holds {@code oort.maxQueueBytes} unanswered. At most
     * once: nothing sent here is resent when the link flaps.
     *
     * @param channel a {@code /service/oort/} channel
     * @param data the payload
     * @param bytes what the payload weighs, counted against the link's byte limit until it is answered
     * @param onReply told whether the peer took it (a service that stops the message there counts as taken)
     * @return false if it was not sent: the link holds too many bytes unanswered
     */
    boolean send(String channel, Map<String, Object> data, int bytes, Consumer<Boolean> onReply) {
        if (pendingBytes.addAndGet(bytes) > maxQueueBytes) {
            pendingBytes.addAndGet(-bytes);
            return false;
        }
        client.getChannel(channel).publish(data, (c, reply) -> {
            pendingBytes.addAndGet(-bytes);
            boolean taken = isSuccessful(reply);
            if (taken) {
                lastAnsweredNanos = System.nanoTime();
            }
            onReply.accept(taken);
        });
        return true;
    }

    private static boolean isSuccessful(Message reply) {
        return reply != null && (reply.isSuccessful() || TAKEN.equals(reply.get(Message.ERROR_FIELD)));
    }

    /** @return the disconnect's reply, or a made-up one if none came */
    CompletableFuture<Message> close() {
        closed = true;
        return client.disconnectAsync();
    }

    @Override
    public String toString() {
        return "Link[" + target + ", " + state + "]";
    }
}
