package org.bayeux.oort;

import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.Message;
import org.bayeux.api.client.ClientSession;
import org.bayeux.client.BayeuxClient;
import org.bayeux.client.BayeuxClientConfig;
import org.bayeux.client.transport.ClientTransport;

/**
 * A client that holds the cluster's secret and joins a real node as a peer would, then sends whatever it likes: a
 * compromised or broken node, for the rules a node keeps even against a key holder. Its URL is a port nothing listens
 * on, so the node's dial back never connects and the fake never becomes a member; its session is a peer's all the
 * same.
 */
final class FakePeer implements AutoCloseable {
    final String id = "fake-" + UUID.randomUUID();
    final String url;
    private final BayeuxClient client;
    private final JoinProof proof = new JoinProof(OortTestNode.SECRET.getBytes(StandardCharsets.UTF_8),
            Clock.systemUTC(), Duration.ofSeconds(30));
    private volatile String joinNonce;
    private volatile ForwardAuth auth;

    FakePeer(String target) throws Exception {
        try (ServerSocket closed = new ServerSocket(0)) {
            url = "http://127.0.0.1:" + closed.getLocalPort() + "/bayeux";
        }
        client = new BayeuxClient(BayeuxClientConfig.builder(target)
                .transports(ClientTransport.WEBSOCKET)
                .handshakeHook(request -> {
                    Map<String, Object> join = proof.make(id, url, target);
                    joinNonce = (String) join.get("nonce");
                    request.ext(JoinProof.EXT, join);
                    return CompletableFuture.completedFuture(null);
                })
                .build());
        client.addExtension(new ClientSession.Extension() {
            @Override
            public boolean rcvMeta(ClientSession session, Message.Mutable message) {
                if (Message.META_HANDSHAKE.equals(message.getChannel()) && message.isSuccessful()
                        && message.getExt() != null && message.getExt().get(JoinProof.EXT) instanceof Map<?, ?> ext) {
                    auth = proof.forwardAuth(joinNonce, (String) ext.get(PeerReplies.ACCEPT_NONCE_FIELD), id, target);
                }
                return true;
            }
        });
        if (client.handshake(Duration.ofSeconds(10)) != BayeuxClient.State.CONNECTED) {
            throw new IllegalStateException("the fake peer's join was refused");
        }
    }

    /**
     * Sends one forward signed with this join's key, for the node's incarnation {@code to}; the message's own channel
     * may differ from the forward's.
     */
    Message forward(String to, long seq, long prev, String channel, String messageChannel, String data)
            throws Exception {
        String message = "{\"channel\":\"" + messageChannel + "\",\"data\":\"" + data + "\"}";
        Map<String, Object> forward = Map.of("to", to, "seq", seq, "prev", prev, "channel", channel, "message",
                message, ForwardAuth.FIELD, auth.sign(id, to, seq, prev, channel, message));
        return send(Oort.FORWARD_CHANNEL, Map.of("origin", id, "forwards", List.of(forward)));
    }

    /** Sends a heartbeat with the given URLs as its member list. */
    Message heartbeat(List<String> memberUrls) throws Exception {
        List<Map<String, Object>> members = memberUrls.stream()
                .map(u -> Map.<String, Object>of("id", "gossiped-" + u.hashCode(), "url", u)).toList();
        return send(Oort.HEARTBEAT_CHANNEL, Map.of("id", id, "members", members));
    }

    private Message send(String channel, Map<String, Object> data) throws Exception {
        return client.getChannel(channel).publishAsync(data).get(10, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        client.close();
    }
}
