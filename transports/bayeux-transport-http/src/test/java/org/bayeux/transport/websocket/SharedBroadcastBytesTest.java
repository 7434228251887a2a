package org.bayeux.transport.websocket;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import org.bayeux.api.Promise;
import org.bayeux.server.BayeuxServerImpl;
import org.bayeux.server.config.BayeuxServerConfig;
import org.bayeux.transport.http.TransportConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A broadcast pushed alone to many sockets is one byte array handed to every peer, not a copy per socket. */
class SharedBroadcastBytesTest {
    private final BayeuxServerImpl engine = new BayeuxServerImpl(BayeuxServerConfig.defaults());
    private final SocketTransport transport = new SocketTransport(engine, TransportConfig.defaults(), Runnable::run);

    @AfterEach
    void stop() {
        engine.stop();
    }

    /** A socket that writes at once and keeps what it was given. */
    private static final class RecordingPeer implements SocketPeer {
        final List<byte[]> sent = new CopyOnWriteArrayList<>();

        @Override
        public void sendText(String text, Consumer<Throwable> done) {
            sendText(text.getBytes(StandardCharsets.UTF_8), done);
        }

        @Override
        public void sendText(byte[] utf8, Consumer<Throwable> done) {
            sent.add(utf8);
            done.accept(null);
        }

        @Override
        public void close(int code, String reason) {
        }

        @Override
        public void abort() {
        }

        String last() {
            return new String(sent.get(sent.size() - 1), StandardCharsets.UTF_8);
        }
    }

    private RecordingPeer subscribedSocket(String channel) {
        RecordingPeer peer = new RecordingPeer();
        SocketCarrier carrier = transport.newCarrier();
        carrier.opened(peer);
        carrier.onText("[{\"id\":\"1\",\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"supportedConnectionTypes\":[\"websocket\"]}]").toCompletableFuture().join();
        String reply = peer.last();
        String clientId = reply.replaceAll(".*\"clientId\":\"([^\"]+)\".*", "$1");
        carrier.onText("[{\"id\":\"2\",\"channel\":\"/meta/connect\",\"connectionType\":\"websocket\",\"clientId\":\""
                + clientId + "\",\"advice\":{\"timeout\":0}}]").toCompletableFuture().join();
        carrier.onText("[{\"id\":\"3\",\"channel\":\"/meta/subscribe\",\"subscription\":\"" + channel
                + "\",\"clientId\":\"" + clientId + "\"}]").toCompletableFuture().join();
        carrier.onText("[{\"id\":\"4\",\"channel\":\"/meta/connect\",\"connectionType\":\"websocket\",\"clientId\":\""
                + clientId + "\"}]").toCompletableFuture().join();
        assertThat(engine.isConnectHeld(engine.getSession(clientId))).isTrue();
        peer.sent.clear();
        return peer;
    }

    @Test
    void everyPeerIsHandedTheSameArrayForABroadcastSentAlone() {
        engine.start();
        List<RecordingPeer> peers = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            peers.add(subscribedSocket("/room"));
        }
        String large = "z".repeat(200_000);
        engine.getChannel("/room").publish(null, Map.of("text", large), Promise.noop());

        byte[] first = peers.get(0).sent.get(0);
        assertThat(new String(first, StandardCharsets.UTF_8)).startsWith("[{").contains(large).endsWith("}]");
        for (RecordingPeer peer : peers) {
            assertThat(peer.sent).hasSize(1);
            assertThat(peer.sent.get(0)).isSameAs(first);
        }
    }

    @Test
    void framesJoiningSeveralMessagesAreCutAtTheFrameSizeAndLoneOnesStayShared() {
        engine.start();
        RecordingPeer a = subscribedSocket("/room");
        RecordingPeer b = subscribedSocket("/room");
        BayeuxServerImpl server = engine;
        org.bayeux.server.ServerMessageImpl small = new org.bayeux.server.ServerMessageImpl();
        small.setChannel("/room");
        small.setData("s");
        small.freeze();
        org.bayeux.server.ServerMessageImpl big = new org.bayeux.server.ServerMessageImpl();
        big.setChannel("/room");
        big.setData("b".repeat(100_000));
        big.freeze();
        List<byte[]> forA = TextFrames.of(server.encoded(List.of(small, small, big)), 64 * 1024);
        List<byte[]> forB = TextFrames.of(server.encoded(List.of(small, small, big)), 64 * 1024);
        assertThat(forA).hasSize(2);
        assertThat(new String(forA.get(0), StandardCharsets.UTF_8)).startsWith("[{").endsWith("}]");
        assertThat(forA.get(0)).as("two joined: built per socket").isNotSameAs(forB.get(0)).isEqualTo(forB.get(0));
        assertThat(forA.get(1)).as("one alone: shared").isSameAs(forB.get(1));
        assertThat(a.sent).isEmpty();
        assertThat(b.sent).isEmpty();
    }
}
