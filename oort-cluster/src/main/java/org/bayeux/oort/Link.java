package org.bayeux.oort;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

import org.bayeux.api.Message;
import org.bayeux.client.BayeuxClient;
import org.bayeux.client.BayeuxClientConfig;
import org.bayeux.client.ClientResources;
import org.bayeux.client.transport.ClientTransport;

/**
 * This node's link to one peer: our Java client, over WebSocket (long-polling if WebSocket is refused), handshaking
 * with a fresh {@link JoinProof} every time (the client re-handshakes and backs off by itself). A link only carries
 * this node's messages to the peer; the peer's messages come in on the link the peer dialled.
 */
final class Link {
    private final String target;
    private final BayeuxClient client;
    private final long maxQueueBytes;
    /** Bytes sent and not yet answered: the client bounds the count, this bounds the bytes. */
    private final AtomicLong pendingBytes = new AtomicLong();
    /** When the peer last answered anything on this link, or the link last connected (System.nanoTime). */
    private volatile long lastAnsweredNanos = System.nanoTime();

    /**
     * @param target the peer's URL
     * @param selfId this node's id
     * @param config this node's configuration
     * @param proof makes the handshake's proof
     * @param resources the threads and connections shared by all links
     * @param onState told of every change of the client's state
     */
    Link(String target, String selfId, OortConfig config, JoinProof proof, ClientResources resources,
            BiConsumer<Link, BayeuxClient.State> onState) {
        this.target = target;
        this.maxQueueBytes = config.maxQueueBytes();
        BayeuxClientConfig clientConfig = BayeuxClientConfig.builder(target)
                .transports(ClientTransport.WEBSOCKET, ClientTransport.LONG_POLLING)
                .maxIncomingMessageBytes(config.maxMessageBytes())
                .maxPendingMessages(config.maxQueue())
                .backoff(Duration.ofMillis(250), Duration.ofSeconds(10))
                .handshakeHook(request -> {
                    request.ext(JoinProof.EXT, proof.make(selfId, config.url(), target));
                    return CompletableFuture.completedFuture(null);
                })
                .build();
        this.client = new BayeuxClient(clientConfig, resources);
        client.addStateListener((c, state) -> {
            if (state == BayeuxClient.State.CONNECTED) {
                lastAnsweredNanos = System.nanoTime();
            }
            onState.accept(this, state);
        });
    }

    /** Starts the handshake; the client keeps (re)connecting by itself. */
    void open() {
        client.handshake(null, null);
    }

    /** @return the peer's URL */
    String target() {
        return target;
    }

    /** @return when the peer last answered on this link, or the link last connected (System.nanoTime) */
    long lastAnsweredNanos() {
        return lastAnsweredNanos;
    }

    /** @return whether the link's session is connected now */
    boolean isConnected() {
        return client.isConnected();
    }

    /**
     * Sends on the link without waiting, unless the link already holds {@code oort.maxQueueBytes} unanswered.
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

    /** The answer of a peer that took a forwarded message and stopped it there (see {@code Oort}). */
    static final String TAKEN = "404::message_deleted";

    private static boolean isSuccessful(Message reply) {
        return reply != null && (reply.isSuccessful() || TAKEN.equals(reply.get(Message.ERROR_FIELD)));
    }

    /** @return the disconnect's reply, or a made-up one if none came */
    CompletableFuture<Message> close() {
        return client.disconnectAsync();
    }

    @Override
    public String toString() {
        return "Link[" + target + ", " + client.getState() + "]";
    }
}
